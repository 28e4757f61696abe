/**
 * The shared store on Redis (`--store redis://HOST:PORT/DB`): every replica that names the same Redis
 * and key prefix serves the same sessions and records. A create and a reset are each one Lua script
 * (`redis-scripts.ts`), so ids are unique and gapless per session and resource across replicas,
 * listings are in creation order everywhere, and the limits count all replicas together.
 *
 * Failure: commands are never queued while Redis is unreachable (`enableOfflineQueue: false`) and
 * time out (`commandTimeout`); a failed command answers 503 `store-unavailable`, never 201. The
 * client reconnects by itself, so the mock recovers when Redis is back.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { problem, ProblemError } from '../problems.js';
import { mockFull, sessionFull, tooManySessions } from './limit-problems.js';
import { planSegments } from './plan.js';
import { CREATE_SCRIPT, RESET_SCRIPT } from './redis-scripts.js';
import { DEFAULT_SESSION, type ListPage, type RecordPlan, type Store, type StoreHealth, type StoreLimits } from './types.js';
import { messageOf } from '../../contract/errors.js';

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  limits: StoreLimits;
  /** The recorded resources (a reset clears each). */
  resources: string[];
  log: (line: string) => void;
  /** Per-command deadline in milliseconds. */
  commandTimeoutMs?: number;
}

/** The Redis URL without credentials, for messages (`redis://127.0.0.1:6379/0`). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '' ? '' : parsed.pathname}`;
  } catch {
    return 'redis://(unparsable URL)';
  }
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
  private readonly redis: Redis;
  private readonly where: string;
  private lastError = '';
  private lastLogged = 0;

  private constructor(private readonly options: RedisStoreOptions) {
    this.where = displayUrl(options.url);
    this.redis = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: 2000,
      // Reconnect forever, at most every half second: the mock recovers by itself.
      retryStrategy: (times) => Math.min(50 * times, 500),
      lazyConnect: true,
    });
    this.redis.on('error', (error: Error) => this.note(error.message));
    this.redis.on('ready', () => {
      if (this.lastError !== '') options.log(`store ${this.where}: connected again`);
      this.lastError = '';
    });
  }

  /** Connects (waiting at most `waitMs`); a Redis that is down now is not fatal: the mock answers 503 until it is up. */
  static async open(options: RedisStoreOptions, waitMs = 3000): Promise<RedisStore> {
    const store = new RedisStore(options);
    const connected = store.redis.connect().then(
      () => true,
      () => false,
    );
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), waitMs).unref());
    if (!(await Promise.race([connected, timer]))) {
      options.log(
        `store ${store.where}: not reachable yet (${store.lastError || 'no answer'}); API calls that need state answer 503 until it is`,
      );
    }
    return store;
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
    this.note(error instanceof Error ? error.message : String(error));
    // Redis answered with an error (out of memory, read-only replica, ...): say which; otherwise it did not answer.
    const refused = error instanceof Error && error.name === 'ReplyError';
    const what = refused ? `refused the command (${error.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 120)})` : 'did not answer';
    return problem(
      'storeUnavailable',
      `The mock's shared store (Redis at ${this.where}) ${what}, so nothing was recorded or changed; ${refused ? 'check Redis (its memory, its role), then retry' : 'the mock reconnects by itself: retry shortly, and check that Redis runs'}.`,
      undefined,
      { 'Retry-After': '1' },
    );
  }

  private async script(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(sha1(source), keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(source, keys.length, ...keys, ...args);
    }
  }

  private key(...parts: string[]): string {
    return [this.options.prefix, ...parts].join(':');
  }

  async create(session: string, plan: RecordPlan): Promise<string> {
    const { limits } = this.options;
    const { segments, slots } = planSegments(plan);
    const slotArgs = slots.flatMap((slot) => [
      slot.counter,
      slot.kind,
      JSON.stringify(slot.prefix ?? '').slice(1, -1),
      String(slot.width ?? 0),
    ]);
    let answer: unknown;
    try {
      answer = await this.script(
        CREATE_SCRIPT,
        [this.key('sessions'), this.key('bytes'), this.key('s', session), this.key('s', session, plan.resource)],
        [
          session,
          session === DEFAULT_SESSION ? '1' : '0',
          limits.maxSessions,
          limits.maxRecordsPerSession,
          limits.maxRecordedBytes,
          slots.length,
          ...slotArgs,
          ...segments,
        ],
      );
    } catch (error) {
      throw this.unavailable(error);
    }
    if (!Array.isArray(answer)) throw this.unavailable(new Error('unexpected answer of the create script'));
    const [code, json] = answer as unknown[];
    if (code === 0 && typeof json === 'string') return json;
    if (code === 1) throw tooManySessions(limits);
    if (code === 2) throw sessionFull(limits, session);
    if (code === 3) throw mockFull(limits);
    throw this.unavailable(new Error(`unexpected answer of the create script: ${String(code)}`));
  }

  async list(session: string, resource: string, page: { after: number; limit: number; maxBytes: number }): Promise<ListPage> {
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
    try {
      await this.script(
        RESET_SCRIPT,
        [this.key('bytes'), this.key('s', session), ...this.options.resources.map((resource) => this.key('s', session, resource))],
        [],
      );
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  async health(): Promise<StoreHealth> {
    if (this.redis.status !== 'ready') {
      return {
        kind: 'redis',
        up: false,
        detail: `Redis at ${this.where} is unreachable (${this.lastError || this.redis.status}); reconnecting`,
      };
    }
    try {
      await this.redis.ping();
      return { kind: 'redis', up: true, detail: `Redis at ${this.where}, key prefix ${this.options.prefix}` };
    } catch (error) {
      return { kind: 'redis', up: false, detail: `Redis at ${this.where} does not answer (${messageOf(error)})` };
    }
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
