/**
 * Session fault rules (`POST /__mock/faults`): "the next N requests of these operations get this
 * fault", each isolated in its `X-Mock-Session` and bounded (it ends after its count or its time,
 * whichever comes first; a session holds a bounded number, and so does the process).
 *
 * Where they live is a `FaultRuleStore`: this process (`FaultRules`, below: memory or the journal's
 * mock; not journaled, a restart forgets them as it forgets every other time-bounded thing), or the
 * shared store (`store/redis-fault-rules.ts` with `--store redis://...`: every replica applies every
 * rule, each request counted once across replicas).
 */
import { isObject } from '../contract/document.js';
import type { FieldError } from '../contract/schemas.js';
import { faultOrReason, faultText, type Fault } from './faults.js';
import { problem } from './problems.js';

/** The bounds of the rules (data, as in the README's limits). */
export const RULE_LIMITS = {
  /** Most live rules one session holds. */
  maxRulesPerSession: 20,
  /** Largest `count`. */
  maxCount: 1000,
  /** Longest life of a rule, and its life when `seconds` is not given. */
  maxSeconds: 3600,
  defaultSeconds: 600,
} as const;

/** What a client asks for; `checkRuleInput` reads it from the JSON body. */
export interface FaultRuleInput {
  fault: Fault;
  /** The operationIds it applies to; empty: every operation the mock faults. */
  operations: string[];
  /** How many requests it applies to; undefined: any number until it expires. */
  count?: number;
  seconds: number;
}

export interface FaultRule extends FaultRuleInput {
  id: number;
  /** The requests it has faulted so far. */
  hits: number;
  /** When it ends (ms since the epoch). */
  expiresAt: number;
}

/** A rule as `GET /__mock/faults` answers it. */
export interface FaultRuleView {
  id: number;
  fault: string;
  operations: string[];
  /** Requests it still applies to; null: any number until it expires. */
  remaining: number | null;
  hits: number;
  expiresAt: string;
}

export function ruleView(rule: FaultRule): FaultRuleView {
  return {
    id: rule.id,
    fault: faultText(rule.fault),
    operations: rule.operations,
    remaining: rule.count === undefined ? null : rule.count - rule.hits,
    hits: rule.hits,
    expiresAt: new Date(rule.expiresAt).toISOString(),
  };
}

/** Where the rules live, as `GET /__mock/faults` says it. */
export interface RulesPlace {
  kind: 'process' | 'redis';
  /** In words: who sees the rules, how long they last. */
  detail: string;
}

/**
 * The rules of every session, wherever they live. Reads and changes may wait (the shared store);
 * `empty` and, for a session that holds no rule, `take` answer at once, so a request pays nothing
 * while no rule could apply to it.
 */
export interface FaultRuleStore {
  readonly where: RulesPlace;
  /** True when no session holds a rule: the request path then costs nothing more. */
  readonly empty: boolean;
  /** The live rules of a session, oldest first. */
  list(session: string): FaultRule[] | Promise<FaultRule[]>;
  /** Adds a rule; throws a 429 `fault-rules-full` past a bound. */
  add(session: string, input: FaultRuleInput): FaultRule | Promise<FaultRule>;
  /** Removes one rule of the session; false when it has no such rule. */
  remove(session: string, id: number): boolean | Promise<boolean>;
  /** Removes every rule of the session; answers how many there were. */
  clear(session: string): number | Promise<number>;
  /** The rule that faults this request, counted as used (the oldest live rule of the session naming the operation, or naming none). */
  take(session: string, operationId: string): FaultRule | undefined | Promise<FaultRule | undefined>;
  /** Resolves once the rules can be used (the shared store: subscribed to the announcements of changes). */
  readonly ready?: Promise<void>;
}

/** The 429 of a session that holds its most rules. */
export function sessionRulesFull(session: string, held: number) {
  return problem(
    'faultRulesFull',
    `The session "${session}" holds ${held} fault rules, its most; DELETE /__mock/faults (all) or /__mock/faults/{id} (one) first.`,
  );
}

/** The 429 of a rule in a new session when as many sessions as allowed hold rules. */
export function sessionsWithRulesFull(maxSessions: number) {
  return problem(
    'faultRulesFull',
    `${maxSessions} sessions hold fault rules, the most (--max-sessions, plus the default session); add the rule in one of them, or clear theirs.`,
  );
}

const MEMBERS = ['fault', 'operations', 'count', 'seconds'];

/** A whole number in [min, max], or the error of `pointer`. */
function wholeIn(value: unknown, pointer: string, min: number, max: number, errors: FieldError[]): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  errors.push({ pointer, detail: `must be a whole number from ${min} to ${max}` });
  return undefined;
}

/**
 * Reads a rule from a request body: `{"fault": "status:503", "operations": ["createLotTransfer"],
 * "count": 3, "seconds": 60}` (only `fault` is required). Throws a 400 `invalid-fault` naming every
 * member that is wrong (`errors[].pointer`).
 */
export function checkRuleInput(body: unknown, operationIds: readonly string[]): FaultRuleInput {
  if (!isObject(body)) throw problem('invalidFault', 'A fault rule is a JSON object, e.g. {"fault":"status:503","count":3}.');
  const errors: FieldError[] = [];
  for (const name of Object.keys(body)) {
    if (!MEMBERS.includes(name)) errors.push({ pointer: `/${name}`, detail: `is not a member of a fault rule (${MEMBERS.join(', ')})` });
  }
  let fault: Fault | undefined;
  if (typeof body['fault'] !== 'string') errors.push({ pointer: '/fault', detail: 'is required: a fault such as "status:503"' });
  else {
    const read = faultOrReason(body['fault']);
    if (typeof read === 'string') errors.push({ pointer: '/fault', detail: `is not a fault: ${read}` });
    else fault = read;
  }
  const operations: string[] = [];
  const listed = body['operations'];
  if (listed !== undefined) {
    if (!Array.isArray(listed) || listed.length > operationIds.length)
      errors.push({ pointer: '/operations', detail: `must be a list of operationIds (${operationIds.join(', ')})` });
    else
      listed.forEach((id, i) => {
        if (typeof id === 'string' && operationIds.includes(id)) {
          if (!operations.includes(id)) operations.push(id);
        } else errors.push({ pointer: `/operations/${i}`, detail: `must be one of ${operationIds.join(', ')}` });
      });
  }
  const count = body['count'] === undefined ? undefined : wholeIn(body['count'], '/count', 1, RULE_LIMITS.maxCount, errors);
  const seconds =
    body['seconds'] === undefined ? RULE_LIMITS.defaultSeconds : wholeIn(body['seconds'], '/seconds', 1, RULE_LIMITS.maxSeconds, errors);
  if (errors.length > 0 || fault === undefined || seconds === undefined) {
    const summary = errors.map((e) => `${e.pointer} ${e.detail}`).join('; ');
    throw problem(
      'invalidFault',
      `The fault rule has ${errors.length} problem${errors.length === 1 ? '' : 's'}: ${summary}. GET /__mock/faults lists the faults and bounds; see docs/faults.md.`,
      errors,
    );
  }
  return { fault, operations, ...(count !== undefined ? { count } : {}), seconds };
}

/** The rules of every session, kept in this process. */
export class FaultRules implements FaultRuleStore {
  readonly where: RulesPlace = {
    kind: 'process',
    detail:
      'in this mock process: they apply to the requests it serves (another replica sharing its --store does not see them), and a restart forgets them',
  };
  private readonly sessions = new Map<string, FaultRule[]>();
  private nextId = 1;

  /**
   * @param maxSessions most sessions holding rules at once (the mock's `--max-sessions`, plus the default one)
   * @param now the clock (tests pass their own)
   */
  constructor(
    private readonly maxSessions: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when no session holds a rule: the request path then costs nothing more. */
  get empty(): boolean {
    return this.sessions.size === 0;
  }

  /** The live rules of a session, oldest first (expired and used-up ones are dropped). */
  list(session: string): FaultRule[] {
    const rules = this.sessions.get(session);
    if (!rules) return [];
    const now = this.now();
    const live = rules.filter((rule) => rule.expiresAt > now && (rule.count === undefined || rule.hits < rule.count));
    if (live.length === 0) this.sessions.delete(session);
    else if (live.length !== rules.length) this.sessions.set(session, live);
    return live;
  }

  /** Adds a rule; throws a 429 `fault-rules-full` past a bound. */
  add(session: string, input: FaultRuleInput): FaultRule {
    const rules = this.list(session);
    if (rules.length >= RULE_LIMITS.maxRulesPerSession) throw sessionRulesFull(session, rules.length);
    if (rules.length === 0 && this.liveSessions() >= this.maxSessions) throw sessionsWithRulesFull(this.maxSessions);
    const rule: FaultRule = { ...input, id: this.nextId++, hits: 0, expiresAt: this.now() + input.seconds * 1000 };
    this.sessions.set(session, [...rules, rule]);
    return rule;
  }

  /** Removes one rule of the session; false when it has no such rule. */
  remove(session: string, id: number): boolean {
    const rules = this.list(session);
    const kept = rules.filter((rule) => rule.id !== id);
    if (kept.length === rules.length) return false;
    if (kept.length === 0) this.sessions.delete(session);
    else this.sessions.set(session, kept);
    return true;
  }

  /** Removes every rule of the session; answers how many there were. */
  clear(session: string): number {
    const count = this.list(session).length;
    this.sessions.delete(session);
    return count;
  }

  /**
   * The rule that faults this request, counted as used: the oldest live rule of the session whose
   * operations include `operationId` (or that names none). Undefined when none applies.
   */
  take(session: string, operationId: string): FaultRule | undefined {
    if (!this.sessions.has(session)) return undefined;
    const rule = this.list(session).find((r) => r.operations.length === 0 || r.operations.includes(operationId));
    if (!rule) return undefined;
    rule.hits += 1;
    if (rule.count !== undefined && rule.hits >= rule.count) this.list(session);
    return rule;
  }

  private liveSessions(): number {
    for (const session of [...this.sessions.keys()]) this.list(session);
    return this.sessions.size;
  }
}
