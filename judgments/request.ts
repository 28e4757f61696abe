/**
 * Judgments of a client's request (the client breaking the contract), for traffic the suite did not
 * send: a validating proxy tells the client's problems apart from the server's with these. Each is a
 * pure function of the request and the operation it addresses; pointers point into the request body.
 */
import { mediaTypeOf } from './answer.js';
import { schemaValid } from './answer.js';
import type { Level } from '../contract/levels.js';
import type { OperationId } from '../contract/operations-model.js';
import type { JudgeContext, JudgedExchange, JudgedRequest, Violation } from './exchange.js';
import { REQUEST } from './rules.js';
import { BEARER_CREDENTIALS } from '../util/bearer.js';
import { parseJsonText } from '../util/json.js';

/** How a request presents credentials, as RFC 6750 reads its Authorization header (`bearer`: a well-formed bearer token). */
export type PresentedCredentials = 'missing' | 'non-bearer' | 'malformed' | 'bearer';

export function presentedCredentials(request: JudgedRequest): PresentedCredentials {
  const header = request.headers['authorization'];
  if (header === undefined || header.trim() === '') return 'missing';
  if ((/^\S+/.exec(header)?.[0] ?? '').toLowerCase() !== 'bearer') return 'non-bearer';
  return BEARER_CREDENTIALS.test(header) ? 'bearer' : 'malformed';
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

/** Spec (Authentication): the request carries `Authorization: Bearer <b64token>`. */
export function judgeBearerSent(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  if (!jc.model.get(op).secured) return [];
  const presented = presentedCredentials(exchange.request);
  if (presented === 'bearer') return [];
  const reason = {
    missing: 'no Authorization header',
    'non-bearer': 'the Authorization scheme is not Bearer',
    malformed: 'the bearer token is not an RFC 6750 b64token',
  }[presented];
  return [{ rule: REQUEST.bearer, in: 'header', header: 'authorization', expected: 'Authorization: Bearer <token>', reason }];
}

/** The request's media type (lower case, without parameters), undefined without Content-Type. */
export function requestMediaType(request: JudgedRequest): string | undefined {
  return mediaTypeOf({ status: 0, headers: request.headers, text: '' });
}

/** Spec (endpoints): the body of an operation that takes one is `application/json` (parameters allowed). */
export function judgeRequestMediaType(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  if (jc.model.get(op).requestSchema === undefined) return [];
  const header = exchange.request.headers['content-type'];
  const type = requestMediaType(exchange.request);
  if (type === 'application/json') return [];
  return [
    {
      rule: REQUEST.mediaType,
      in: 'header',
      header: 'content-type',
      expected: 'Content-Type application/json',
      reason: header === undefined ? 'no Content-Type; send application/json' : `${type ?? header} is not application/json`,
    },
  ];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The request body parsed as JSON (the value the request carries when its builder parsed it already), or why it is not JSON (undefined: no body). */
export function requestJson(request: JudgedRequest): { value: unknown } | { problem: string } | undefined {
  return request.json ?? parseRequest(request.body);
}

function parseRequest(body: JudgedRequest['body']): { value: unknown } | { problem: string } | undefined {
  if (body === undefined || body.length === 0) return undefined;
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body);
  } catch {
    return { problem: 'the body is not UTF-8' };
  }
  const parsed = parseJsonText(text);
  return parsed.ok ? { value: parsed.value } : { problem: `the body is not JSON (${parsed.reason})` };
}

/** Spec (endpoints): the body of an operation that takes one is present and JSON. */
export function judgeRequestJson(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  if (jc.model.get(op).requestSchema === undefined) return [];
  const parsed = requestJson(exchange.request);
  const problem = parsed === undefined ? 'the body is empty' : 'problem' in parsed ? parsed.problem : undefined;
  return problem === undefined ? [] : [{ rule: REQUEST.json, in: 'body', pointer: '', expected: 'a JSON body', reason: problem }];
}

/**
 * Spec (resources), profile at strict: the JSON request body is an object of the operation's request
 * schema at `level`; one violation per JSON pointer into the request body (every problem reported).
 */
export function judgeRequestSchema(exchange: JudgedExchange, jc: JudgeContext, op: OperationId, level: Level = jc.level): Violation[] {
  const schema = jc.model.get(op).requestSchema;
  const parsed = requestJson(exchange.request);
  if (schema === undefined || parsed === undefined || 'problem' in parsed) return [];
  return schemaValid(
    parsed.value,
    jc.contracts[level].validator({ $ref: `#/components/schemas/${schema}` }),
    REQUEST.schema,
    `a ${schema} request body (${level} level)`,
    'the request body',
  );
}
