/**
 * The records in Redis checked against the contract in force before a replica serves any of them
 * (a Redis written by replicas of another contract version, or by hand, may hold records the
 * current contract refuses). One pass, in bounded steps:
 * - the record sets are found with `SCAN ... MATCH <prefix>:s:* TYPE zset`, 1,000 keys a step (a key
 *   that does not read as `<prefix>:s:<session>:<resource>` belongs to someone else and is left alone);
 * - each set is read in id order, about 8 MiB (at most 1,000 records) a step, so memory holds one step;
 * - each record is checked (`../record-check.ts`): JSON, the success schema of its resource, its members,
 *   a usable key equal to the id Redis files it under, no second record under one id.
 * Time is linear in the records held, which `--max-recorded-bytes` bounds for replicas with the same limits.
 * Refused records are logged (`refused-records.ts`); with a side file each step's refused records are
 * appended to it and synced, then removed in one script (`SET_ASIDE_SCRIPT`: the byte and record counts
 * follow, the counters stay), so none is lost if the replica is killed midway (at worst a record is in
 * the side file and still in Redis: the next start sets it aside again). Replicas starting together
 * take turns through a lock in Redis, so each record is set aside once.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { FieldError } from '../../contract/schemas.js';
import { encodeCreateLine, encodeLine, encodeUnreadableCreateLine } from '../journal-line.js';
import type { RecordCheck } from '../record-check.js';
import { RefusalReport, SetAsideFile } from './refused-records.js';
import { RELEASE_SCRIPT, SET_ASIDE_SCRIPT } from './redis-scripts.js';
import { isObject } from '../../contract/document.js';
import { parseJsonText } from '../../util/json.js';
import { childPointer } from '../../util/json-pointer.js';

export interface RedisCheckOptions {
  prefix: string;
  /** The store in the log's words (`store redis://127.0.0.1:6379/0`). */
  origin: string;
  check: RecordCheck;
  /** `--set-aside-invalid FILE`; without it, refused records refuse the start (`RefusedRecordsError`). */
  setAside?: string;
  log: (line: string) => void;
}

export interface RedisCheckResult {
  checked: number;
  refused: number;
}

const SCAN_COUNT = 1000;
/** The set-aside lock expires after this long (a replica killed while holding it). */
const LOCK_MS = 30_000;
/** How long a replica waits for the set-aside lock. */
const LOCK_WAIT_MS = 60_000;
const STEP_BYTES = 8 * 1024 * 1024;
const STEP_RECORDS = 1000;
/** Names the mock gives sessions (state.ts) and resources: no `:`. */
const NAME = /^[^:]+$/;

/** A glob pattern matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** One record set: `<prefix>:s:<session>:<resource>`. */
interface RecordSet {
  key: string;
  session: string;
  resource: string;
}

function recordSet(prefix: string, key: string): RecordSet | undefined {
  const head = `${prefix}:s:`;
  if (!key.startsWith(head)) return undefined;
  const rest = key.slice(head.length);
  const colon = rest.indexOf(':');
  const session = rest.slice(0, colon);
  const resource = rest.slice(colon + 1);
  return colon > 0 && NAME.test(session) && NAME.test(resource) ? { key, session, resource } : undefined;
}

/** The side-file line of a stored record: a journal line, the record byte for byte when it is one line of JSON. */
function journalLine(set: RecordSet, text: string, record: unknown): string {
  if (!isObject(record)) return encodeUnreadableCreateLine(set.session, set.resource, text);
  if (/[\r\n]/.test(text)) return encodeLine({ op: 'create', session: set.session, resource: set.resource, record });
  return encodeCreateLine(set.session, set.resource, text);
}

class RedisCheck {
  private readonly report: RefusalReport;
  private checked = 0;
  /** Refused records this mock moved to the side file (another one may move some meanwhile). */
  private moved = 0;

  constructor(
    private readonly reader: Redis,
    private readonly writer: Redis,
    private readonly options: RedisCheckOptions,
    private readonly side: SetAsideFile | undefined,
  ) {
    this.report = new RefusalReport(options.origin, options.log);
  }

  async run(): Promise<RedisCheckResult> {
    const seen = new Set<string>();
    const pattern = `${literal(this.options.prefix)}:s:*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.reader.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT, 'TYPE', 'zset');
      cursor = next;
      for (const key of keys) {
        // SCAN may name a key twice.
        if (seen.has(key)) continue;
        seen.add(key);
        const set = recordSet(this.options.prefix, key);
        if (set) await this.checkSet(set);
      }
    } while (cursor !== '0');
    if (this.report.refused > 0) {
      if (!this.side) throw this.report.refusal();
      this.report.setAside(this.side.path, this.moved);
    }
    return { checked: this.checked, refused: this.report.refused };
  }

  /**
   * Reads a set in id order a step at a time: from the last id read (inclusive), past the records
   * already read under it and still there, so records under one id are neither skipped nor read twice.
   */
  private async checkSet(set: RecordSet): Promise<void> {
    /** The last id read, as Redis wrote it (`7`, `inf`). */
    let last = '-inf';
    /** Records read under `last` that are still in the set, and those of them served. */
    let kept = 0;
    let served = 0;
    let step = 16;
    for (;;) {
      const reply = await this.reader.zrangebyscoreBuffer(set.key, last, '+inf', 'WITHSCORES', 'LIMIT', kept, step);
      const count = reply.length / 2;
      const refused: { data: Buffer; line: string }[] = [];
      let bytes = 0;
      for (let i = 0; i < count; i++) {
        const data = reply[2 * i] ?? Buffer.alloc(0);
        const score = (reply[2 * i + 1] ?? Buffer.alloc(0)).toString();
        bytes += data.length;
        this.checked++;
        if (score !== last) {
          last = score;
          kept = 0;
          served = 0;
        }
        const line = this.judge(set, data.toString('utf8'), score, served > 0);
        if (line === undefined) {
          kept++;
          served++;
          continue;
        }
        refused.push({ data, line });
        // Removed below when set aside; otherwise it stays where it is.
        if (!this.side) kept++;
      }
      await this.setAside(set, refused);
      if (count < step) return;
      // About STEP_BYTES a step (small records: big steps).
      const average = Math.max(1, bytes / Math.max(1, count));
      step = Math.max(1, Math.min(STEP_RECORDS, Math.floor(STEP_BYTES / average)));
    }
  }

  /** Undefined when the record is served as it is; else reported, and its side-file line. */
  private judge(set: RecordSet, text: string, score: string, idTaken: boolean): string | undefined {
    const parsed = parseJsonText(text);
    const problems = parsed.ok
      ? this.problems(set, parsed.value, score, idTaken)
      : [{ pointer: '', detail: `is not JSON (${parsed.reason})` }];
    if (problems.length === 0) return undefined;
    this.report.add({ where: `key ${set.key} id ${score}`, session: set.session, resource: set.resource, problems });
    return journalLine(set, text, parsed.ok ? parsed.value : undefined);
  }

  /** What the contract refuses in a record, and its key against the id Redis files it under. */
  private problems(set: RecordSet, record: unknown, score: string, idTaken: boolean): FieldError[] {
    const { problems, key } = this.options.check(set.resource, record);
    if (key && String(key.value) !== score) {
      problems.push({ pointer: childPointer('', key.member), detail: `is ${key.value}, but Redis files the record under id ${score}` });
    } else if (key && idTaken) {
      problems.push({
        pointer: childPointer('', key.member),
        detail: `is ${score}, which another record of this session already has (ids are unique)`,
      });
    }
    return problems;
  }

  /**
   * Appends a step's refused records to the side file (synced), then removes them from Redis, under a
   * lock in Redis: replicas started together set aside each record once. Under the lock only the
   * records still there are written (another replica may have moved them meanwhile); a removal that
   * fails cuts the side file back.
   */
  private async setAside(set: RecordSet, refused: readonly { data: Buffer; line: string }[]): Promise<void> {
    const side = this.side;
    if (!side || refused.length === 0) return;
    await this.locked(async () => {
      const scores = await this.writer.zmscore(set.key, ...refused.map((record) => record.data));
      const there = refused.filter((_, i) => scores[i] !== null);
      if (there.length === 0) return;
      const before = side.size;
      try {
        await side.write(there.map((record) => record.line));
      } catch (error) {
        await side.cutBack(before).catch(() => undefined);
        throw error;
      }
      try {
        await this.writer.eval(
          SET_ASIDE_SCRIPT,
          3,
          `${this.options.prefix}:bytes`,
          `${this.options.prefix}:s:${set.session}`,
          set.key,
          ...there.map((record) => record.data),
        );
      } catch (error) {
        await side.cutBack(before);
        throw error;
      }
      this.moved += there.length;
    });
  }

  /** Runs `work` holding `<prefix>:set-aside` (freed after `LOCK_MS` if its holder dies); waits for it up to `LOCK_WAIT_MS`. */
  private async locked(work: () => Promise<void>): Promise<void> {
    const key = `${this.options.prefix}:set-aside`;
    const token = randomUUID();
    const giveUp = Date.now() + LOCK_WAIT_MS;
    while ((await this.writer.set(key, token, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      if (Date.now() > giveUp) throw new Error(`another mock has held ${key} for more than ${LOCK_WAIT_MS / 1000} s`);
      await sleep(50);
    }
    try {
      await work();
    } finally {
      await this.writer.eval(RELEASE_SCRIPT, 1, key, token).catch(() => undefined);
    }
  }
}

/** Checks every record under the prefix (see above). Throws a RefusedRecordsError, a SetAsideFileError, or Redis's error. */
export async function checkRedisRecords(reader: Redis, writer: Redis, options: RedisCheckOptions): Promise<RedisCheckResult> {
  const side = options.setAside !== undefined ? await SetAsideFile.open(options.setAside) : undefined;
  try {
    return await new RedisCheck(reader, writer, options, side).run();
  } finally {
    await side?.close();
  }
}
