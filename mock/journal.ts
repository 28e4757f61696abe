/**
 * The durable state: an append-only JSON Lines journal. Every answered create (and every reset) is a
 * line, written and flushed to disk (`fdatasync`) before the answer is sent. Appends that arrive
 * while a flush is running are written together with one flush (group commit).
 *
 * On start the journal is replayed: a line that is not valid JSON (a torn last line after a crash) is
 * reported with the file and line number and skipped; earlier lines are never lost. A torn last line
 * is cut off after it is reported, so the journal stays one valid entry a line.
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
  /** How many valid entries were replayed. */
  replayed: number;
}

function isEntry(value: unknown): value is JournalEntry {
  if (!isObject(value) || typeof value['session'] !== 'string') return false;
  if (value['op'] === 'reset') return true;
  return value['op'] === 'create' && typeof value['resource'] === 'string' && isObject(value['record']);
}

const REPLAY_CHUNK = 1024 * 1024;

/**
 * Replays the journal a chunk at a time (memory stays flat however long it is), calling `onEntry` for
 * every valid line in order. Answers the file's size and whether its last byte is a newline.
 */
async function replay(
  handle: FileHandle,
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry) => void,
): Promise<{ replayed: number; size: number; tornFrom?: number; unterminated?: boolean }> {
  const stat = await handle.stat();
  // A device (/dev/null, /dev/full) has nothing to replay.
  if (!stat.isFile()) return { replayed: 0, size: 0 };
  const chunk = Buffer.alloc(REPLAY_CHUNK);
  let position = 0;
  let pending = Buffer.alloc(0);
  let lineNumber = 0;
  let replayed = 0;
  const take = (line: Buffer, torn: boolean): boolean => {
    lineNumber++;
    const text = line.toString('utf8');
    if (text.trim() === '') return true;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (isEntry(value)) {
      onEntry(value);
      replayed++;
      return true;
    }
    log(`state file ${path} line ${lineNumber}: ${torn ? 'torn last line (incomplete write)' : 'invalid line'} skipped`);
    return false;
  };
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    let newline = data.indexOf(0x0a);
    while (newline !== -1) {
      take(data.subarray(0, newline), false);
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    // Keep the unfinished line (copied: `chunk` is reused by the next read).
    pending = Buffer.from(data);
  }
  if (pending.length === 0) return { replayed, size: position };
  // The last line has no newline: a write cut short by a crash (its entry was never answered). A
  // complete entry is kept (and gets its newline), a torn one is cut off.
  if (take(pending, true)) return { replayed, size: position, unterminated: true };
  return { replayed, size: position, tornFrom: position - pending.length };
}

/**
 * Opens (creating it if needed) and replays the journal, calling `onEntry` for each valid entry.
 * Throws an Error naming the file when it cannot.
 */
export async function openJournal(
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry) => void = () => undefined,
): Promise<OpenedJournal> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'a+');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`cannot open the state file ${path} for appending (${code}); choose a writable --state-file path`, { cause: error });
  }
  let replayed: number;
  let replayedSize: number;
  let needsNewline: boolean;
  try {
    const result = await replay(handle, path, log, onEntry);
    replayed = result.replayed;
    replayedSize = result.size;
    needsNewline = result.unterminated === true;
    if (result.tornFrom !== undefined) {
      // Cut the torn tail off, so it is reported once and the journal stays one valid line per entry.
      try {
        await handle.truncate(result.tornFrom);
        replayedSize = result.tornFrom;
      } catch {
        needsNewline = true;
      }
    }
  } catch (error) {
    await handle.close();
    throw new Error(`cannot read the state file ${path}: ${(error as Error).message}`, { cause: error });
  }

  // The length of the journal up to its last durable entry: a failed write is cut back to it.
  let durableSize = replayedSize;
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
      const data = Buffer.from((needsNewline ? '\n' : '') + batch.map((item) => item.line).join(''), 'utf8');
      try {
        await writeAll(data);
        await handle.datasync();
        durableSize += data.length;
        needsNewline = false;
        for (const item of batch) item.resolve();
      } catch (error) {
        // Part of the batch may be on disk: cut it back, so a record answered 503 never comes back after a
        // restart; where that fails too, the next write at least starts on a new line.
        try {
          await handle.truncate(durableSize);
        } catch {
          needsNewline = true;
        }
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
  return { journal, replayed };
}
