/**
 * The mock's errors as data: one catalogue entry per kind of problem, answered as
 * `application/problem+json` (RFC 9457) with `type`, `title`, `status` and a `detail` saying what was
 * wrong and how to fix it. The type URIs follow the contract's examples. Every entry is listed in the
 * README ("Errors the mock answers"); `problems.test.ts` keeps the two equal.
 */
import type { FieldError } from '../contract/schemas.js';

export interface ProblemKind {
  type: string;
  status: number;
  title: string;
}

const BASE = 'https://goods.example/problems/';

export const PROBLEMS = {
  invalidBody: { type: `${BASE}invalid-body`, status: 400, title: 'Request body does not match the contract' },
  malformedJson: { type: `${BASE}invalid-body`, status: 400, title: 'Request body does not match the contract' },
  /** The client closed the connection before its body was complete (the answer usually finds nobody; the log names it). */
  bodyIncomplete: { type: `${BASE}body-incomplete`, status: 400, title: 'Request body ended early' },
  badRequest: { type: `${BASE}bad-request`, status: 400, title: 'Bad Request' },
  invalidPath: { type: `${BASE}invalid-path`, status: 400, title: 'Invalid request path' },
  invalidSession: { type: `${BASE}invalid-session`, status: 400, title: 'Invalid X-Mock-Session header' },
  invalidQuery: { type: `${BASE}invalid-query`, status: 400, title: 'Invalid query parameter' },
  invalidPrefer: { type: `${BASE}invalid-prefer`, status: 400, title: 'Prefer asks for an undocumented answer' },
  /** A fault asked for (`Prefer: fault=`, a rule of `POST /__mock/faults`) that the catalogue of `faults.ts` does not allow. */
  invalidFault: { type: `${BASE}invalid-fault`, status: 400, title: 'Invalid fault injection' },
  unauthorized: { type: `${BASE}unauthorized`, status: 401, title: 'Missing or rejected credentials' },
  foreignOrigin: { type: `${BASE}foreign-origin`, status: 403, title: 'Origin not allowed to use the mock controls' },
  resetNotConfirmed: { type: `${BASE}reset-not-confirmed`, status: 403, title: 'Reset needs the X-Mock-Reset header' },
  notFound: { type: `${BASE}not-found`, status: 404, title: 'No such resource' },
  orderNotFound: { type: `${BASE}order-not-found`, status: 404, title: 'Order not found' },
  /** A read, change, delete or action of a key no record of the session has (never created, or deleted). */
  recordNotFound: { type: `${BASE}record-not-found`, status: 404, title: 'No record has this key' },
  /** A create whose key (chosen by the client) a record already has. */
  duplicateKey: { type: `${BASE}duplicate-key`, status: 409, title: 'A record already has this key' },
  /** An action asked of a record that is not in a state it can start from (`x-action` requires). */
  stateConflict: { type: `${BASE}state-conflict`, status: 409, title: 'The record is not in a state the action can start from' },
  /** A path or query parameter that breaks its schema in the contract. */
  invalidParameter: { type: `${BASE}invalid-parameter`, status: 400, title: 'Invalid parameter' },
  methodNotAllowed: { type: `${BASE}method-not-allowed`, status: 405, title: 'Method not allowed' },
  requestTimeout: { type: `${BASE}request-timeout`, status: 408, title: 'Request Timeout' },
  payloadTooLarge: { type: `${BASE}payload-too-large`, status: 413, title: 'Request body too large' },
  unsupportedMediaType: { type: `${BASE}unsupported-media-type`, status: 415, title: 'Unsupported media type' },
  misdirectedRequest: { type: `${BASE}misdirected-request`, status: 421, title: 'The Host header does not name this mock' },
  unknownLot: { type: `${BASE}unknown-lot`, status: 422, title: 'Unknown lot' },
  headersTooLarge: { type: `${BASE}headers-too-large`, status: 431, title: 'Request Header Fields Too Large' },
  tooManySessions: { type: `${BASE}too-many-sessions`, status: 429, title: 'Too many mock sessions' },
  faultRulesFull: { type: `${BASE}fault-rules-full`, status: 429, title: 'Too many fault rules' },
  sessionFull: { type: `${BASE}session-full`, status: 507, title: 'The mock session holds its most records' },
  mockFull: { type: `${BASE}mock-full`, status: 507, title: 'The mock holds its most recorded bytes' },
  internal: { type: `${BASE}internal-error`, status: 500, title: 'Internal error in the mock' },
  busy: { type: `${BASE}mock-busy`, status: 503, title: 'The mock is at a limit of concurrent work' },
  storeUnavailable: { type: `${BASE}store-unavailable`, status: 503, title: "The mock's shared store is unreachable" },
  /** The shared store did not confirm a create or reset in time (or the connection broke after it was sent): it may have happened. */
  storeOutcomeUnknown: { type: `${BASE}store-outcome-unknown`, status: 504, title: 'The store did not say whether the change was made' },
  notDurable: { type: `${BASE}state-not-durable`, status: 503, title: 'The create could not be saved durably' },
  /** Injected faults (`status:5xx`, `faults.ts`): asked for by the client, never a failure of the mock. */
  injectedInternalError: { type: `${BASE}injected-server-error`, status: 500, title: 'Injected fault: internal server error' },
  injectedBadGateway: { type: `${BASE}injected-bad-gateway`, status: 502, title: 'Injected fault: bad gateway' },
  injectedUnavailable: { type: `${BASE}injected-unavailable`, status: 503, title: 'Injected fault: service unavailable' },
  injectedGatewayTimeout: { type: `${BASE}injected-timeout`, status: 504, title: 'Injected fault: gateway timeout' },
  /** `--proxy` mode: the proxied (upstream) server refused the connection or broke it before answering. */
  upstreamUnreachable: { type: `${BASE}upstream-unreachable`, status: 502, title: 'The proxied server cannot be reached' },
  /** `--proxy` mode: the proxied server sent no answer in time. */
  upstreamTimeout: { type: `${BASE}upstream-timeout`, status: 504, title: 'The proxied server did not answer in time' },
} as const satisfies Record<string, ProblemKind>;

export type ProblemName = keyof typeof PROBLEMS;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
}

/** A problem the request pipeline throws and the server answers. */
export class ProblemError extends Error {
  readonly headers: Record<string, string>;
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors?: FieldError[],
    headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.headers = headers;
  }

  body(): ProblemBody {
    return problemBody(this.kind, this.detail, this.errors);
  }
}

export function problemBody(kind: ProblemKind, detail: string, errors?: FieldError[]): ProblemBody {
  const body: ProblemBody = { type: kind.type, title: kind.title, status: kind.status, detail };
  if (errors && errors.length > 0) body.errors = errors;
  return body;
}

/** Shorthand: `throw problem('unknownLot', 'no lot ...', errors)`. */
export function problem(name: ProblemName, detail: string, errors?: FieldError[], headers?: Record<string, string>): ProblemError {
  return new ProblemError(PROBLEMS[name], detail, errors, headers);
}
