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
}

/**
 * A record to create, in the contract's member order. The store fills the counter slots atomically
 * with recording it, so ids are unique and gapless per session and resource, on every replica.
 */
export interface RecordPlan {
  resource: string;
  fields: (FixedField | CounterSlot)[];
}

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
  /** The id of the last record of the page when more records follow it (for `?after=`). */
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
  /** Allocates the counters and records the filled record in one step; answers its JSON. */
  create(session: string, plan: RecordPlan): Promise<string>;
  /** At most `limit` records (and about `maxBytes`, at least one record) with an id above `after`. */
  list(session: string, resource: string, page: { after: number; limit: number; maxBytes: number }): Promise<ListPage>;
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
