/**
 * The durable state: an append-only JSON Lines journal. Every answered create (and every reset) is a
 * line, written and flushed to disk (`fdatasync`) before the answer is sent. Appends that arrive
 * while a flush is running are written together with one flush (group commit).
 *
 * On start the journal is replayed: a line that is not valid JSON (a torn last line after a crash) is
 * reported with the file and line number and skipped; earlier lines are never lost. A journal whose
 * last byte is not a newline gets one before the next append.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { isObject, type JsonObject } from '../contract/document.js';

export type JournalEntry =
  { op: 'create'; session: string; resource: string; record: JsonObject; at?: string } | { op: 'reset'; session: string; at?: string };

export interface Journal {
  path: string;
  /** Resolves once the entry is on disk; rejects when it could not be made durable. */
  append(entry: JournalEntry): Promise<void>;
  close(): Promise<void>;
}

export interface OpenedJournal {
  journal: Journal;
  /** The valid entries found, in order. */
  entries: JournalEntry[];
}

function isEntry(value: unknown): value is JournalEntry {
  if (!isObject(value) || typeof value['session'] !== 'string') return false;
  if (value['op'] === 'reset') return true;
  return value['op'] === 'create' && typeof value['resource'] === 'string' && isObject(value['record']);
}

async function readAll(handle: FileHandle): Promise<Buffer> {
  const stat = await handle.stat();
  // A device (/dev/null, /dev/full) has nothing to replay.
  if (!stat.isFile()) return Buffer.alloc(0);
  const buffer = Buffer.alloc(stat.size);
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return buffer.subarray(0, offset);
}

/** Opens (creating it if needed) and replays the journal. Throws an Error naming the file when it cannot. */
export async function openJournal(path: string, log: (line: string) => void): Promise<OpenedJournal> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'a+');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`cannot open the state file ${path} for appending (${code}); choose a writable --state-file path`, { cause: error });
  }
  let content: Buffer;
  try {
    content = await readAll(handle);
  } catch (error) {
    await handle.close();
    throw new Error(`cannot read the state file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const entries: JournalEntry[] = [];
  const lines = content.toString('utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (isEntry(value)) entries.push(value);
    else {
      const torn = index === lines.length - 1;
      log(`state file ${path} line ${index + 1}: ${torn ? 'torn last line (incomplete write)' : 'invalid line'} skipped`);
    }
  });
  let needsNewline = content.length > 0 && content[content.length - 1] !== 0x0a;

  let queue: { line: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  let flushing: Promise<void> | undefined;
  let closed = false;

  const writeAll = async (data: Buffer): Promise<void> => {
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await handle.write(data, offset, data.length - offset);
      offset += bytesWritten;
    }
  };

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const text = (needsNewline ? '\n' : '') + batch.map((item) => item.line).join('');
      try {
        await writeAll(Buffer.from(text, 'utf8'));
        await handle.datasync();
        needsNewline = false;
        for (const item of batch) item.resolve();
      } catch (error) {
        // Part of the batch may be on disk: start the next write on a new line.
        needsNewline = true;
        const failure = new Error(`cannot write the state file ${path}: ${(error as Error).message}`, { cause: error });
        for (const item of batch) item.reject(failure);
      }
    }
    flushing = undefined;
  };

  const journal: Journal = {
    path,
    append(entry) {
      if (closed) return Promise.reject(new Error(`the state file ${path} is closed`));
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
        flushing ??= flush();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (flushing) await flushing;
      await handle.close();
    },
  };
  return { journal, entries };
}
