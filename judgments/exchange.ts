/**
 * What a judgment looks at: one exchange (a request and the answer to it, or why there was none) and
 * the facts it needs (the level, the compiled contract, the operations model, what was asked for).
 * Any traffic fits: the suite's own requests, or requests a proxy saw.
 */
import type { Level } from '../contract/levels.js';
import type { OperationsModel, OperationId } from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';

export interface JudgedRequest {
  /** The operation the request addressed (`server` for none), when known. */
  target?: OperationId;
  method: string;
  /** Path (and query) as sent, URL-encoded. */
  path: string;
  headers: Readonly<Record<string, string>>;
  body?: Buffer | string;
  /** The body already parsed as JSON by whoever built the exchange (judgments then do not parse it again). */
  json?: { value: unknown };
}

export interface JudgedAnswer {
  status: number;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  text: string;
  /** The body already parsed as JSON by whoever built the exchange (judgments then do not parse it again). */
  json?: { value: unknown };
}

export interface JudgedExchange {
  request: JudgedRequest;
  answer?: JudgedAnswer;
  /** Why there is no answer (time-out, closed connection, ...). */
  error?: string;
}

export interface JudgeContext {
  level: Level;
  model: OperationsModel;
  contracts: Record<Level, CompiledContract>;
}

/** One way an exchange breaks a rule. */
export interface Violation {
  rule: string;
  /** RFC 6901 pointer into the answer body (or the request body, said in `reason`), when one member is at fault. */
  pointer?: string;
  /**
   * Where the problem is when it is not in a body: a header (its lower-case name), the status, or the
   * request's path or method. Absent with a `pointer`: the body; absent without: the status.
   */
  in?: 'path' | 'method' | 'header' | 'status' | 'body';
  /** The header at fault (lower-case name), with `in: 'header'`. */
  header?: string;
  /** What the rule wants. */
  expected: string;
  /** What the exchange shows instead (one short sentence). */
  reason: string;
}
