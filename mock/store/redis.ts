/**
 * The shared store on Redis (`--store redis://HOST:PORT/DB`): every replica that names the same Redis
 * and key prefix serves the same sessions and records. A create and a reset are each one Lua script
 * (`redis-scripts.ts`), so ids are unique and gapless per session and resource across replicas,
 * listings are in creation order everywhere, and the limits count all replicas together.
 *
 * Failure: commands are never queued while Redis is unreachable (`enableOfflineQueue: false`), never
 * sent twice (`autoResendUnfulfilledCommands: false`). Two connections:
 * - reads (listings, health) time out after `commandTimeoutMs` (2 s): 503 `store-unavailable`;
 * - changes (creates, resets) are never given up while Redis may still run them: a script that was
 *   not sent (no connection) or that Redis refused is a 503 `store-unavailable` (nothing changed); a
 *   script sent is waited for up to `outcomeWaitMs` (the request's time limit, 30 s), so a slow or
 *   frozen Redis gets the answer of what happened. When the outcome cannot be known in time (no
 *   answer yet, or the connection broke after the script was sent), the answer is 504
 *   `store-outcome-unknown`, saying that it may have happened and where to look, and the outcome, when
 *   it comes, is logged.
 * The client reconnects by itself, so the mock recovers when Redis is back.
 *
 * Health and log speak the project's words: while a connection is down, health says since when Redis
 * has been unreachable and what the API answers meanwhile; the client library's own error text goes to
 * the log once per change of state (down, up again), never into an answer.
 *
 * Records written under another contract version: with `check`, every record is checked before any is
 * served (`redis-check.ts`). At open when Redis answers: records the contract refuses refuse the start
 * (or are set aside with `setAside`). When Redis cannot be checked then (unreachable, or it failed
 * midway), the API answers 503 `store-unavailable` and health is down until the check has passed; it
 * runs again once Redis is back, and every second while it fails.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { problem, ProblemError } from '../problems.js';
import { mockFull, sessionFull, tooManySessions } from './limit-problems.js';
import { planSegments } from './plan.js';
import type { RecordCheck } from '../record-check.js';
import { checkRedisRecords } from './redis-check.js';
import { RefusedRecordsError, SET_ASIDE_OPTION, SetAsideFileError } from './refused-records.js';
import { CREATE_SCRIPT, READ_SCRIPT, REMOVE_SCRIPT, REPLACE_SCRIPT, RESET_SCRIPT } from './redis-scripts.js';
import { duplicateKey } from './record-problems.js';
import {
  DEFAULT_SESSION,
  type ListPage,
  type RecordPlan,
  type ReplaceOutcome,
  type Store,
  type StoreHealth,
  type StoreLimits,
  type StoredResource,
} from './types.js';
import { RedisFaultRules, type RedisFaultPort } from './redis-fault-rules.js';
import { messageOf } from '../../util/errors.js';
import { printable } from '../../util/printable.js';
import { displayUrl } from './describe.js';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  limits: StoreLimits;
  /** The recorded resources (a reset clears each) and how their records are keyed. */
  resources: Map<string, StoredResource>;
  log: (line: string) => void;
  /** Deadline of a read (listing, health) in milliseconds (default 2000). */
  commandTimeoutMs?: number;
  /** How long a create or reset sent to Redis is waited for before its answer says the outcome is unknown (default 30,000). */
  outcomeWaitMs?: number;
  /** Checks the stored records against the contract in force before any is served (see above). */
  check?: RecordCheck;
  /** `--set-aside-invalid FILE`: records the check refuses are moved there; without it they refuse the start. */
  setAside?: string;
}

/** A change was sent to Redis and its outcome is not known (no answer in time, or the connection broke). */
class OutcomeUnknown extends Error {}

/** ioredis's error for a command it did not send (not connected, offline queue off). */
const NOT_SENT = "Stream isn't writeable and enableOfflineQueue options is false";

/** What the API answers while Redis is unreachable. */
const DURING_OUTAGE = 'creates, listings and resets answer 503 store-unavailable until it is back (the mock reconnects by itself)';

/** A change not sent: the writer's connection is not ready. */
class NotConnected extends Error {}

/** An instant for people, to the second (`2026-11-25T10:00:00Z`). */
function instant(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Characters of a message from Redis or the client shown in a log line or an answer. */
const MESSAGE_CHARS = 120;

/** What every connection of the store shares. */
function connectionOptions() {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // Reconnect forever, at most every half second: the mock recovers by itself.
    retryStrategy: (times: number) => Math.min(50 * times, 500),
    lazyConnect: true,
  };
}

const SHA1 = new Map<string, string>();

/** The SHA-1 of a script (for EVALSHA), computed once per script. */
function sha1(text: string): string {
  let sha = SHA1.get(text);
  if (sha === undefined) {
    sha = createHash('sha1').update(text).digest('hex');
    SHA1.set(text, sha);
  }
  return sha;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  /** Reads (listings, health): a command deadline. */
  private readonly redis: Redis;
  /** Changes (creates, resets): no command deadline, never resent; their outcome is waited for. */
  private readonly writer: Redis;
  private readonly where: string;
  private readonly outcomeWaitMs: number;
  private readonly readTimeoutMs: number;
  /** The changes waiting for their answer: told when the writer's connection closes. */
  private readonly inFlight = new Set<(why: string) => void>();
  private lastError = '';
  private lastLogged = 0;
  /** Since when a connection has been down (unset while both are ready). */
  private downSince: Date | undefined;
  /** Set by `close()`: connections closing then are not an outage. */
  private closing = false;
  /** Why the records are not served (their check has not passed), or undefined once it has (or without a check). */
  private unchecked: string | undefined;
  /** The check of the records once it failed for good (refused records, the side file): it is not tried again. */
  private checkRefused = false;
  private checking: Promise<void> | undefined;
  private checkRetry: NodeJS.Timeout | undefined;
  /** The connection the fault rules' announcements arrive on (`faultRules()`). */
  private subscriber: Redis | undefined;
  private readonly connectionOptions = connectionOptions();

  private constructor(private readonly options: RedisStoreOptions) {
    this.where = displayUrl(options.url);
    this.outcomeWaitMs = options.outcomeWaitMs ?? 30_000;
    this.readTimeoutMs = options.commandTimeoutMs ?? 2000;
    const common = this.connectionOptions;
    this.redis = new Redis(options.url, { ...common, commandTimeout: this.readTimeoutMs });
    this.writer = new Redis(options.url, { ...common, autoResendUnfulfilledCommands: false });
    for (const connection of [this.redis, this.writer]) {
      connection.on('error', (error: Error) => this.wentDown(error.message));
      connection.on('close', () => this.wentDown('the connection closed'));
      connection.on('ready', () => {
        const since = this.downSince;
        if (this.unchecked !== undefined && this.redis.status === 'ready' && this.writer.status === 'ready') this.checkLater(0);
        if (since !== undefined && this.redis.status === 'ready' && this.writer.status === 'ready') {
          this.downSince = undefined;
          options.log(
            `store ${this.where}: connected again (unreachable since ${instant(since)}, for ${((Date.now() - since.getTime()) / 1000).toFixed(1)} s)`,
          );
        }
      });
    }
    // A change sent on a connection that closed may or may not have run: nobody will answer it now.
    this.writer.on('close', () => {
      for (const lost of [...this.inFlight]) lost('the connection to Redis closed after the command was sent');
    });
  }

  /** Connects (waiting at most `waitMs`); a Redis that is down now is not fatal: the mock answers 503 until it is up. */
  static async open(options: RedisStoreOptions, waitMs = 3000): Promise<RedisStore> {
    const store = new RedisStore(options);
    const connected = Promise.all([store.redis.connect(), store.writer.connect()]).then(
      () => true,
      () => false,
    );
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), waitMs).unref());
    const up = await Promise.race([connected, timer]);
    if (!up) store.wentDown(`no answer within ${waitMs / 1000} s`);
    if (options.check) {
      store.unchecked = 'the mock has not yet checked its records against the contract in force (it does once Redis answers)';
      if (up) {
        try {
          await store.checkRecords();
        } catch (error) {
          // Refused records or an unusable side file stop the start; Redis failing midway is retried.
          if (error instanceof RefusedRecordsError || error instanceof SetAsideFileError) {
            await store.close();
            throw error;
          }
          store.checkFailed(error);
        }
      }
    }
    return store;
  }

  /** Checks the records (`redis-check.ts`); once it passes, they are served. */
  private async checkRecords(): Promise<void> {
    const check = this.options.check;
    if (!check) return;
    const started = performance.now();
    const origin = `store ${this.where}`;
    const result = await checkRedisRecords(this.redis, this.writer, {
      prefix: this.options.prefix,
      origin,
      check,
      log: this.options.log,
      ...(this.options.setAside !== undefined ? { setAside: this.options.setAside } : {}),
    });
    this.unchecked = undefined;
    this.options.log(
      `${origin}: ${result.checked} records checked against the contract in force (${(performance.now() - started).toFixed(0)} ms)${result.refused > 0 ? `, ${result.refused} set aside` : ''}`,
    );
  }

  /** A check that did not pass: for good (refused records, the side file), or tried again in a second (Redis). */
  private checkFailed(error: unknown): void {
    if (this.closing) return;
    if (error instanceof RefusedRecordsError || error instanceof SetAsideFileError) {
      this.checkRefused = true;
      this.unchecked =
        error instanceof RefusedRecordsError
          ? `it holds records the contract in force refuses (the mock's log names each); restart the mock with the contract that wrote them, or with ${SET_ASIDE_OPTION} FILE`
          : `the records the contract in force refuses could not be set aside (${error.message}); restart the mock`;
      this.options.log(`store ${this.where}: ${error.message}`);
      return;
    }
    // Not sent: Redis is not connected (the outage is logged apart, and the check runs again once both
    // connections are ready); tried again in a second too, in case they were ready again before it failed.
    if (error instanceof Error && error.message === NOT_SENT) {
      this.checkLater(1000);
      return;
    }
    this.note(
      `the records could not be checked against the contract in force (${printable(messageOf(error), MESSAGE_CHARS)}); trying again in a second`,
    );
    this.checkLater(1000);
  }

  /** Runs the check after `delayMs`, unless one runs or is due, it failed for good, or the store closes. */
  private checkLater(delayMs: number): void {
    if (this.closing || this.checkRefused || this.checking || this.checkRetry || this.unchecked === undefined) return;
    this.checkRetry = setTimeout(() => {
      this.checkRetry = undefined;
      this.checking = this.checkRecords().then(
        () => {
          this.checking = undefined;
        },
        (error: unknown) => {
          // Done before the failure is handled, so that it may schedule the next try.
          this.checking = undefined;
          this.checkFailed(error);
        },
      );
    }, delayMs);
    this.checkRetry.unref();
  }

  /** The 503 of a call while the records are not served (their check has not passed). */
  private notChecked(why: string): ProblemError {
    return problem(
      'storeUnavailable',
      `The mock's shared store (Redis at ${this.where}) is not served yet: ${why}. Nothing was recorded or changed; retry shortly.`,
      undefined,
      { 'Retry-After': '1' },
    );
  }

  /** Marks the store down (the first time only: logs the reason once per outage, in the mock's words and the client's). */
  private wentDown(reason: string): void {
    if (this.closing || this.downSince !== undefined) return;
    this.downSince = new Date();
    this.options.log(
      `store ${this.where}: unreachable since ${instant(this.downSince)} (${printable(reason, MESSAGE_CHARS)}); ${DURING_OUTAGE}`,
    );
  }

  /** What health says during an outage, in the project's words. */
  private unreachable(): string {
    return `Redis at ${this.where} unreachable since ${instant(this.downSince ?? new Date())}; ${DURING_OUTAGE}`;
  }

  /** Logs a Redis error, at most once a second for the same message. */
  private note(message: string): void {
    const now = Date.now();
    if (message !== this.lastError || now - this.lastLogged > 1000) {
      this.options.log(`store ${this.where}: ${message}`);
      this.lastLogged = now;
    }
    this.lastError = message;
  }

  private unavailable(error: unknown): ProblemError {
    if (error instanceof ProblemError) return error;
    // Not sent because a connection is down: the outage was logged when it began.
    if (error instanceof NotConnected || (error instanceof Error && error.message === NOT_SENT)) this.wentDown('not connected');
    else this.note(messageOf(error));
    // Redis answered with an error (out of memory, read-only replica, ...): say which; otherwise it did not answer.
    const refused = error instanceof Error && error.name === 'ReplyError';
    const what = refused
      ? `refused the command (${printable(error.message, MESSAGE_CHARS)})`
      : this.downSince !== undefined
        ? `has been unreachable since ${instant(this.downSince)}`
        : 'did not answer';
    return problem(
      'storeUnavailable',
      `The mock's shared store (Redis at ${this.where}) ${what}, so nothing was recorded or changed; ${refused ? 'check Redis (its memory, its role), then retry' : 'the mock reconnects by itself: retry shortly, and check that Redis runs'}.`,
      undefined,
      { 'Retry-After': '1' },
    );
  }

  private async script(connection: Redis, source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await connection.evalsha(sha1(source), keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return connection.eval(source, keys.length, ...keys, ...args);
    }
  }

  /**
   * Runs a script that changes state and answers its reply, waiting for it up to `outcomeWaitMs`.
   * Throws a 503 `store-unavailable` when the script certainly did not run (it was not sent, or Redis
   * refused it: a script's reads come before its writes, so a refusal changed nothing), and an
   * `OutcomeUnknown` when it may have. Then `late` is told the outcome, if it ever comes.
   */
  private async change(
    source: string,
    keys: string[],
    args: (string | number)[],
    late: (reply: unknown, error: unknown) => void,
  ): Promise<unknown> {
    if (this.writer.status !== 'ready') throw this.unavailable(new NotConnected());
    const sent = this.script(this.writer, source, keys, args);
    let lose: (why: string) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      lose = (why) => reject(new OutcomeUnknown(why));
    });
    this.inFlight.add(lose);
    const timer = setTimeout(() => lose(`no answer within ${this.outcomeWaitMs / 1000} s`), this.outcomeWaitMs);
    try {
      return await Promise.race([sent, lost]);
    } catch (error) {
      if (error instanceof Error && (error.name === 'ReplyError' || error.message === NOT_SENT)) throw this.unavailable(error);
      const unknown = error instanceof OutcomeUnknown ? error : new OutcomeUnknown(messageOf(error));
      this.note(unknown.message);
      void sent.then(
        (reply) => late(reply, undefined),
        (failure: unknown) => late(undefined, failure),
      );
      throw unknown;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(lose);
    }
  }

  /** The 504 of a change whose outcome is not known. */
  private outcomeUnknown(why: OutcomeUnknown, what: string, look: string): ProblemError {
    return problem(
      'storeOutcomeUnknown',
      `The mock's shared store (Redis at ${this.where}) did not confirm ${what} (${why.message}), so the mock cannot tell whether it happened: it may have. Look before retrying (a retry could do it twice): ${look}.`,
    );
  }

  private key(...parts: string[]): string {
    return [this.options.prefix, ...parts].join(':');
  }

  async create(session: string, plan: RecordPlan): Promise<string> {
    if (this.unchecked !== undefined) throw this.notChecked(this.unchecked);
    const { limits } = this.options;
    const { segments, slots } = planSegments(plan);
    const slotArgs = slots.flatMap((slot) => [
      slot.counter,
      slot.kind,
      JSON.stringify(slot.prefix ?? '').slice(1, -1),
      String(slot.width ?? 0),
    ]);
    const keys = [
      this.key('sessions'),
      this.key('bytes'),
      this.key('s', session),
      this.key('s', session, plan.resource),
      this.key('s', session, plan.resource, 'keys'),
    ];
    const args = [
      session,
      session === DEFAULT_SESSION ? '1' : '0',
      limits.maxSessions,
      limits.maxRecordsPerSession,
      limits.maxRecordedBytes,
      slots.length,
      ...slotArgs,
      ...segments,
      plan.key ?? '',
      plan.key !== undefined ? `${plan.resource}#` : '',
    ];
    const started = Date.now();
    let answer: unknown;
    try {
      answer = await this.change(CREATE_SCRIPT, keys, args, (reply, error) => {
        const after = `${((Date.now() - started) / 1000).toFixed(1)} s after it was sent`;
        const created = Array.isArray(reply) && reply[0] === 0 && typeof reply[1] === 'string' ? reply[1] : undefined;
        this.options.log(
          created !== undefined
            ? `store ${this.where}: a create answered 504 store-outcome-unknown was recorded (${after}): ${plan.resource} in session "${session}" ${created.length > 300 ? `${created.slice(0, 300)}...` : created}`
            : `store ${this.where}: a create answered 504 store-outcome-unknown (${plan.resource} in session "${session}") was not recorded (${after}: ${error === undefined ? `refused, code ${String(Array.isArray(reply) ? reply[0] : reply)}` : messageOf(error)})`,
        );
      });
    } catch (error) {
      if (error instanceof OutcomeUnknown) {
        throw this.outcomeUnknown(
          error,
          'this create',
          `GET /__mock/${plan.resource} with X-Mock-Session: ${session} lists it once the store answers, and the mock's log says what became of it`,
        );
      }
      throw this.unavailable(error);
    }
    if (!Array.isArray(answer)) throw this.unavailable(new Error('unexpected answer of the create script'));
    const [code, json] = answer as unknown[];
    if (code === 0 && typeof json === 'string') return json;
    if (code === 1) throw tooManySessions(limits);
    if (code === 2) throw sessionFull(limits, session);
    if (code === 3) throw mockFull(limits);
    if (code === 6) throw duplicateKey(plan.resource, plan.key ?? '', session);
    throw this.unavailable(new Error(`unexpected answer of the create script: ${String(code)}`));
  }

  /** The keys and arguments naming one record to the read, replace and remove scripts. */
  private recordKeys(session: string, resource: string, key: string): { keys: string[]; mode: string } {
    const keyed = this.options.resources.get(resource)?.assigned === false;
    return {
      keys: [this.key('s', session, resource), this.key('s', session, resource, 'keys'), this.key('bytes'), this.key('s', session)],
      mode: keyed ? 'key' : /^[1-9]\d{0,15}$/.test(key) ? 'id' : 'none',
    };
  }

  async get(session: string, resource: string, key: string): Promise<string | undefined> {
    const { keys, mode } = this.recordKeys(session, resource, key);
    if (mode === 'none') return undefined;
    try {
      const found = await this.script(this.redis, READ_SCRIPT, keys.slice(0, 2), [mode, key]);
      return typeof found === 'string' ? found : undefined;
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async all(session: string, resource: string): Promise<string[]> {
    try {
      return await this.redis.zrangebyscore(
        this.key('s', session, resource),
        '-inf',
        '+inf',
        'LIMIT',
        0,
        this.options.limits.maxRecordsPerSession,
      );
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async replace(session: string, resource: string, key: string, expected: string, next: string): Promise<ReplaceOutcome> {
    const { keys, mode } = this.recordKeys(session, resource, key);
    if (mode === 'none') return 'missing';
    const reply = await this.changeOf(`the change of ${resource} ${JSON.stringify(key)} in session "${session}"`, resource, session, () =>
      this.change(REPLACE_SCRIPT, keys, [mode, key, expected, next, this.options.limits.maxRecordedBytes], (answer, error) =>
        this.options.log(
          `store ${this.where}: a change answered 504 store-outcome-unknown (${resource} ${JSON.stringify(key)} in session "${session}") ${error === undefined ? `ended with code ${String(Array.isArray(answer) ? answer[0] : answer)} (0: made)` : `failed (${messageOf(error)})`}`,
        ),
      ),
    );
    const code = Array.isArray(reply) ? (reply as unknown[])[0] : undefined;
    if (code === 0) return 'replaced';
    if (code === 4) return 'changed';
    if (code === 5) return 'missing';
    if (code === 3) throw mockFull(this.options.limits);
    throw this.unavailable(new Error(`unexpected answer of the replace script: ${String(code)}`));
  }

  async remove(session: string, resource: string, key: string): Promise<boolean> {
    const { keys, mode } = this.recordKeys(session, resource, key);
    if (mode === 'none') return false;
    const reply = await this.changeOf(`the delete of ${resource} ${JSON.stringify(key)} in session "${session}"`, resource, session, () =>
      this.change(REMOVE_SCRIPT, keys, [mode, key], (answer, error) =>
        this.options.log(
          `store ${this.where}: a delete answered 504 store-outcome-unknown (${resource} ${JSON.stringify(key)} in session "${session}") ${error === undefined ? `ended with code ${String(Array.isArray(answer) ? answer[0] : answer)} (0: deleted)` : `failed (${messageOf(error)})`}`,
        ),
      ),
    );
    const code = Array.isArray(reply) ? (reply as unknown[])[0] : undefined;
    if (code === 0) return true;
    if (code === 5) return false;
    throw this.unavailable(new Error(`unexpected answer of the remove script: ${String(code)}`));
  }

  /** Runs a change, turning an unknown outcome into its 504 (naming where to look) and any other failure into a 503. */
  private async changeOf(what: string, resource: string, session: string, run: () => Promise<unknown>): Promise<unknown> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof OutcomeUnknown)
        throw this.outcomeUnknown(
          error,
          what,
          `GET /__mock/${resource} with X-Mock-Session: ${session} shows the record as it is now, and the mock's log says what became of it`,
        );
      throw this.unavailable(error);
    }
  }

  async list(session: string, resource: string, page: { after: number; limit: number; maxBytes: number }): Promise<ListPage> {
    if (this.unchecked !== undefined) throw this.notChecked(this.unchecked);
    const key = this.key('s', session, resource);
    const records: Buffer[] = [];
    let bytes = 0;
    let after = page.after;
    let batch = Math.min(page.limit + 1, 16);
    try {
      for (;;) {
        const reply = await this.redis.zrangebyscoreBuffer(key, `(${after}`, '+inf', 'WITHSCORES', 'LIMIT', 0, batch);
        const count = reply.length / 2;
        for (let i = 0; i < count; i++) {
          const data = reply[2 * i] as Buffer;
          const id = Number((reply[2 * i + 1] as Buffer).toString());
          if (records.length >= page.limit || (records.length > 0 && bytes + data.length > page.maxBytes)) {
            return { records, nextAfter: after };
          }
          records.push(data);
          bytes += data.length;
          after = id;
        }
        if (count < batch) return { records };
        // Read about as many records as the byte budget allows (small records: big batches).
        const average = Math.max(1, bytes / Math.max(1, records.length));
        batch = Math.max(1, Math.min(page.limit - records.length + 1, Math.floor((page.maxBytes - bytes) / average) + 1, 1000));
      }
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async reset(session: string): Promise<void> {
    if (this.unchecked !== undefined) throw this.notChecked(this.unchecked);
    const started = Date.now();
    try {
      await this.change(
        RESET_SCRIPT,
        [
          this.key('bytes'),
          this.key('s', session),
          ...[...this.options.resources.keys()].flatMap((resource) => [
            this.key('s', session, resource),
            this.key('s', session, resource, 'keys'),
          ]),
        ],
        [],
        (_reply, error) =>
          this.options.log(
            `store ${this.where}: the reset of session "${session}" answered 504 store-outcome-unknown ${error === undefined ? 'was done' : `failed (${messageOf(error)})`} (${((Date.now() - started) / 1000).toFixed(1)} s after it was sent)`,
          ),
      );
    } catch (error) {
      if (error instanceof OutcomeUnknown) {
        throw this.outcomeUnknown(
          error,
          `the reset of session "${session}"`,
          `the /__mock listings with X-Mock-Session: ${session} show whether its records are gone, and the mock's log says what became of it`,
        );
      }
      throw this.unavailable(error);
    }
  }

  async health(): Promise<StoreHealth> {
    if ([this.redis, this.writer].some((connection) => connection.status !== 'ready')) {
      this.wentDown('not connected');
      return { kind: 'redis', up: false, since: instant(this.downSince ?? new Date()), detail: this.unreachable() };
    }
    try {
      await this.redis.ping();
      if (this.unchecked !== undefined)
        return { kind: 'redis', up: false, detail: `Redis at ${this.where} is not served yet: ${this.unchecked}` };
      return { kind: 'redis', up: true, detail: `Redis at ${this.where}, key prefix ${this.options.prefix}` };
    } catch (error) {
      const refused = error instanceof Error && error.name === 'ReplyError';
      return {
        kind: 'redis',
        up: false,
        detail: refused
          ? `Redis at ${this.where} refused PING (${printable(error.message, MESSAGE_CHARS)}); API calls that need state answer 503 store-unavailable until it accepts commands`
          : `Redis at ${this.where} is connected but did not answer PING within ${this.readTimeoutMs / 1000} s; listings answer 503 store-unavailable, and creates wait for its answer up to ${this.outcomeWaitMs / 1000} s (then 504 store-outcome-unknown)`,
      };
    }
  }

  /** A command's failure as the store's problem, in the project's words (never the client library's). */
  private async inWords<T>(command: Promise<T>): Promise<T> {
    try {
      return await command;
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * The session fault rules kept here, shared by every replica (`redis-fault-rules.ts`), on the two
   * connections of the store and a third that receives the announcements of changes.
   */
  faultRules(maxSessions: number): RedisFaultRules {
    const port: RedisFaultPort = {
      where: this.where,
      prefix: this.options.prefix,
      read: async (source, keys, args) => {
        try {
          return await this.script(this.redis, source, keys, args);
        } catch (error) {
          throw this.unavailable(error);
        }
      },
      use: (source, keys, args) => {
        if (this.writer.status !== 'ready') return Promise.reject(this.unavailable(new NotConnected('not connected')));
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([
          this.script(this.writer, source, keys, args).catch((error: unknown) => {
            throw this.unavailable(error);
          }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new OutcomeUnknown(`no answer within ${this.readTimeoutMs / 1000} s`)), this.readTimeoutMs);
          }),
        ]).finally(() => clearTimeout(timer));
      },
      change: async (source, keys, args, what, look) => {
        try {
          return await this.change(source, keys, args, (_reply, error) =>
            this.options.log(
              `store ${this.where}: ${what}, answered 504 store-outcome-unknown, ${error === undefined ? 'was made' : `failed (${messageOf(error)})`}`,
            ),
          );
        } catch (error) {
          if (error instanceof OutcomeUnknown) throw this.outcomeUnknown(error, what, look);
          throw this.unavailable(error);
        }
      },
      publish: (channel, message) => this.inWords(this.writer.publish(channel, message)),
      subscribe: (channel, onMessage, ready) => {
        // Subscribed again on every (re)connection, then `ready`: what was missed meanwhile is read again.
        const subscriber = new Redis(this.options.url, { ...this.connectionOptions, autoResubscribe: false });
        this.subscriber = subscriber;
        // Its outages are the store's (logged by the two other connections).
        subscriber.on('error', () => undefined);
        subscriber.on('message', (from: string, message: string) => {
          if (from === channel) onMessage(message);
        });
        return new Promise<void>((resolve) => {
          subscriber.on('ready', () => {
            subscriber.subscribe(channel).then(
              () => ready().then(resolve, resolve),
              (error: unknown) => this.note(`fault rules: not subscribed to their announcements (${messageOf(error)}); retrying`),
            );
          });
          subscriber.connect().catch(() => resolve());
        });
      },
      acknowledge: async (key) => {
        await this.inWords(this.writer.multi().rpush(key, '1').pexpire(key, 10_000).exec());
      },
      acknowledged: (key) => this.inWords(this.redis.llen(key)),
      holding: async (key) => {
        const flat = await this.inWords(this.redis.zrangebyscore(key, '-inf', '+inf', 'WITHSCORES'));
        const holding: [string, number][] = [];
        for (let i = 0; i + 1 < flat.length; i += 2) holding.push([flat[i] ?? '', Number(flat[i + 1])]);
        return holding;
      },
      closing: () => this.closing,
      log: (line) => this.options.log(line),
    };
    return new RedisFaultRules(port, maxSessions);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.checkRetry);
    await Promise.all(
      [this.redis, this.writer, ...(this.subscriber ? [this.subscriber] : [])].map(async (connection) => {
        try {
          await connection.quit();
        } catch {
          connection.disconnect();
        }
      }),
    );
    // A check running now fails with its connections, and is not tried again.
    await this.checking;
  }
}
