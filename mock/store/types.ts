/**
 * The one owner of the mock's state: sessions, recorded objects, id counters and sequences, resets
 * and limits. Two implementations: `memory.ts` (in this process, optionally with the durable journal
 * of `--state-file`) and `redis.ts` (shared by every replica that names the same Redis and prefix).
 * Every method is async (Redis is); every failure a client can act on is a thrown ProblemError.
 */
import type { JsonValue } from '../../contract/document.js';
import type { FaultRuleStore } from '../fault-rules.js';

/** A member whose value the store allocates: the next id, or the next number of a sequence. */
export interface CounterSlot {
  name: string;
  /** The member's name as JSON with its colon (`"id":`), when the planner made it once. */
  key?: string;
  /** The per-session counter (`lot-transfers#id`). */
  counter: string;
  kind: 'id' | 'sequence';
  /** For a sequence: `S-` and 6 give `S-000001`. */
  prefix?: string;
  width?: number;
}

/** A member with a value known before the create (input, default, lot member, timestamp). */
export interface FixedField {
  name: string;
  /** The member's name as JSON with its colon, when the planner made it once. */
  key?: string;
  value: JsonValue;
  /** The value's JSON text, when the planner made it once (a default; the timestamp, once a millisecond). */
  text?: string | undefined;
}

/**
 * A record to create, in the contract's member order. The store fills the counter slots atomically
 * with recording it, so ids are unique and gapless per session and resource, on every replica.
 */
export interface RecordPlan {
  resource: string;
  fields: (FixedField | CounterSlot)[];
  /** The record's key when the client chose it (an ISBN); absent when the store numbers it (the id slot). */
  key?: string;
}

/** What a store knows of a resource it records: the counters its records take, and which member is their key. */
export interface StoredResource {
  /** The counter slots of a record (ids, sequences), in member order. */
  slots: CounterSlot[];
  /** The member holding a record's key. */
  key: string;
  /** The store numbers the key (it is the first id slot); else the client chose it. */
  assigned: boolean;
}

/** The outcome of a conditional replace: done, the record changed since it was read, or it is gone. */
export type ReplaceOutcome = 'replaced' | 'changed' | 'missing';

export function isSlot(field: FixedField | CounterSlot): field is CounterSlot {
  return 'counter' in field;
}

/** The limits every store enforces (see docs/mock.md, "Limits"). */
export interface StoreLimits {
  /** Sessions besides the default one. */
  maxSessions: number;
  /** Records of one session (all resources together). */
  maxRecordsPerSession: number;
  /** Bytes of recorded JSON, all sessions together. */
  maxRecordedBytes: number;
}

export interface ListPage {
  /** The records, as the exact JSON they were answered with, in creation order. */
  records: Buffer[];
  /**
   * When more records follow: the cursor of the last record of the page (for `?after=`): its id for a
   * resource the store numbers, its place in creation order for one whose key the client chose.
   */
  nextAfter?: number;
}

export interface StoreHealth {
  kind: 'memory' | 'journal' | 'redis';
  up: boolean;
  /** While down: since when (ISO 8601, to the second). */
  since?: string;
  /** The store and its state in words (never the client library's internal messages). */
  detail: string;
}

export interface Store {
  readonly kind: StoreHealth['kind'];
  /**
   * Allocates the counters and records the filled record in one step; answers its JSON: at once when
   * nothing has to be waited for (the memory store without a journal: a create's hot path then takes no
   * promise), else later. A refusal is always a rejected promise, never a throw.
   */
  create(session: string, plan: RecordPlan): string | Promise<string>;
  /** At most `limit` records (and about `maxBytes`, at least one record) with an id above `after`. */
  list(session: string, resource: string, page: { after: number; limit: number; maxBytes: number }): Promise<ListPage>;
  /** The record of `key` as answered (its JSON), or undefined when the session has none. */
  get(session: string, resource: string, key: string): Promise<string | undefined>;
  /** Every record of a resource in the session, in creation order (at most --max-records-per-session). */
  all(session: string, resource: string): Promise<string[]>;
  /** Replaces the record of `key` with `next`, if it is still `expected` (what the caller read); within the limits. */
  replace(session: string, resource: string, key: string, expected: string, next: string): Promise<ReplaceOutcome>;
  /** Deletes the record of `key`; false when there was none. Its id is never handed out again. */
  remove(session: string, resource: string, key: string): Promise<boolean>;
  /** Clears the records of a session; its counters stay, so ids are never reused. */
  reset(session: string): Promise<void>;
  health(): Promise<StoreHealth>;
  /**
   * The session fault rules kept in this store, shared by every replica (`--store redis://...`);
   * absent: the rules live in each mock process. `maxSessions`: most sessions holding rules at once.
   */
  faultRules?(maxSessions: number): FaultRuleStore;
  close(): Promise<void>;
}

export const DEFAULT_SESSION = 'default';
