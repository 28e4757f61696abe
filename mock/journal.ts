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
 * - Remembers what its caller checked: with `options.stamp`, once the caller vouched for the entries
 *   (`vouch`), a clean close writes `<file>.checked` (the stamp, the bytes, their CRC-32), and the next
 *   replay under the same stamp marks the lines within exactly those bytes `trusted`.
 * - Missing parent folders of the path are created.
 *
 * API: `openJournal(path, log, onEntry, options?)` → `{ journal, replayed }`; `journal.append(entry)`,
 * `journal.compact(reason)`, `journal.vouch()`, `journal.size`, `journal.close()` (also releases the lock);
 * `options.onDamaged(damaged)`, `options.maxLineBytes`, `options.snapshot()`, `options.watchMs`, `options.stamp`.
 *
 * The journal is one object whose fields are its state (the open file, what it knows of it, the queue
 * of appends) and whose methods are its phases: `open` (lock, settle a killed rewrite, `replay`),
 * `append` and `flush` (group commit), `rewrite` (a compaction or a repair), `repair` (after `drift`),
 * `watch`. Replay's line splitting is in `journal-replay.ts`, the files around a journal in
 * `journal-files.ts`, the line format and the kinds of entry in `journal-line.ts`.
 */
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { encodeLine, type EntryLine, type JournalEntry } from './journal-line.js';
import { LockHeldError, lockStateFile, realPathOf, type StateLock } from './journal-lock.js';
import {
  crcOfPrefix,
  ensureFolder,
  errorCode,
  exists,
  fileStamp,
  rewriteFiles,
  settleRewrite,
  syncFolder,
  vouchedBytes,
  writeAllTo,
  writeChecked,
  type Vouched,
} from './journal-files.js';
import { replayJournal, type DamagedLine, type Replayed } from './journal-replay.js';
import { messageOf } from '../util/errors.js';

export type { JournalEntry } from './journal-line.js';
export type { DamagedLine } from './journal-replay.js';

export interface OpenedJournal {
  journal: Journal;
  /** How many valid entries were replayed. */
  replayed: number;
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
  /**
   * What the caller's check of the entries stands for (the contract's fingerprint). With it, once the
   * caller has checked what was replayed (`vouch`), a clean close records in `<file>.checked` how many
   * bytes were vouched for under this stamp (with their CRC-32), and the next replay under the same
   * stamp marks the lines within them `trusted` (still exactly those bytes: a changed file is not).
   */
  stamp?: string;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const DEFAULT_WATCH_MS = 1000;
/** A rewrite writes about this much at a time. */
const REWRITE_CHUNK = 1024 * 1024;

/** The file a journal has open, as it knows it: a path that names another file has drifted. */
interface Identity {
  dev: number;
  ino: number;
  /** A regular file (not a device such as /dev/null): only a regular file is watched and rewritten. */
  regular: boolean;
}

/** An append waiting for its flush. */
interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class Journal {
  /** The length of the journal up to its last durable entry: a failed write is cut back to it. */
  private durableSize: number;
  /** False once a failed write could not be cut back (the size on disk is then unknown). */
  private sizeKnown = true;
  private queue: Pending[] = [];
  /** The running flush (or compaction): the one writer of the file. */
  private flushing: Promise<void> | undefined;
  private closed = false;
  /** The last reason a repair failed (logged once, not on every retry). */
  private repairFailure = '';
  private readonly watcher: NodeJS.Timeout | undefined;
  /** The caller vouched for what the journal holds (`vouch`): a clean close records it. */
  private vouched = false;
  /** The file ends without a newline: the next write starts with one. */
  private needsNewline: boolean;
  /** Replay found no damaged line: what this mock vouches for at close holds valid lines only (`CheckedPrefix.clean`). */
  private readonly clean: boolean;

  private constructor(
    readonly path: string,
    private readonly log: (line: string) => void,
    private readonly options: JournalOptions,
    /** The journal's real path (the path itself unless it is a symbolic link). */
    private real: string,
    private lock: StateLock | undefined,
    private handle: FileHandle,
    private identity: Identity,
    replayed: Replayed,
  ) {
    this.durableSize = replayed.size;
    this.needsNewline = replayed.unterminated === true;
    this.clean = replayed.damaged === 0;
    this.watcher = this.watch();
  }

  /**
   * Opens (creating it and its folders if needed), locks and replays the journal, calling `onEntry` for
   * each valid entry and `options.onDamaged` for each damaged line. Throws an Error naming the file when
   * it cannot (the lock held by another mock included).
   */
  static async open(
    path: string,
    log: (line: string) => void,
    onEntry: (entry: JournalEntry, at: EntryLine) => void,
    options: JournalOptions,
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
    try {
      const opened = await handle.stat();
      const identity = { dev: opened.dev, ino: opened.ino, regular: opened.isFile() };
      const trusted = options.stamp !== undefined && identity.regular ? await vouchedBytes(real, handle, options.stamp) : undefined;
      const replayed = await Journal.replay(handle, path, log, onEntry, options, trusted);
      const journal = new Journal(path, log, options, real, lock, handle, identity, replayed);
      return { journal, replayed: replayed.replayed };
    } catch (error) {
      await handle.close();
      await lock?.release();
      throw new Error(`cannot read the state file ${path}: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Replays the file and cuts off a torn tail, so it is reported once and the journal stays one valid line per entry. */
  private static async replay(
    handle: FileHandle,
    path: string,
    log: (line: string) => void,
    onEntry: (entry: JournalEntry, at: EntryLine) => void,
    options: JournalOptions,
    trusted: Vouched | undefined,
  ): Promise<Replayed> {
    const result = await replayJournal(handle, path, log, onEntry, {
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      trustedBytes: trusted?.bytes ?? 0,
      trustedClean: trusted?.clean === true,
      ...(options.onDamaged ? { onDamaged: options.onDamaged } : {}),
    });
    if (result.tornFrom === undefined) return result;
    try {
      await handle.truncate(result.tornFrom);
      return { ...result, size: result.tornFrom };
    } catch {
      return { ...result, unterminated: true };
    }
  }

  /** The bytes of the journal up to its last durable entry. */
  get size(): number {
    return this.durableSize;
  }

  /** Resolves once the entry is on disk; rejects when it could not be made durable. */
  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the state file ${this.path} is closed`));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line: encodeLine(entry), resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Rewrites the journal from `options.snapshot` (resets and superseded records dropped); logs before and after. */
  async compact(reason: string): Promise<{ lines: number; bytes: number }> {
    if (this.closed) throw new Error(`the state file ${this.path} is closed`);
    while (this.flushing) await this.flushing;
    // Holds the write slot: appends meanwhile wait in the queue and are written after it.
    let release = () => undefined as void;
    this.flushing = new Promise<void>((resolve) => (release = resolve));
    try {
      const before = this.durableSize;
      const started = performance.now();
      this.log(`state file ${this.path}: compacting (${reason})`);
      const done = await this.rewrite('compact');
      this.log(
        `state file ${this.path}: compacted from ${before} to ${done.bytes} bytes (${done.lines} lines, ${(performance.now() - started).toFixed(0)} ms)`,
      );
      return done;
    } finally {
      this.flushing = undefined;
      release();
      if (this.queue.length > 0) this.flushing = this.flush();
    }
  }

  /**
   * The caller has checked every entry the journal holds (under `options.stamp`), and every entry it
   * appends from now on is one it vouches for too: a clean close records it (`<file>.checked`).
   */
  vouch(): void {
    this.vouched = true;
  }

  /** Waits for pending writes, records what was vouched for, closes the file and releases its lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.watcher);
    // A last check: a journal deleted or replaced since the last write is written afresh before the mock stops.
    while (this.flushing) await this.flushing;
    if (this.identity.regular && this.options.snapshot) {
      this.flushing = this.flush();
      await this.flushing;
    }
    this.closed = true;
    await this.recordVouched();
    await this.handle.close();
    await this.lock?.release();
  }

  /** Writes `<file>.checked` for the bytes vouched for; a failure only means the next replay checks them again. */
  private async recordVouched(): Promise<void> {
    const stamp = this.options.stamp;
    if (!this.vouched || stamp === undefined || !this.identity.regular || !this.sizeKnown || this.durableSize === 0) return;
    try {
      if ((await this.drift()) !== undefined) return;
      const crc32 = await crcOfPrefix(this.handle, this.durableSize);
      await writeChecked(this.real, { stamp, bytes: this.durableSize, crc32, clean: this.clean });
    } catch (error) {
      this.log(`state file ${this.path}: could not record that it was checked (${messageOf(error)}); the next start checks it again`);
    }
  }

  /**
   * Group commit: writes every queued append with one write and one `fdatasync`, the path checked
   * (`repair`) first; appends that arrive meanwhile are the next batch.
   */
  private async flush(): Promise<void> {
    do {
      const batch = this.queue;
      this.queue = [];
      let written = false;
      try {
        await this.repair();
        if (batch.length > 0) {
          const data = Buffer.from((this.needsNewline ? '\n' : '') + batch.map((item) => item.line).join(''), 'utf8');
          written = true;
          await writeAllTo(this.handle, data);
          await this.handle.datasync();
          this.durableSize += data.length;
          this.needsNewline = false;
          for (const item of batch) item.resolve();
        }
      } catch (error) {
        // Part of the batch may be on disk: cut it back, so a record answered 503 never comes back after a
        // restart; where that fails too, the next write at least starts on a new line.
        if (written) {
          try {
            await this.handle.truncate(this.durableSize);
          } catch {
            this.needsNewline = true;
            this.sizeKnown = false;
          }
        }
        const failure = new Error(`cannot write the state file ${this.path}: ${messageOf(error)}`, { cause: error });
        for (const item of batch) item.reject(failure);
      }
    } while (this.queue.length > 0);
    this.flushing = undefined;
  }

  /** Every `watchMs` while no write comes, a flush of nothing: the path is checked, and repaired when it drifted. */
  private watch(): NodeJS.Timeout | undefined {
    const every = this.options.watchMs ?? DEFAULT_WATCH_MS;
    if (!this.identity.regular || !this.options.snapshot || every <= 0) return undefined;
    const timer = setInterval(() => {
      if (!this.closed && this.flushing === undefined) this.flushing = this.flush();
    }, every);
    timer.unref();
    return timer;
  }

  /** How the path no longer names the file as this journal left it, or undefined when it still does. */
  private async drift(): Promise<string | undefined> {
    const now = await stat(this.path).catch(() => undefined);
    if (now === undefined) return 'was deleted or renamed';
    if (now.dev !== this.identity.dev || now.ino !== this.identity.ino) return 'was replaced by another file';
    if (this.identity.regular && this.sizeKnown && now.size !== this.durableSize) {
      return now.size < this.durableSize
        ? `was truncated (${now.size} bytes, ${this.durableSize} expected)`
        : `was changed by another program (${now.size} bytes, ${this.durableSize} expected)`;
    }
    return undefined;
  }

  /**
   * Before every write, and every `watchMs` while idle: when the path no longer names this journal as
   * it left it (deleted, renamed, replaced, truncated, changed), a fresh journal is written from what
   * the mock holds, and the log says so. Without a snapshot (a bare journal) or on a device, nothing is
   * written instead (the append rejects).
   */
  private async repair(): Promise<void> {
    const why = await this.drift();
    if (why === undefined) return;
    const path = this.path;
    if (!this.identity.regular || !this.options.snapshot) {
      throw new Error(
        `it ${why} while the mock ran, so nothing more is written to it; restart the mock to continue with the file now at ${path}`,
      );
    }
    const started = performance.now();
    if (this.repairFailure === '')
      this.log(`state file ${path}: it ${why} while the mock ran; writing a fresh journal from what the mock holds`);
    try {
      const done = await this.rewrite('repair');
      this.repairFailure = '';
      this.log(
        `state file ${path}: it ${why} while the mock ran; wrote a fresh journal from what the mock holds (${done.lines} lines, ${done.bytes} bytes, ${(performance.now() - started).toFixed(0)} ms)${done.aside !== undefined ? `, the file found at the path kept as ${done.aside}` : ''}; continuing`,
      );
    } catch (error) {
      const reason = `it ${why} while the mock ran, and a fresh journal could not be written (${messageOf(error)})`;
      if (reason !== this.repairFailure) this.log(`state file ${path}: ${reason}; retrying`);
      this.repairFailure = reason;
      throw new Error(reason, { cause: error });
    }
  }

  /**
   * Writes a fresh journal from `options.snapshot` (what the store holds): to `<file>.rewrite.tmp`,
   * fsync, renamed to `<file>.rewrite`, then onto the path (a file there that is not this journal's,
   * or no longer as it left it, is first kept aside as `<file>.displaced-<time>`), fsync of the
   * folder; appends continue in the new file. A kill at any moment leaves at the path either the
   * file as it was or the complete new journal, and `settleRewrite` finishes or removes the rest.
   */
  private async rewrite(kind: 'compact' | 'repair'): Promise<{ lines: number; bytes: number; aside?: string }> {
    const snapshot = this.options.snapshot;
    if (!snapshot) throw new Error('no snapshot of the state to rewrite it from');
    // Where the path leads now (a symbolic link removed: the path itself), so the fresh journal is found there.
    if (kind === 'repair') this.real = await realPathOf(this.path);
    const real = this.real;
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
    const old = this.handle;
    this.handle = fresh;
    await old.close().catch(() => undefined);
    const now = await fresh.stat();
    this.identity = { dev: now.dev, ino: now.ino, regular: true };
    this.durableSize = bytes;
    this.sizeKnown = true;
    this.needsNewline = false;
    // The folder may have been deleted with the lock in it: take the lock again.
    if (this.lock && !(await exists(this.lock.path))) {
      this.lock = await lockStateFile(this.path, this.log);
    }
    return aside === undefined ? { lines, bytes } : { lines, bytes, aside };
  }
}

/** `Journal.open` (see there). */
export function openJournal(
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry, at: EntryLine) => void = () => undefined,
  options: JournalOptions = {},
): Promise<OpenedJournal> {
  return Journal.open(path, log, onEntry, options);
}
