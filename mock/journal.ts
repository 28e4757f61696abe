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
 * - Survives its own deletion or replacement: before every write, every `watchMs` (1 s) while no write
 *   comes, and at close, the path is checked to still name the opened file with the size last written.
 *   When it does not (deleted, renamed, replaced, truncated, changed by another program), a fresh
 *   journal is written from what the mock holds (`options.snapshot`: counters and records; see
 *   `rewrite`), the log says so, and appends go on in it; a file found at the path is kept aside
 *   (`<file>.displaced-<time>`), a renamed one is left where it was moved. While the fresh journal cannot
 *   be written, nothing is (the append rejects: 503, never 201), and it is tried again.
 * - Compacted: `compact()` rewrites it the same way (the caller decides when: the memory store at
 *   start, past a size, when resets and the records they dropped make a quarter of it).
 * - Killed mid-rewrite: the path holds either the old file or the complete new journal (temporary file,
 *   fsync, rename, fsync of the folder); the next start finishes or clears what was left (`settleRewrite`).
 *   A compaction killed midway loses nothing. A journal deleted or replaced while the mock runs is the
 *   one moment the state is only in memory: from the change to the end of its rewrite (at most about a
 *   second plus the rewrite); a kill then keeps what the rewrite had written aside, named in the log.
 * - Torn last line (a crash mid-write, never acknowledged): reported with file and line, skipped and
 *   cut off; earlier lines are kept. A UTF-8 byte order mark at the start is skipped.
 * - Linear: replay reads a chunk at a time and copies each byte at most twice, however long a line.
 * - Missing parent folders of the path are created.
 *
 * API: `openJournal(path, log, onEntry, options?)` → `{ journal, replayed }`; `journal.append(entry)`,
 * `journal.compact(reason)`, `journal.size`, `journal.close()` (also releases the lock);
 * `options.onDamaged(damaged)`, `options.maxLineBytes`, `options.snapshot()`, `options.watchMs`.
 */
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { decodeLine, encodeLine, type JournalEntry } from './journal-line.js';
import { LockHeldError, lockStateFile, realPathOf, type StateLock } from './journal-lock.js';
import { codeOf, messageOf } from '../util/errors.js';

export type { JournalEntry } from './journal-line.js';

export interface Journal {
  path: string;
  /** The bytes of the journal up to its last durable entry. */
  readonly size: number;
  /** Resolves once the entry is on disk; rejects when it could not be made durable. */
  append(entry: JournalEntry): Promise<void>;
  /** Rewrites the journal from `options.snapshot` (resets and superseded records dropped); logs before and after. */
  compact(reason: string): Promise<{ lines: number; bytes: number }>;
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
  /**
   * The lines (`encodeLine`) of a journal holding exactly the state the mock holds now: what a
   * deleted, replaced or damaged journal is rewritten from, and a compaction. Without it the journal
   * is never rewritten (an append to a journal that was moved away rejects).
   */
  snapshot?: () => Iterable<string>;
  /** How often the path is checked while no write comes (ms; default 1000; 0: only before writes and at close). */
  watchMs?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const DEFAULT_WATCH_MS = 1000;
/** A rewrite writes about this much at a time. */
const REWRITE_CHUNK = 1024 * 1024;
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

/** Syncs a folder, so that a rename in it is durable. */
async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** A timestamp usable in a file name (`2026-11-22T10-11-12-345Z`). */
function fileStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

async function writeAllTo(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/**
 * The files of a rewrite next to the journal (`real` is the journal's real path): a compaction writes
 * `<file>.compact.tmp` and renames it onto the journal; a repair writes `<file>.rewrite.tmp`, renames it
 * to `<file>.rewrite` once complete and synced, then onto the journal.
 */
function rewriteFiles(real: string): { compacting: string; repairing: string; repaired: string } {
  return { compacting: `${real}.compact.tmp`, repairing: `${real}.rewrite.tmp`, repaired: `${real}.rewrite` };
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * What a rewrite killed before it finished left behind (`kill -9`, a power cut), settled before the
 * journal is opened:
 * - a complete repair (`<file>.rewrite`) holds everything the mock had acknowledged: it is installed,
 *   whatever is at the path kept aside;
 * - an unfinished repair (`<file>.rewrite.tmp`) holds part of it, and the file at the path (if any)
 *   was deleted, replaced or damaged before: both are kept, the unfinished one aside, and the log says
 *   where;
 * - an unfinished compaction (`<file>.compact.tmp`) is removed: the journal it compacted is complete.
 */
async function settleRewrite(path: string, real: string, log: (line: string) => void): Promise<void> {
  const { compacting, repairing, repaired } = rewriteFiles(real);
  if (await exists(repaired)) {
    if (await exists(real)) {
      const aside = `${real}.displaced-${fileStamp()}`;
      await rename(real, aside);
      log(`state file ${path}: the file at the path was kept as ${aside}`);
    }
    await rename(repaired, real);
    await syncFolder(dirname(real));
    log(`state file ${path}: a fresh journal that a stopped mock had finished writing (${repaired}) installed`);
  }
  if (await exists(repairing)) {
    const aside = `${real}.unfinished-${fileStamp()}`;
    await rename(repairing, aside);
    log(
      `state file ${path}: the mock was stopped while writing a fresh journal (its journal had been deleted or replaced); the part it wrote is kept as ${aside} (every line checked: replay it with --state-file ${aside}), ${(await exists(real)) ? 'the file at the path is used as it is' : 'no journal is at the path'}`,
    );
  }
  if (await exists(compacting)) {
    await unlink(compacting);
    log(`state file ${path}: an unfinished compaction of a stopped mock (${compacting}) removed; the journal it compacted is complete`);
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
  let real = path;
  try {
    await ensureFolder(dirname(path));
    const existing = await stat(path).catch(() => undefined);
    if (existing === undefined || existing.isFile()) {
      lock = await lockStateFile(path, log);
      real = await realPathOf(path);
      await settleRewrite(path, real, log);
    }
  } catch (error) {
    await lock?.release();
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
  /** The last reason a repair failed (logged once, not on every retry). */
  let repairFailure = '';

  /** How the path no longer names the file as this journal left it, or undefined when it still does. */
  const drift = async (): Promise<string | undefined> => {
    const now = await stat(path).catch(() => undefined);
    if (now === undefined) return 'was deleted or renamed';
    if (now.dev !== identity.dev || now.ino !== identity.ino) return 'was replaced by another file';
    if (identity.regular && sizeKnown && now.size !== durableSize) {
      return now.size < durableSize
        ? `was truncated (${now.size} bytes, ${durableSize} expected)`
        : `was changed by another program (${now.size} bytes, ${durableSize} expected)`;
    }
    return undefined;
  };

  /**
   * Writes a fresh journal from `options.snapshot` (what the store holds): to `<file>.rewrite.tmp`,
   * fsync, renamed to `<file>.rewrite`, then onto the path (a file there that is not this journal's,
   * or no longer as it left it, is first kept aside as `<file>.displaced-<time>`), fsync of the
   * folder; appends continue in the new file. A kill at any moment leaves at the path either the
   * file as it was or the complete new journal, and `settleRewrite` finishes or removes the rest.
   */
  const rewrite = async (kind: 'compact' | 'repair'): Promise<{ lines: number; bytes: number; aside?: string }> => {
    const snapshot = options.snapshot;
    if (!snapshot) throw new Error('no snapshot of the state to rewrite it from');
    // Where the path leads now (a symbolic link removed: the path itself), so the fresh journal is found there.
    if (kind === 'repair') real = await realPathOf(path);
    const { compacting, repairing, repaired } = rewriteFiles(real);
    const partial = kind === 'compact' ? compacting : repairing;
    await ensureFolder(dirname(real));
    await unlink(partial).catch(() => undefined);
    const fresh = await open(partial, 'ax');
    let bytes = 0;
    let lines = 0;
    let aside: string | undefined;
    try {
      let parts: string[] = [];
      let length = 0;
      const write = async () => {
        const data = Buffer.from(parts.join(''), 'utf8');
        parts = [];
        length = 0;
        await writeAllTo(fresh, data);
        bytes += data.length;
      };
      for (const line of snapshot()) {
        parts.push(line);
        length += line.length;
        lines++;
        if (length >= REWRITE_CHUNK) await write();
      }
      if (parts.length > 0) await write();
      await fresh.sync();
      if (kind === 'repair') {
        // Complete and synced: from here on a restart installs it even if the mock is killed now.
        await rename(partial, repaired);
        if (await exists(real)) {
          aside = `${real}.displaced-${fileStamp()}`;
          await rename(real, aside);
        }
        await rename(repaired, real);
      } else {
        await rename(partial, real);
      }
      await syncFolder(dirname(real));
    } catch (error) {
      await fresh.close();
      await unlink(partial).catch(() => undefined);
      throw error;
    }
    const old = handle;
    handle = fresh;
    await old.close().catch(() => undefined);
    const now = await fresh.stat();
    identity = { dev: now.dev, ino: now.ino, regular: true };
    durableSize = bytes;
    sizeKnown = true;
    needsNewline = false;
    // The folder may have been deleted with the lock in it: take the lock again.
    if (lock && !(await exists(lock.path))) {
      lock = await lockStateFile(path, log);
    }
    return aside === undefined ? { lines, bytes } : { lines, bytes, aside };
  };

  /**
   * Before every write, and every `watchMs` while idle: when the path no longer names this journal as
   * it left it (deleted, renamed, replaced, truncated, changed), a fresh journal is written from what
   * the mock holds, and the log says so. Without a snapshot (a bare journal) or on a device, nothing is
   * written instead (the append rejects).
   */
  const repair = async (): Promise<void> => {
    const why = await drift();
    if (why === undefined) return;
    if (!identity.regular || !options.snapshot) {
      throw new Error(
        `it ${why} while the mock ran, so nothing more is written to it; restart the mock to continue with the file now at ${path}`,
      );
    }
    const started = performance.now();
    if (repairFailure === '') log(`state file ${path}: it ${why} while the mock ran; writing a fresh journal from what the mock holds`);
    try {
      const done = await rewrite('repair');
      repairFailure = '';
      log(
        `state file ${path}: it ${why} while the mock ran; wrote a fresh journal from what the mock holds (${done.lines} lines, ${done.bytes} bytes, ${(performance.now() - started).toFixed(0)} ms)${done.aside !== undefined ? `, the file found at the path kept as ${done.aside}` : ''}; continuing`,
      );
    } catch (error) {
      const reason = `it ${why} while the mock ran, and a fresh journal could not be written (${messageOf(error)})`;
      if (reason !== repairFailure) log(`state file ${path}: ${reason}; retrying`);
      repairFailure = reason;
      throw new Error(reason, { cause: error });
    }
  };

  const flush = async (): Promise<void> => {
    do {
      const batch = queue;
      queue = [];
      let written = false;
      try {
        await repair();
        if (batch.length > 0) {
          const data = Buffer.from((needsNewline ? '\n' : '') + batch.map((item) => item.line).join(''), 'utf8');
          written = true;
          await writeAllTo(handle, data);
          await handle.datasync();
          durableSize += data.length;
          needsNewline = false;
          for (const item of batch) item.resolve();
        }
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
    } while (queue.length > 0);
    flushing = undefined;
  };

  const watch =
    identity.regular && options.snapshot && (options.watchMs ?? DEFAULT_WATCH_MS) > 0
      ? setInterval(() => {
          if (!closed && flushing === undefined) flushing = flush();
        }, options.watchMs ?? DEFAULT_WATCH_MS)
      : undefined;
  watch?.unref();

  const journal: Journal = {
    path,
    get size() {
      return durableSize;
    },
    append(entry) {
      if (closed) return Promise.reject(new Error(`the state file ${path} is closed`));
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: encodeLine(entry), resolve, reject });
        flushing ??= flush();
      });
    },
    async compact(reason) {
      if (closed) throw new Error(`the state file ${path} is closed`);
      while (flushing) await flushing;
      // Holds the write slot: appends meanwhile wait in the queue and are written after it.
      let release = () => undefined as void;
      flushing = new Promise<void>((resolve) => (release = resolve));
      try {
        const before = durableSize;
        const started = performance.now();
        log(`state file ${path}: compacting (${reason})`);
        const done = await rewrite('compact');
        log(
          `state file ${path}: compacted from ${before} to ${done.bytes} bytes (${done.lines} lines, ${(performance.now() - started).toFixed(0)} ms)`,
        );
        return done;
      } finally {
        flushing = undefined;
        release();
        if (queue.length > 0) flushing = flush();
      }
    },
    async close() {
      if (closed) return;
      clearInterval(watch);
      // A last check: a journal deleted or replaced since the last write is written afresh before the mock stops.
      while (flushing) await flushing;
      if (identity.regular && options.snapshot) {
        flushing = flush();
        await flushing;
      }
      closed = true;
      await handle.close();
      await lock?.release();
    },
  };
  return { journal, replayed };
}
