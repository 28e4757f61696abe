/**
 * The replay phase of a journal (`journal.ts`): the file read a chunk at a time (memory stays flat
 * however long it is), split into lines, each decoded (`journal-line.ts`) and handed on in order: a
 * valid entry to `onEntry`, a damaged complete line to `onDamaged` (and the log). Each byte is copied at
 * most twice (a line spanning chunks is concatenated once, when its newline is found).
 */
import type { FileHandle } from 'node:fs/promises';
import { createPrefix, decodeCreateLine, decodeLine, type CreatePrefix, type EntryLine, type JournalEntry } from './journal-line.js';

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

export interface ReplayOptions {
  /** Called in file order, between the `onEntry` calls, for every damaged complete line. */
  onDamaged?: (damaged: DamagedLine) => void;
  /** A longer line is reported and skipped without being kept in memory. */
  maxLineBytes: number;
  /** The file's first bytes that were vouched for (`EntryLine.trusted` for the lines within them; default 0). */
  trustedBytes?: number;
  /**
   * Those bytes held only valid lines when they were vouched for, and their CRC-32 matched as a whole:
   * a create within them read by its layout is not checked against its own checksum again.
   */
  trustedClean?: boolean;
}

export interface Replayed {
  replayed: number;
  size: number;
  /** Where an unacknowledged (torn or over-long) last line starts: it is cut off. */
  tornFrom?: number;
  /** The last line is a complete entry without its newline. */
  unterminated?: boolean;
  /** Lines reported and skipped: damaged, over-long or torn. */
  damaged: number;
}

const REPLAY_CHUNK = 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One pass over a journal file: the line being assembled, where it starts, and what was seen so far. */
class Replay {
  /** The pieces of a line spanning chunks (copies: the chunk is reused). */
  private parts: Buffer[] = [];
  private partsLength = 0;
  /** The current line is past the limit: it is no longer kept, and is reported at its end. */
  private tooLong = false;
  /** Where the current line starts in the file. */
  private lineStart = 0;
  private lineNumber = 0;
  private replayed = 0;
  /** Entries without checksum accepted (before the first checksummed one). */
  private unchecked = 0;
  private checkedSeen = false;
  private damaged = 0;
  /** How the last vouched create's line began (the next ones, of the same session and resource, most likely alike). */
  private createStart: CreatePrefix | undefined;

  constructor(
    private readonly path: string,
    private readonly log: (line: string) => void,
    private readonly onEntry: (entry: JournalEntry, at: EntryLine) => void,
    private readonly options: ReplayOptions,
  ) {}

  async run(handle: FileHandle): Promise<Replayed> {
    const stats = await handle.stat();
    // A device (/dev/null, /dev/full) has nothing to replay.
    if (!stats.isFile()) return { replayed: 0, size: 0, damaged: 0 };
    const chunk = Buffer.alloc(REPLAY_CHUNK);
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      this.split(chunk.subarray(0, bytesRead), position);
      position += bytesRead;
    }
    return this.finish(position);
  }

  /** Takes every complete line of a chunk read at `position`, and keeps the unfinished end. */
  private split(data: Buffer, position: number): void {
    const maxLine = this.options.maxLineBytes;
    let start = 0;
    if (position === 0 && data.subarray(0, BOM.length).equals(BOM)) {
      start = BOM.length;
      this.log(`state file ${this.path}: UTF-8 byte order mark at the start ignored`);
    }
    let newline = data.indexOf(0x0a, start);
    while (newline !== -1) {
      if (this.tooLong || this.partsLength + newline - start > maxLine) {
        this.lineNumber++;
        this.reportTooLong();
      } else {
        const tail = data.subarray(start, newline);
        this.take(this.parts.length > 0 ? Buffer.concat([...this.parts, tail]) : tail, position + newline + 1);
      }
      this.parts = [];
      this.partsLength = 0;
      this.tooLong = false;
      start = newline + 1;
      this.lineStart = position + start;
      newline = data.indexOf(0x0a, start);
    }
    if (!this.tooLong && start < data.length) {
      if (this.partsLength + data.length - start > maxLine) {
        // Past the limit: stop keeping it (memory stays flat); it is reported at its end.
        this.tooLong = true;
        this.parts = [];
        this.partsLength = 0;
      } else {
        // Keep the unfinished line (copied: the chunk is reused by the next read).
        this.parts.push(Buffer.from(data.subarray(start)));
        this.partsLength += data.length - start;
      }
    }
  }

  /** The end of the file: what was replayed, and what to do with an unfinished last line. */
  private finish(size: number): Replayed {
    if (this.tooLong) {
      this.lineNumber++;
      this.reportTooLong();
      return { ...this.result(size), tornFrom: this.lineStart };
    }
    if (this.partsLength === 0) return this.result(size);
    // The last line has no newline: a write cut short by a crash (its entry was never answered). A
    // complete entry is kept (and gets its newline), a torn one is cut off.
    if (this.take(Buffer.concat(this.parts))) return { ...this.result(size), unterminated: true };
    return { ...this.result(size), tornFrom: this.lineStart };
  }

  private result(size: number): Replayed {
    if (this.unchecked > 0)
      this.log(
        `state file ${this.path}: ${this.unchecked} entries without a checksum (written by an older mock, or by hand) accepted unverified; new entries carry a CRC-32`,
      );
    return { replayed: this.replayed, size, damaged: this.damaged };
  }

  private report(reason: string): void {
    this.damaged++;
    this.log(`state file ${this.path} line ${this.lineNumber}: ${reason} skipped`);
  }

  private reportTooLong(): void {
    this.report(`line longer than ${this.options.maxLineBytes} bytes (it cannot be a record)`);
  }

  /**
   * One line (without its newline) ending at `end` in the file (its newline included; undefined: the
   * last line, unterminated): replayed when valid, else reported. False when it was not an entry.
   */
  private take(line: Buffer, end?: number): boolean {
    const torn = end === undefined;
    this.lineNumber++;
    const trusted = end !== undefined && end <= (this.options.trustedBytes ?? 0);
    // The bulk of a vouched journal: creates of one session and resource, read by their layout.
    const create =
      trusted && this.createStart !== undefined ? decodeCreateLine(line, this.createStart, this.options.trustedClean !== true) : undefined;
    if (create !== undefined) {
      this.checkedSeen = true;
      this.onEntry(create.entry, { line: this.lineNumber, text: line, trusted, recordJson: create.recordJson });
      this.replayed++;
      return true;
    }
    const decoded = decodeLine(line);
    if (decoded.kind === 'blank') return true;
    if (decoded.kind === 'entry' && (decoded.checked || !this.checkedSeen)) {
      if (decoded.checked) this.checkedSeen = true;
      else this.unchecked++;
      const { entry } = decoded;
      if (trusted && decoded.checked && entry.op === 'create') this.createStart = createPrefix(entry.session, entry.resource);
      this.onEntry(entry, { line: this.lineNumber, text: line, trusted });
      this.replayed++;
      return true;
    }
    if (torn) {
      this.report('torn last line (incomplete write)');
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
    this.report(damage.reason);
    this.options.onDamaged?.({
      line: this.lineNumber,
      reason: damage.reason,
      create: damage.create,
      ...(damage.salvage ? { salvage: damage.salvage } : {}),
    });
    return false;
  }
}

/** Replays the journal open at `handle`, calling `onEntry` for every valid line in order. */
export function replayJournal(
  handle: FileHandle,
  path: string,
  log: (line: string) => void,
  onEntry: (entry: JournalEntry, at: EntryLine) => void,
  options: ReplayOptions,
): Promise<Replayed> {
  return new Replay(path, log, onEntry, options).run(handle);
}
