/**
 * Judgments of a client's request (the client breaking the contract): the one place the rules of a
 * request live. The judges are pure functions of what a request carries (its headers, its body bytes,
 * its query) and the contract's facts for its operation; each answers what it found as data, and its
 * reader words it: the `judge*` functions below as violations (the validating proxy, for traffic the
 * suite did not send), the mock's security and validate stages as the problems of its catalogue
 * (`mock/auth.ts`, `mock/body.ts`, `mock/handlers.ts`). `mock/judged-requests.test.ts` feeds the same
 * requests to both and checks that they agree case by case. Pointers point into the request body.
 */
import { isUtf8 } from 'node:buffer';
import contentType from 'content-type';
import type { Level } from '../contract/levels.js';
import type { OperationId, OperationModel } from '../contract/operations-model.js';
import type { CompiledContract, Validator } from '../contract/schemas.js';
import { carrierText, schemesOf, type OperationSecurity, type SecurityScheme } from '../contract/security.js';
import { schemaValid } from './answer.js';
import type { JudgeContext, JudgedExchange, JudgedRequest, Violation } from './exchange.js';
import { REQUEST } from './rules.js';
import { BEARER_CREDENTIALS } from '../util/bearer.js';
import { messageOf } from '../util/errors.js';
import { nestsDeeperThan } from '../util/json.js';

// ---- credentials ------------------------------------------------------------------------------

/** Request headers as either side holds them: Node's (a value may be a list) or a judged request's (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * What a request presents for one security scheme, judged by the scheme's syntax alone (whether a
 * well-formed credential is accepted is the server's business, as the mock's `--token` is the mock's).
 */
export type PresentedCredential =
  /** Nothing where the scheme's credential goes: no (or an empty) Authorization header, no API key. */
  | { kind: 'missing' }
  /** An Authorization header of another scheme (`scheme` as sent). */
  | { kind: 'other-scheme'; scheme: string }
  /**
   * The scheme's name, but its credential not in the scheme's syntax: a bearer token not one RFC 6750
   * b64token, Basic credentials not base64 of `user:password` (RFC 7617), nothing after another scheme's name.
   */
  | { kind: 'malformed' }
  /** A well-formed credential: the token, the API key, Basic's decoded `user:password` (with its `password`). */
  | { kind: 'credential'; credential: string; password?: string };

/** A well-formed credential (what a server's own acceptance judges). */
export type Credential = Extract<PresentedCredential, { kind: 'credential' }>;

const MISSING: PresentedCredential = { kind: 'missing' };
const MALFORMED: PresentedCredential = { kind: 'malformed' };

const firstOf = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

/** The auth-scheme of an Authorization header (RFC 9110 §11.4: up to the first white space), as sent. */
const WHITE_SPACE = /\s/;
const schemeOf = (header: string): string => {
  const end = header.search(WHITE_SPACE);
  return end < 0 ? header : header.slice(0, end);
};

/**
 * RFC 6750 §2.1: what an Authorization header presents for a bearer scheme (`Bearer 1*SP b64token`, the
 * name in any case). Judging one exchange asks this several times: it makes no match arrays.
 */
export function presentedBearer(header: string | undefined): PresentedCredential {
  if (header === undefined || header.trim() === '') return MISSING;
  const scheme = schemeOf(header);
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'other-scheme', scheme };
  // A match has no space in its token: the token is what follows the last space.
  return BEARER_CREDENTIALS.test(header) ? { kind: 'credential', credential: header.slice(header.lastIndexOf(' ') + 1) } : MALFORMED;
}

/** The value of a cookie in a `Cookie` header (`a=1; b=2`). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * What a request presents for one scheme of the contract, where the scheme's credential travels
 * (`contract/security.ts`): an API key in its header, query parameter (`search`: the request's
 * query, `?a=1`, or empty) or cookie; an HTTP scheme in `Authorization: <scheme> <credentials>`.
 */
export function presentedCredential(scheme: SecurityScheme, headers: RequestHeaders, search: string): PresentedCredential {
  const carrier = scheme.carrier;
  if (carrier.kind === 'apiKey') {
    const key =
      carrier.in === 'header'
        ? firstOf(headers[carrier.name])
        : carrier.in === 'query'
          ? (new URLSearchParams(search.slice(1)).get(carrier.name) ?? undefined)
          : cookieValue(firstOf(headers['cookie']), carrier.name);
    return key === undefined || key === '' ? MISSING : { kind: 'credential', credential: key };
  }
  const header = firstOf(headers['authorization']);
  if (carrier.scheme === 'bearer') return presentedBearer(header);
  if (header === undefined || header.trim() === '') return MISSING;
  const name = schemeOf(header);
  if (name.toLowerCase() !== carrier.scheme) return { kind: 'other-scheme', scheme: name };
  const credential = header.trim().split(/ +/).slice(1).join(' ');
  if (carrier.scheme !== 'basic') return credential === '' ? MALFORMED : { kind: 'credential', credential };
  // RFC 7617 §2: base64 of user-id ":" password (the user-id holds no colon; the password may).
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(credential) ? Buffer.from(credential, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon < 0 ? MALFORMED : { kind: 'credential', credential: decoded, password: decoded.slice(colon + 1) };
}

/** Why a scheme's credential does not let a request through: what the request presented, or a server's refusal of a well-formed one. */
export type CredentialFault = Exclude<PresentedCredential, Credential> | { kind: 'refused'; why: string };

/** Why a request presents no acceptable credentials for its operation (undefined from `credentialsFault`: it does). */
export interface CredentialsFault {
  /** The scheme whose fault is reported, and the fault. */
  scheme: SecurityScheme;
  fault: CredentialFault;
  /** A bearer scheme of some alternative was presented a token, malformed or refused (RFC 6750 §3: `error="invalid_token"`). */
  invalidToken: boolean;
}

/** A fault where the request put something (a malformed or refused credential), rather than nothing of the scheme. */
const presentedSomething = (fault: CredentialFault): boolean => fault.kind === 'malformed' || fault.kind === 'refused';

/**
 * The operation's security as OpenAPI 3.1 states it: the request passes (undefined) when any one
 * alternative has every scheme present a well-formed credential that `refusal` does not refuse
 * (`refusal` answers why; the judgments accept every well-formed credential, the mock applies its
 * `--token` and `--reject-token`). Else the fault reported is the first alternative's, unless a later
 * one found something presented (malformed or refused), which says more than a credential missing.
 */
export function credentialsFault(
  security: OperationSecurity,
  headers: RequestHeaders,
  search: string,
  refusal?: (credential: Credential) => string | undefined,
): CredentialsFault | undefined {
  if (!security.secured) return undefined;
  let reported: { scheme: SecurityScheme; fault: CredentialFault } | undefined;
  let invalidToken = false;
  for (const alternative of security.alternatives) {
    let failed: { scheme: SecurityScheme; fault: CredentialFault } | undefined;
    for (const scheme of alternative) {
      const presented = presentedCredential(scheme, headers, search);
      const why = presented.kind === 'credential' ? refusal?.(presented) : undefined;
      if (presented.kind === 'credential' && why === undefined) continue;
      failed = { scheme, fault: presented.kind === 'credential' ? { kind: 'refused', why: why ?? '' } : presented };
      break;
    }
    if (failed === undefined) return undefined;
    if (failed.scheme.carrier.kind === 'authorization' && failed.scheme.carrier.scheme === 'bearer' && presentedSomething(failed.fault))
      invalidToken = true;
    if (reported === undefined || (presentedSomething(failed.fault) && !presentedSomething(reported.fault))) reported = failed;
  }
  return reported === undefined ? undefined : { ...reported, invalidToken };
}

/** The request's query (`?a=1`, or empty), from its path as sent. */
export function requestSearch(request: JudgedRequest): string {
  const at = request.path.indexOf('?');
  return at < 0 ? '' : request.path.slice(at);
}

/**
 * What a request presents for its operation's security, as a judge of the server's answer reads it:
 * `nothing` (no alternative whole, and nothing malformed: no 2xx may answer it), `malformed` (something
 * presented in no scheme's syntax: a server may read it leniently), or `well-formed` (an alternative
 * whole; `bearer`: a well-formed bearer token among what was sent, which a 401 calls `invalid_token`,
 * RFC 6750 §3). The proxy cannot tell a well-formed credential accepted from one rejected.
 */
export type SecurityPresented = { kind: 'nothing' } | { kind: 'malformed' } | { kind: 'well-formed'; bearer: boolean };

export function securityPresented(request: JudgedRequest, security: OperationSecurity): SecurityPresented {
  const search = requestSearch(request);
  const found = credentialsFault(security, request.headers, search);
  if (found !== undefined) return presentedSomething(found.fault) ? { kind: 'malformed' } : { kind: 'nothing' };
  const bearer = schemesOf(security).some(
    (s) =>
      s.carrier.kind === 'authorization' &&
      s.carrier.scheme === 'bearer' &&
      presentedCredential(s, request.headers, search).kind === 'credential',
  );
  return { kind: 'well-formed', bearer };
}

/**
 * Spec fact 1: the request addresses an operation of the contract. `allowed`: the methods of its
 * path when the path is the contract's but the method is not (undefined: the path is none of the contract's).
 */
export function judgeKnownOperation(exchange: JudgedExchange, allowed?: readonly string[]): Violation[] {
  const { request } = exchange;
  if (request.target !== undefined && request.target !== 'server') return [];
  if (allowed)
    return [
      {
        rule: REQUEST.operation,
        in: 'method',
        expected: `one of ${allowed.join(', ')}`,
        reason: `${request.method} is not an operation of this path (it has ${allowed.join(', ')})`,
      },
    ];
  return [
    { rule: REQUEST.operation, in: 'path', expected: 'a path of the contract', reason: 'the path names no operation of the contract' },
  ];
}

/** What a scheme wants sent (`Authorization: Bearer <token>`, `an API key in the header x-api-key`). */
function wanted(scheme: SecurityScheme): string {
  const carrier = scheme.carrier;
  if (carrier.kind === 'apiKey') return `an API key in the ${carrier.in} ${carrier.name}`;
  return `${carrierText(carrier)} <${carrier.scheme === 'basic' ? 'base64 of user:password' : 'token'}>`;
}

/** A credential fault of one scheme, in a violation's words. */
function faultReason(scheme: SecurityScheme, fault: CredentialFault): string {
  const carrier = scheme.carrier;
  const name = carrier.kind === 'authorization' ? carrierText(carrier).slice('Authorization: '.length) : '';
  switch (fault.kind) {
    case 'missing':
      return carrier.kind === 'apiKey' ? `no API key in the ${carrier.in} ${carrier.name}` : 'no Authorization header';
    case 'other-scheme':
      return `the Authorization scheme is not ${name}`;
    case 'malformed':
      if (name === 'Bearer') return 'the bearer token is not an RFC 6750 b64token';
      if (name === 'Basic') return 'the Basic credentials are not base64 of user:password (RFC 7617)';
      return `no credentials after the ${name} scheme`;
    case 'refused':
      return fault.why;
  }
}

/**
 * Spec (Authentication): the request presents the credentials its operation's security states, each
 * in its scheme's syntax (for the specification's bearer scheme `Authorization: Bearer <b64token>`,
 * RFC 6750). Whether a server accepts a well-formed credential is not the client's fault to judge.
 */
export function judgeCredentialsSent(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  const { security } = jc.model.get(op);
  const { request } = exchange;
  const found = credentialsFault(security, request.headers, requestSearch(request));
  if (found === undefined) return [];
  const expected = security.alternatives.map((a) => a.map(wanted).join(' and ')).join(', or ');
  const reason = faultReason(found.scheme, found.fault);
  const carrier = found.scheme.carrier;
  // Where the credential was looked for: a query parameter is in the request's path; the rest in a header.
  if (carrier.kind === 'apiKey' && carrier.in === 'query') return [{ rule: REQUEST.bearer, in: 'path', expected, reason }];
  const header = carrier.kind === 'authorization' ? 'authorization' : carrier.in === 'cookie' ? 'cookie' : carrier.name;
  return [{ rule: REQUEST.bearer, in: 'header', header, expected, reason }];
}

// ---- the body's media type ----------------------------------------------------------------------

/**
 * Why a request's Content-Type is refused for a JSON body of media type `wanted` (undefined: accepted).
 *
 * The charset rule: a `charset` parameter naming UTF-8 (`utf-8` in any letter case, quoted or not) is
 * accepted, one naming any other encoding is refused (415). RFC 8259 §8.1: JSON text exchanged between
 * systems that are not part of a closed ecosystem MUST be UTF-8, and its registration (§11) defines no
 * charset parameter ("adding one really has no effect on compliant recipients"). So `charset=utf-8`
 * states what is true anyway and is accepted, as the contract's profile says ("charset parameter
 * allowed", the suite's `charset-accepted` check). A request declaring another encoding (ISO-8859-1,
 * UTF-16) declares content that is not JSON as RFC 8259 lets it be exchanged; read as UTF-8 regardless,
 * every character past ASCII would be mangled, or refused as invalid UTF-8, without saying why. It is
 * content in a form the operation does not take: 415 (RFC 9110 §15.5.16) with the reason, on the mock
 * and as a client violation in the validating proxy (Express's JSON parser refuses it with 415 as well).
 * The suite asks nothing of a server for other charsets: a server that accepts them fails no check.
 */
export type MediaTypeFault =
  /** No Content-Type, or an empty one. */
  | { kind: 'missing' }
  /** A Content-Type that is no media type (RFC 9110 §8.3.1). */
  | { kind: 'malformed' }
  /** Another media type (`type`: lower case, without parameters). */
  | { kind: 'other-type'; type: string }
  /** The media type with a charset other than UTF-8 (`charset` as sent). */
  | { kind: 'charset'; charset: string };

const NO_TYPE: MediaTypeFault = { kind: 'missing' };
const BAD_TYPE: MediaTypeFault = { kind: 'malformed' };

export function mediaTypeFault(header: string | undefined, wanted: string): MediaTypeFault | undefined {
  if (header === wanted) return undefined; // the common case, without parsing
  if (header === undefined || header.trim() === '') return NO_TYPE;
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header);
  } catch {
    return BAD_TYPE;
  }
  if (parsed.type !== wanted) return { kind: 'other-type', type: parsed.type };
  const charset = parsed.parameters['charset'];
  return charset !== undefined && charset.toLowerCase() !== 'utf-8' ? { kind: 'charset', charset } : undefined;
}

/** Spec (endpoints): the body of an operation that takes a JSON one is of its JSON media type (see `mediaTypeFault`). */
export function judgeRequestMediaType(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  const wanted = jc.model.get(op).requestMediaType;
  if (wanted === undefined) return [];
  const header = exchange.request.headers['content-type'];
  const fault = mediaTypeFault(header, wanted);
  if (fault === undefined) return [];
  const reason =
    fault.kind === 'missing'
      ? `no Content-Type; send ${wanted}`
      : fault.kind === 'malformed'
        ? `${header ?? ''} is not a media type`
        : fault.kind === 'other-type'
          ? `${fault.type} is not ${wanted}`
          : `charset=${fault.charset}: JSON text is UTF-8 (RFC 8259 §8.1)`;
  return [{ rule: REQUEST.mediaType, in: 'header', header: 'content-type', expected: `Content-Type ${wanted}`, reason }];
}

// ---- the body: JSON text ----------------------------------------------------------------------

/** Why a request body is not one JSON text (RFC 8259): a class, so a parsed value and a fault are told apart with no wrapper per request. */
export class JsonBodyFault {
  constructor(
    readonly kind: 'empty' | 'not-utf8' | 'not-json' | 'too-deep',
    /** The parser's message (`not-json`). */
    readonly reason = '',
  ) {}
}

const EMPTY_BODY = new JsonBodyFault('empty');
const NOT_UTF8 = new JsonBodyFault('not-utf8');
const TOO_DEEP = new JsonBodyFault('too-deep');

/**
 * The JSON value a request body carries, or a `JsonBodyFault`: the body is UTF-8 (RFC 8259 §8.1; a
 * byte order mark at its start is ignored, as §8.1 allows a parser to) and one JSON text. One UTF-8
 * check and one `JSON.parse`, nothing else: the mock's create path reads every body through this.
 * `maxDepth`: a reader's limit, checked before parsing (`too-deep` past it; no limit without it): a
 * megabyte of `[` is half a million arrays once parsed, a third of a second of one core.
 */
export function parseJsonBody(body: Buffer | string, maxDepth?: number): unknown {
  if (body.length === 0) return EMPTY_BODY;
  let text: string;
  if (typeof body === 'string') text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  else if (!isUtf8(body)) return NOT_UTF8;
  else text = body.toString('utf8', body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0);
  if (maxDepth !== undefined && nestsDeeperThan(text, maxDepth)) return TOO_DEEP;
  // JSON.parse itself rather than util/json's parseJsonText: no result object per request (a request body is bounded by its reader).
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new JsonBodyFault('not-json', messageOf(error));
  }
}

/** The request body parsed as JSON (the value the request carries when its builder parsed it already), or why it is not JSON (undefined: no body). */
export function requestJson(request: JudgedRequest): { value: unknown } | { problem: string } | undefined {
  if (request.json !== undefined) return request.json;
  if (request.body === undefined || request.body.length === 0) return undefined;
  const parsed = parseJsonBody(request.body);
  if (!(parsed instanceof JsonBodyFault)) return { value: parsed };
  return { problem: parsed.kind === 'not-utf8' ? 'the body is not UTF-8' : `the body is not JSON (${parsed.reason})` };
}

/** Spec (endpoints): the body of an operation that takes a JSON one is present and JSON. */
export function judgeRequestJson(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  if (jc.model.get(op).requestRef === undefined) return [];
  const parsed = requestJson(exchange.request);
  const problem = parsed === undefined ? 'the body is empty' : 'problem' in parsed ? parsed.problem : undefined;
  return problem === undefined ? [] : [{ rule: REQUEST.json, in: 'body', pointer: '', expected: 'a JSON body', reason: problem }];
}

// ---- the body: its schema -----------------------------------------------------------------------

/** The validator of an operation's JSON request body in a compiled contract (its schema, named or inline); undefined without one. */
export function requestValidator(compiled: CompiledContract, op: Pick<OperationModel, 'requestRef'>): Validator | undefined {
  return op.requestRef === undefined ? undefined : compiled.validator({ $ref: op.requestRef });
}

/**
 * Spec (resources), profile at strict: the JSON request body is of the operation's request schema at
 * `level` (`requestValidator`); one violation per JSON pointer into the request body (every problem reported).
 */
export function judgeRequestSchema(exchange: JudgedExchange, jc: JudgeContext, op: OperationId, level: Level = jc.level): Violation[] {
  const model = jc.model.get(op);
  const validate = requestValidator(jc.contracts[level], model);
  const parsed = validate === undefined ? undefined : requestJson(exchange.request);
  if (validate === undefined || parsed === undefined || 'problem' in parsed) return [];
  return schemaValid(
    parsed.value,
    validate,
    REQUEST.schema,
    `a ${model.requestSchema ?? 'request'} request body (${level} level)`,
    'the request body',
  );
}
