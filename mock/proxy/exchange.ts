/**
 * What the validating proxy judges: one exchange seen on the wire (the client's request and the
 * upstream's answer), and the violations found in it. Header names are lower case; repeated headers
 * are joined with ", ". Bodies are the bytes seen, cut at `MAX_JUDGED_BYTES` (`complete` says whether
 * the whole body was kept).
 */
import type { Side } from '../../checks/define.js';
import type { Level } from '../../contract/levels.js';

/**
 * Bytes of a request or answer body kept for judging; a longer body is forwarded whole but not judged
 * (and so is a request body nesting deeper than `MAX_BODY_DEPTH` of `../body.ts`: `judge.ts`).
 */
export const MAX_JUDGED_BYTES = 1024 * 1024;

export interface SeenMessage {
  headers: Record<string, string>;
  body: Buffer;
  /** False when the body was longer than `MAX_JUDGED_BYTES` (only the first bytes are in `body`). */
  complete: boolean;
}

export interface ProxyExchange {
  method: string;
  /** The request target as the client sent it (path and query, percent-encoded). */
  target: string;
  request: SeenMessage;
  answer: SeenMessage & { status: number };
  durationMs: number;
}

/** Who broke the contract: the client (its request) or the server (its answer). */
export type { Side };

/** Where in the exchange the problem is. */
export type Place = 'path' | 'method' | 'header' | 'status' | 'body';

export interface Violation {
  side: Side;
  /** The contract's operationId, or `unknown` for a request that names no operation. */
  operation: string;
  /** The judgment's id, e.g. `request.body-schema`. */
  rule: string;
  /** The lowest level the rule belongs to (`spec` rules are judged at both levels). */
  level: Level;
  in: Place;
  /** RFC 6901 JSON Pointer into the body (`""` is the whole body); for a header, its name. */
  pointer: string;
  /** A short reason: what was expected and what came. */
  reason: string;
}

/** The operation name used for requests that match no operation of the contract. */
export const UNKNOWN_OPERATION = 'unknown';
