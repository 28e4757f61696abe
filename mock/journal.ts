/**
 * The durable state: an append-only JSON Lines journal. Every answered create (and every reset) is a
 * line, written and flushed to disk (`fdatasync`) before the answer is sent. Appends that arrive
 * while a flush is running are written together with one flush (group commit).
 *
 * Guarantees:
 * - Exclusive: the file is locked (`<file>.lock` holding the pid, see journal-lock.ts) while it is
 *   open; a second mock on it fails to start with the file and the holder's pid. A lock left by a
 *   killed mock is reported and taken over. Devices (`/dev/null`, `/dev/full`) are not locked.
 * - Checksummed: every line carries a CRC-32 (see journal-line.ts). Replay reports each damaged line
 *   with the file and line number and skips it: a checksum mismatch, invalid JSON, a line longer than
 *   `maxLineBytes` (it can never be a record), a line without checksum after checksummed ones. Lines
 *   without checksum before the first checksummed one (a journal of an older mock) are accepted with
 *   one warning.
 * - No id is handed out twice: each damaged line that may have been a create is passed to
 *   `onDamaged`, with what could be salvaged of it, so the caller can reserve its ids.
 * - Detected, not lost: before every write the path is checked to still name the opened file with the
 *   size last written (not deleted, renamed, replaced or changed by another program). If not, nothing
 *   is written and `append` rejects (the create is answered 503 and logged, never 201): the mock
 *   does not rewrite the file, since whoever moved or replaced it may want it that way; a restart
 *   continues from the file then at the path.
 * - Torn last line (a crash mid-write, never acknowledged): reported with file and line, skipped and
 *   cut off; earlier lines are kept. A UTF-8 byte order mark at the start is skipped.
 * - Linear: replay reads a chunk at a time and copies each byte at most twice, however long a line.
 * - Missing parent folders of the path are created.
 *
 * API: `openJournal(path, log, onEntry, options?)` → `{ journal, replayed }`; `journal.append(entry)`,
 * `journal.close()` (also releases the lock); `options.onDamaged(damaged)`, `options.maxLineBytes`.
 */
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { decodeLine, encodeLine, type JournalEntry } from './journal-line.js';
import { LockHeldError, lockStateFile, type StateLock } from './journal-lock.js';
import { codeOf, messageOf } from '../contract/errors.js';

export type { JournalEntry } from './journal-line.js';

export interface Journal {
  path: string;
  /** Resolves once the entry is on disk; rejects when it could not be made durable. */
  append(entry: JournalEntry): Promise<void>;
  /** Waits for pending writes, closes the file and releases its lock. */
  close(): Promise<void>;
}

export interface OpenedJournal {
  journal: Journal;
  /** How many valid entries were replayed. */
  replayed: number;
}

/** A complete line that replay skipped (already logged with the file and line number). */
export interface DamagedLine {
  /** 1-based line number. */
  line: number;
  reason: string;
  /** What the line still shows (the whole entry when it still parses); absent when nothing could be read. */
  salvage?: JournalEntry;
  /**
   * The line may have been an acknowledged create (it was written by the journal, or reads as a
   * create): its ids must be reserved, conservatively when `salvage` cannot say which.
   */
  create: boolean;
}

export interface JournalOptions {
  /** Called in file order, between the `onEntry` calls, for every damaged complete line. */
  onDamaged?: (damaged: DamagedLine) => void;
  /** A longer line is reported and skipped without being kept in memory (default 16 MiB). */
  maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const REPLAY_CHUNK = 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Replayed {
  replayed: number;
  size: number;
  /** Where an unacknowledged (torn or over-long) last line starts: it is cut off. */
  tornFrom?: number;
  /** The last line is a complete entry without its newline. */
  unterminated?: boolean;
}

/**
 * Replays the journal a chunk at a time (memory stays flat however long it is), calling `onEntry` for
 * every valid line in order. Each byte is copied at most twice (a line spanning chunks is concatenated
 * once, when its newline is found).
 */
async function replay(
  handle: FileHandle,
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry) => void,
  options: JournalOptions,
): Promise<Replayed> {
  const stats = await handle.stat();
  // A device (/dev/null, /dev/full) has nothing to replay.
  if (!stats.isFile()) return { replayed: 0, size: 0 };
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const chunk = Buffer.alloc(REPLAY_CHUNK);
  let position = 0;
  let parts: Buffer[] = [];
  let partsLength = 0;
  let tooLong = false;
  let lineStart = 0;
  let lineNumber = 0;
  let replayed = 0;
  let unchecked = 0;
  let checkedSeen = false;
  const report = (reason: string) => log(`state file ${path} line ${lineNumber}: ${reason} skipped`);
  const reportTooLong = () => report(`line longer than ${maxLine} bytes (it cannot be a record)`);
  const take = (line: Buffer, torn: boolean): boolean => {
    lineNumber++;
    const decoded = decodeLine(line);
    if (decoded.kind === 'blank') return true;
    if (decoded.kind === 'entry' && (decoded.checked || !checkedSeen)) {
      if (decoded.checked) checkedSeen = true;
      else unchecked++;
      onEntry(decoded.entry);
      replayed++;
      return true;
    }
    if (torn) {
      report('torn last line (incomplete write)');
      return false;
    }
    const damage =
      decoded.kind === 'entry'
        ? {
            reason: 'line without checksum after checksummed lines (added or changed by hand?)',
            salvage: decoded.entry,
            create: decoded.entry.op === 'create',
          }
        : decoded;
    report(damage.reason);
    options.onDamaged?.({
      line: lineNumber,
      reason: damage.reason,
      create: damage.create,
      ...(damage.salvage ? { salvage: damage.salvage } : {}),
    });
    return false;
  };
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    let start = 0;
    if (position === 0 && data.subarray(0, BOM.length).equals(BOM)) {
      start = BOM.length;
      log(`state file ${path}: UTF-8 byte order mark at the start ignored`);
    }
    let newline = data.indexOf(0x0a, start);
    while (newline !== -1) {
      if (tooLong || partsLength + newline - start > maxLine) {
        lineNumber++;
        reportTooLong();
      } else {
        take(parts.length > 0 ? Buffer.concat([...parts, data.subarray(start, newline)]) : data.subarray(start, newline), false);
      }
      parts = [];
      partsLength = 0;
      tooLong = false;
      start = newline + 1;
      lineStart = position + start;
      newline = data.indexOf(0x0a, start);
    }
    if (!tooLong && start < bytesRead) {
      if (partsLength + bytesRead - start > maxLine) {
        // Past the limit: stop keeping it (memory stays flat); it is reported at its end.
        tooLong = true;
        parts = [];
        partsLength = 0;
      } else {
        // Keep the unfinished line (copied: `chunk` is reused by the next read).
        parts.push(Buffer.from(data.subarray(start)));
        partsLength += bytesRead - start;
      }
    }
    position += bytesRead;
  }
  const result = (): { replayed: number; size: number } => {
    if (unchecked > 0)
      log(
        `state file ${path}: ${unchecked} entries without a checksum (written by an older mock, or by hand) accepted unverified; new entries carry a CRC-32`,
      );
    return { replayed, size: position };
  };
  if (tooLong) {
    lineNumber++;
    reportTooLong();
    return { ...result(), tornFrom: lineStart };
  }
  if (partsLength === 0) return result();
  // The last line has no newline: a write cut short by a crash (its entry was never answered). A
  // complete entry is kept (and gets its newline), a torn one is cut off.
  if (take(Buffer.concat(parts), true)) return { ...result(), unterminated: true };
  return { ...result(), tornFrom: lineStart };
}

function errorCode(error: unknown): string {
  return codeOf(error) ?? 'error';
}

/**
 * Creates a folder and its missing parents. (Not `mkdir(..., { recursive: true })`: under `/proc` it
 * loops for ever on Node 20.)
 */
async function ensureFolder(dir: string, depth = 0): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || depth >= 64 || dirname(dir) === dir) throw error;
    await ensureFolder(dirname(dir), depth + 1);
    await mkdir(dir).catch((again: unknown) => {
      if (errorCode(again) !== 'EEXIST') throw again;
    });
  }
}

/**
 * Opens (creating it and its folders if needed), locks and replays the journal, calling `onEntry` for
 * each valid entry and `options.onDamaged` for each damaged line. Throws an Error naming the file when
 * it cannot (the lock held by another mock included).
 */
export async function openJournal(
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry) => void = () => undefined,
  options: JournalOptions = {},
): Promise<OpenedJournal> {
  const cannotOpen = (error: unknown) =>
    new Error(`cannot open the state file ${path} for appending (${errorCode(error)}); choose a writable --state-file path`, {
      cause: error,
    });
  let lock: StateLock | undefined;
  try {
    await ensureFolder(dirname(path));
    const existing = await stat(path).catch(() => undefined);
    if (existing === undefined || existing.isFile()) lock = await lockStateFile(path, log);
  } catch (error) {
    if (error instanceof LockHeldError) throw error;
    throw cannotOpen(error);
  }
  let handle: FileHandle;
  try {
    handle = await open(path, 'a+');
  } catch (error) {
    await lock?.release();
    throw cannotOpen(error);
  }
  let replayed: number;
  let replayedSize: number;
  let needsNewline: boolean;
  let identity: { dev: number; ino: number; regular: boolean };
  try {
    const opened = await handle.stat();
    identity = { dev: opened.dev, ino: opened.ino, regular: opened.isFile() };
    const result = await replay(handle, path, log, onEntry, options);
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
    await lock?.release();
    throw new Error(`cannot read the state file ${path}: ${messageOf(error)}`, { cause: error });
  }

  // The length of the journal up to its last durable entry: a failed write is cut back to it.
  let durableSize = replayedSize;
  // False once a failed write could not be cut back (the size on disk is then unknown).
  let sizeKnown = true;
  let queue: { line: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  let flushing: Promise<void> | undefined;
  let closed = false;

  /** Throws when the path no longer names the opened file as this journal left it. */
  const checkIdentity = async (): Promise<void> => {
    const now = await stat(path).catch(() => undefined);
    if (now === undefined || now.dev !== identity.dev || now.ino !== identity.ino) {
      throw new Error(
        `it was deleted, renamed or replaced while the mock ran, so nothing more is written to it; restart the mock to continue with the file now at ${path}`,
      );
    }
    if (identity.regular && sizeKnown && now.size !== durableSize) {
      throw new Error(
        `it was changed by another program while the mock ran (${now.size} bytes, ${durableSize} expected), so nothing more is written to it; restart the mock to replay it`,
      );
    }
  };

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
      let written = false;
      try {
        await checkIdentity();
        written = true;
        await writeAll(data);
        await handle.datasync();
        durableSize += data.length;
        needsNewline = false;
        for (const item of batch) item.resolve();
      } catch (error) {
        // Part of the batch may be on disk: cut it back, so a record answered 503 never comes back after a
        // restart; where that fails too, the next write at least starts on a new line.
        if (written) {
          try {
            await handle.truncate(durableSize);
          } catch {
            needsNewline = true;
            sizeKnown = false;
          }
        }
        const failure = new Error(`cannot write the state file ${path}: ${messageOf(error)}`, { cause: error });
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
        queue.push({ line: encodeLine(entry), resolve, reject });
        flushing ??= flush();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (flushing) await flushing;
      await handle.close();
      await lock?.release();
    },
  };
  return { journal, replayed };
}
