/**
 * The session fault rules (`/__mock/faults`) kept in the shared Redis store (`--store redis://...`):
 * a rule set through one replica applies on every replica, with its count and its life kept in Redis
 * and each request counted once across replicas (one Lua script per use, `redis-scripts.ts`).
 *
 * The request path asks Redis only for a session that holds a rule: each replica keeps the sessions
 * holding rules and when their last rule ends, learned from the scripts' answers and from a Redis
 * pub/sub channel every change is announced on (read whole again whenever the subscription (re)starts).
 * A change is answered only once every subscribed replica has confirmed it learned of it (at most a
 * second), so a rule set through one replica applies to the very next request on any replica.
 */
import { randomUUID } from 'node:crypto';
import {
  RULE_LIMITS,
  sessionRulesFull,
  sessionsWithRulesFull,
  type FaultRule,
  type FaultRuleInput,
  type FaultRuleStore,
  type RulesPlace,
} from '../fault-rules.js';
import { faultOrReason, faultText } from '../faults.js';
import { messageOf } from '../../util/errors.js';
import { FAULT_ADD_SCRIPT, FAULT_CLEAR_SCRIPT, FAULT_LIST_SCRIPT, FAULT_REMOVE_SCRIPT, FAULT_TAKE_SCRIPT } from './redis-scripts.js';

/** What the Redis store lends the rules: its connections' commands, in the store's failure semantics. */
export interface RedisFaultPort {
  /** The Redis, as shown to people (no credentials), and the key prefix. */
  where: string;
  prefix: string;
  /** A script that reads, on the reads connection (2 s deadline); throws the 503 `store-unavailable` problem. */
  read(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  /**
   * A small change on the request path (a rule's use), on the writes connection (never resent, so never
   * counted twice), waited for at most the reads' deadline; rejects when its outcome is not known by then.
   */
  use(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  /** A change on the writes connection (never resent): 503 when it was not made, 504 when it may have been. */
  change(script: string, keys: string[], args: (string | number)[], what: string, look: string): Promise<unknown>;
  /** Publishes `message`; answers how many subscribers got it. */
  publish(channel: string, message: string): Promise<number>;
  /**
   * Subscribes to `channel` on a connection of its own: `ready` each time the subscription (re)starts.
   * Resolves once first subscribed and `ready` done, or once the first connection failed (it keeps retrying).
   */
  subscribe(channel: string, onMessage: (message: string) => void, ready: () => Promise<void>): Promise<void>;
  /** Appends to a short-lived list (an acknowledgement); its length. */
  acknowledge(key: string): Promise<void>;
  acknowledged(key: string): Promise<number>;
  /** The sessions holding rules with when their last one ends (ms). */
  holding(key: string): Promise<[string, number][]>;
  /** True once the store is closing (nothing is retried then). */
  closing(): boolean;
  log(line: string): void;
}

/** How long a change waits for every replica to confirm it learned of it. */
const CONFIRM_WAIT_MS = 1000;
/** A replica's clock may run ahead of Redis's: a session is forgotten this long after Redis says its last rule ended. */
const CLOCK_SLACK_MS = 2000;

/** A rule as stored: its grammar text, not the parsed fault. */
interface StoredRule {
  fault: string;
  operations: string[];
  count?: number;
  seconds: number;
}

function isStoredRule(value: unknown): value is StoredRule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return (
    typeof rule['fault'] === 'string' &&
    Array.isArray(rule['operations']) &&
    rule['operations'].every((op) => typeof op === 'string') &&
    (rule['count'] === undefined || typeof rule['count'] === 'number') &&
    typeof rule['seconds'] === 'number'
  );
}

export class RedisFaultRules implements FaultRuleStore {
  readonly where: RulesPlace;
  /** The sessions that may hold a rule, with when their last rule ends (Redis's clock, ms). */
  private readonly sessions = new Map<string, number>();
  private readonly channel: string;
  private lastFailure = 0;
  /** Resolves once the replica is subscribed and knows the sessions holding rules (or cannot now, or after 3 s). */
  readonly ready: Promise<void>;

  constructor(
    private readonly port: RedisFaultPort,
    private readonly maxSessions: number,
  ) {
    this.where = {
      kind: 'redis',
      detail: `in the shared store (Redis at ${port.where}, key prefix ${port.prefix}): every replica with this --store and --store-prefix applies them, each request counted once across replicas; they last their seconds, restarts included`,
    };
    this.channel = this.key('changed');
    // Ready once subscribed and the sessions holding rules are read, or at once when Redis cannot be
    // reached now (the connection keeps trying; the rules are read when it is back), at most 3 s.
    this.ready = Promise.race([
      this.port.subscribe(
        this.channel,
        (message) => this.learn(message),
        () => this.reload(),
      ),
      new Promise<void>((resolve) => setTimeout(resolve, 3000).unref()),
    ]);
  }

  get empty(): boolean {
    return this.sessions.size === 0;
  }

  private key(...parts: string[]): string {
    return [this.port.prefix, 'faults', ...parts].join(':');
  }

  private keys(session: string): string[] {
    return [this.key('sessions'), this.key('s', session)];
  }

  /** Keeps what an answer of Redis said about a session: when its last rule ends (0: it holds none). */
  private note(session: string, last: number): void {
    if (last > 0) this.sessions.set(session, last);
    else this.sessions.delete(session);
  }

  /** An announcement of a change (`{"session","last","ack"}`): kept, then confirmed. */
  private learn(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const { session, last, ack } = parsed as Record<string, unknown>;
    if (typeof session !== 'string' || typeof last !== 'number') return;
    this.note(session, last);
    if (typeof ack === 'string')
      this.port.acknowledge(ack).catch((error: unknown) => this.failed(`could not confirm a fault rule change: ${messageOf(error)}`));
  }

  /**
   * Reads every session holding rules again (the subscription (re)started: announcements may have been
   * missed); tried again every second until it succeeds.
   */
  private async reload(): Promise<void> {
    try {
      const holding = await this.port.holding(this.key('sessions'));
      this.sessions.clear();
      for (const [session, last] of holding) this.sessions.set(session, last);
    } catch (error) {
      this.failed(`could not read which sessions hold fault rules (${messageOf(error)}); trying again every second`);
      if (!this.port.closing()) setTimeout(() => void this.reload(), 1000).unref();
    }
  }

  /** Logs a failure, at most once a second. */
  private failed(line: string): void {
    const now = Date.now();
    if (now - this.lastFailure < 1000) return;
    this.lastFailure = now;
    this.port.log(`store ${this.port.where}: ${line}`);
  }

  /** Announces a change of `session` to every replica and waits (at most a second) until each confirmed it. */
  private async announce(session: string, last: number): Promise<void> {
    const ack = this.key('ack', randomUUID());
    try {
      const subscribers = await this.port.publish(this.channel, JSON.stringify({ session, last, ack }));
      const deadline = Date.now() + CONFIRM_WAIT_MS;
      let confirmed = 0;
      while ((confirmed = await this.port.acknowledged(ack)) < subscribers && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (confirmed < subscribers)
        this.failed(
          `${subscribers - confirmed} of ${subscribers} replicas did not confirm within ${CONFIRM_WAIT_MS / 1000} s that they learned of a fault rule change of session "${session}"; they apply it once they do`,
        );
    } catch (error) {
      this.failed(`could not announce a fault rule change of session "${session}" to the other replicas: ${messageOf(error)}`);
    }
  }

  /** A stored rule as the mock knows rules; undefined (logged) for one this version cannot read. */
  private rule(id: number, json: unknown, hits: number, ends: number): FaultRule | undefined {
    let stored: unknown;
    try {
      stored = JSON.parse(String(json));
    } catch {
      stored = undefined;
    }
    const fault = isStoredRule(stored) ? faultOrReason(stored.fault) : 'not a rule';
    if (!isStoredRule(stored) || typeof fault === 'string') {
      this.failed(
        `the fault rule ${id} in Redis cannot be read by this mock (${typeof fault === 'string' ? fault : 'not a rule'}); it is ignored`,
      );
      return undefined;
    }
    return {
      id,
      fault,
      operations: stored.operations,
      ...(stored.count !== undefined ? { count: stored.count } : {}),
      seconds: stored.seconds,
      hits,
      expiresAt: ends,
    };
  }

  async list(session: string): Promise<FaultRule[]> {
    const reply = await this.port.read(FAULT_LIST_SCRIPT, this.keys(session), [session]);
    if (!Array.isArray(reply)) return [];
    const [last, ...flat] = reply as unknown[];
    this.note(session, Number(last));
    const rules: FaultRule[] = [];
    for (let i = 0; i + 3 < flat.length; i += 4) {
      const rule = this.rule(Number(flat[i]), flat[i + 1], Number(flat[i + 2]), Number(flat[i + 3]));
      if (rule) rules.push(rule);
    }
    return rules;
  }

  async add(session: string, input: FaultRuleInput): Promise<FaultRule> {
    const stored: StoredRule = {
      fault: faultText(input.fault),
      operations: input.operations,
      ...(input.count !== undefined ? { count: input.count } : {}),
      seconds: input.seconds,
    };
    const reply = await this.port.change(
      FAULT_ADD_SCRIPT,
      [this.key('next'), ...this.keys(session)],
      [session, JSON.stringify(stored), input.seconds, RULE_LIMITS.maxRulesPerSession, this.maxSessions],
      `the new fault rule of session "${session}"`,
      `GET /__mock/faults with X-Mock-Session: ${session} lists it if it was added`,
    );
    const [code, id, ends, last] = Array.isArray(reply) ? (reply as unknown[]).map(Number) : [Number.NaN];
    if (code === 1) throw sessionRulesFull(session, id ?? RULE_LIMITS.maxRulesPerSession);
    if (code === 2) throw sessionsWithRulesFull(this.maxSessions);
    if (code !== 0 || id === undefined || ends === undefined || last === undefined)
      throw new Error('unexpected answer of the fault rule script');
    this.note(session, last);
    await this.announce(session, last);
    return { ...input, id, hits: 0, expiresAt: ends };
  }

  async remove(session: string, id: number): Promise<boolean> {
    const reply = await this.port.change(
      FAULT_REMOVE_SCRIPT,
      this.keys(session),
      [session, String(id)],
      `the removal of the fault rule ${id} of session "${session}"`,
      `GET /__mock/faults with X-Mock-Session: ${session} lists it if it is still there`,
    );
    const [removed, last] = Array.isArray(reply) ? (reply as unknown[]).map(Number) : [0, 0];
    this.note(session, last ?? 0);
    if (removed === 1) await this.announce(session, last ?? 0);
    return removed === 1;
  }

  async clear(session: string): Promise<number> {
    const reply = await this.port.change(
      FAULT_CLEAR_SCRIPT,
      this.keys(session),
      [session],
      `the removal of the fault rules of session "${session}"`,
      `GET /__mock/faults with X-Mock-Session: ${session} lists what is left`,
    );
    const [count] = Array.isArray(reply) ? (reply as unknown[]).map(Number) : [0];
    this.note(session, 0);
    await this.announce(session, 0);
    return count ?? 0;
  }

  take(session: string, operationId: string): FaultRule | undefined | Promise<FaultRule | undefined> {
    const last = this.sessions.get(session);
    if (last === undefined) return undefined;
    if (last + CLOCK_SLACK_MS < Date.now()) {
      this.sessions.delete(session);
      return undefined;
    }
    return this.port.use(FAULT_TAKE_SCRIPT, this.keys(session), [session, operationId]).then(
      (reply) => {
        if (!Array.isArray(reply)) return undefined;
        const [id, json, hits, ends, lastNow] = reply as unknown[];
        this.note(session, Number(lastNow));
        return Number(id) > 0 ? this.rule(Number(id), json, Number(hits), Number(ends)) : undefined;
      },
      (error: unknown) => {
        // The request is answered without its rule rather than not at all; the log says so.
        this.failed(
          `the fault rules of session "${session}" could not be read (${messageOf(error)}); requests are answered without them meanwhile`,
        );
        return undefined;
      },
    );
  }
}
