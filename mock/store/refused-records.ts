/**
 * Stored records the contract in force refuses (`../record-check.ts`), found when a store opens: a
 * journal replayed, or Redis, written under another contract version or by hand. Such a record is
 * never served and never dropped in silence. Each is logged with where it is (journal line, or Redis
 * key and id), its resource, and every JSON Pointer with its reason; then start-up is refused
 * (`RefusedRecordsError`, the mock exits 1) unless `--set-aside-invalid FILE` was given: the records
 * are then appended to that file (`SetAsideFile`: journal lines, replayable with `--state-file` under
 * the contract that wrote them), synced, and only then removed from the store.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { FieldError } from '../../contract/schemas.js';
import { ensureFolder, errorCode, writeAllTo } from '../journal-files.js';
import { messageOf } from '../../util/errors.js';

/** The option that sets refused records aside (cli-args.ts). */
export const SET_ASIDE_OPTION = '--set-aside-invalid';

/** At most this many refused records are logged one by one; the rest are counted. */
const LISTED = 100;
/** At most this many problems are named per record. */
const PROBLEMS_SHOWN = 5;

export interface RefusedRecord {
  /** Where the record is, in the store's words (`line 3`, `key goods-mock:s:qa:lot-transfers id 7`). */
  where: string;
  session: string;
  resource: string;
  problems: FieldError[];
}

/** `/fk_lot_id must be of type integer; /amount must be > 0`. */
export function describeProblems(problems: readonly FieldError[]): string {
  const named = problems.slice(0, PROBLEMS_SHOWN).map((problem) => `${problem.pointer || '(the record)'} ${problem.detail}`);
  if (problems.length > PROBLEMS_SHOWN) named.push(`and ${problems.length - PROBLEMS_SHOWN} more`);
  return named.join('; ');
}

function describeRecord(record: RefusedRecord): string {
  return `${record.where}: a ${record.resource} record (session "${record.session}") the contract in force refuses: ${describeProblems(record.problems)}`;
}

/** The refused records of one store as they are found: each logged (the first `LISTED`), counted. */
export class RefusalReport {
  private count = 0;
  private first: RefusedRecord | undefined;

  /** `origin` names the store in the log (`state file PATH`, `store redis://HOST:PORT/0`). */
  constructor(
    private readonly origin: string,
    private readonly log: (line: string) => void,
  ) {}

  get refused(): number {
    return this.count;
  }

  add(record: RefusedRecord): void {
    this.count++;
    this.first ??= record;
    if (this.count <= LISTED) this.log(`${this.origin} ${describeRecord(record)}`);
  }

  /** Logs how many were not listed one by one. */
  private tail(): void {
    if (this.count > LISTED)
      this.log(`${this.origin}: ${this.count - LISTED} more records the contract in force refuses (not listed one by one)`);
  }

  /** The refusal of start-up (nothing set aside): names the count, the first record and the way out. */
  refusal(): RefusedRecordsError {
    this.tail();
    const first = this.first ? `; the first: ${describeRecord(this.first)}` : '';
    return new RefusedRecordsError(
      `${this.origin} holds ${this.count} record${this.count === 1 ? '' : 's'} the contract in force refuses (written under another contract version, or by hand), listed in the log with what is wrong${first}. Nothing was served. Start with the contract that wrote them, or add ${SET_ASIDE_OPTION} FILE to move them to FILE (journal lines, replayable with --state-file under that contract) and serve the rest`,
    );
  }

  /** Logs that the refused records were moved to the side file (`moved` of them by this mock; the rest were gone meanwhile). */
  setAside(file: string, moved = this.count): void {
    this.tail();
    const others = moved < this.count ? `; ${this.count - moved} of them were gone meanwhile (moved by another mock, or reset)` : '';
    this.log(
      `${this.origin}: ${this.count} record${this.count === 1 ? '' : 's'} the contract in force refuses moved to ${file} (${SET_ASIDE_OPTION}${others}); serving the rest`,
    );
  }
}

/** Start-up refused: the store holds records the contract in force refuses. */
export class RefusedRecordsError extends Error {
  override name = 'RefusedRecordsError';
}

/** The side file could not be opened or written (a wrong path, a full disk): nothing was set aside. */
export class SetAsideFileError extends Error {
  override name = 'SetAsideFileError';
}

/**
 * The side file of `--set-aside-invalid`: refused records appended as journal lines and synced
 * before the store lets go of them. A set-aside that cannot finish is undone (the file cut back to
 * its size before, `cutBack`), so a retry does not write them twice.
 */
export class SetAsideFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** The file's size, what was appended included. */
    private bytes: number,
  ) {}

  get size(): number {
    return this.bytes;
  }

  /** Opens `path` for appending (creating it and its folders); refuses the store's own file. Throws a SetAsideFileError. */
  static async open(path: string, storeFile?: string): Promise<SetAsideFile> {
    const itself = new SetAsideFileError(`${SET_ASIDE_OPTION} ${path} names the state file itself; choose another file`);
    if (storeFile !== undefined && resolve(path) === resolve(storeFile)) throw itself;
    let handle: FileHandle;
    try {
      await ensureFolder(dirname(path));
      handle = await open(path, 'a');
    } catch (error) {
      throw new SetAsideFileError(`cannot open ${SET_ASIDE_OPTION} ${path} for appending (${errorCode(error)}); choose a writable file`, {
        cause: error,
      });
    }
    try {
      const stats = await handle.stat();
      const other = storeFile !== undefined ? await stat(storeFile).catch(() => undefined) : undefined;
      if (other !== undefined && other.dev === stats.dev && other.ino === stats.ino) throw itself;
      return new SetAsideFile(path, handle, stats.size);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Appends lines (each ends with its newline) and syncs them. Throws a SetAsideFileError. */
  async write(lines: readonly (string | Buffer)[]): Promise<void> {
    if (lines.length === 0) return;
    const data = Buffer.concat(lines.map((line) => (typeof line === 'string' ? Buffer.from(line) : line)));
    try {
      await writeAllTo(this.handle, data);
      await this.handle.datasync();
    } catch (error) {
      throw new SetAsideFileError(`cannot write ${SET_ASIDE_OPTION} ${this.path} (${messageOf(error)}); nothing more was set aside`, {
        cause: error,
      });
    } finally {
      this.bytes += data.length;
    }
  }

  /**
   * Cuts the file back to an earlier `size`: a set-aside that did not finish, so a retry does not write
   * its lines twice. Only while nothing else was appended meanwhile (another mock given the same
   * file): lines of others are never cut, at worst a line stays twice.
   */
  async cutBack(size: number): Promise<void> {
    if (this.bytes <= size) return;
    if ((await this.handle.stat()).size !== this.bytes) return;
    await this.handle.truncate(size);
    this.bytes = size;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
