/**
 * The proxy's judgments: each one small named function of one exchange (request and answer) that
 * returns what it finds broken, registered in the one list `JUDGMENTS`. A `client` judgment looks at
 * the request only (the client broke the contract); a `server` judgment looks at the answer, given the
 * request (the server broke it). `spec` judgments hold at both levels; `strict` ones only at `strict`.
 * Everything they know about the API comes from the contract through `JudgeContext` (judge.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { isObject, type JsonObject, type JsonValue, type OperationSpec } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import type { FieldError } from '../../contract/schemas.js';
import type { RecordModel } from '../record-model.js';
import type { Place, ProxyExchange, Side } from './exchange.js';
import type { OrderLinks } from './judge.js';

export interface Finding {
  in: Place;
  pointer: string;
  reason: string;
  /** Overrides the judgment's level for this finding (a schema problem only the strict schema finds). */
  level?: Level;
}

/** A body read as JSON: absent, JSON, or not JSON (with why). */
export type ParsedBody = { kind: 'none' } | { kind: 'json'; value: JsonValue } | { kind: 'invalid'; reason: string };

/** The bearer credentials of the request, as RFC 6750 reads them. */
export type Credentials = 'missing' | 'non-bearer' | 'malformed' | 'bearer';

/** What every judgment may read; built once per exchange by judge.ts. */
export interface JudgeContext {
  exchange: ProxyExchange;
  level: Level;
  /** The operation the request names (at the judged level), if any. */
  operation?: OperationSpec;
  /** Methods allowed on the path when the path is known but the method is not; undefined for an unknown path. */
  allow?: string[];
  params: Record<string, string>;
  credentials: Credentials;
  /** The request's media type (lower case, no parameters), or undefined without Content-Type. */
  requestMediaType?: string;
  requestBody: ParsedBody;
  answerMediaType?: string;
  answerBody: ParsedBody;
  /** Problems of the request body against the request schema, at the spec and at the judged level. */
  requestSchemaErrors(level: Level): FieldError[] | undefined;
  /** The documented response for the answer's status at a level (exact code, then `2XX`-style, then `default`). */
  response(level: Level): DocumentedResponse | undefined;
  /** Problems of the answer body against the documented schema of its status and media type, at a level. */
  answerSchemaErrors(level: Level): FieldError[] | undefined;
  /** The create model of the operation (strict contract): read-only members and defaults. */
  model?: RecordModel;
  /** Lot numbers by lot id, learnt from order-info answers that went through the proxy. */
  lotNumbers: ReadonlyMap<number, string>;
  /** How an order-info answer names its order (read from the contract). */
  links: OrderLinks;
  /** Whether the judged level found client problems of these kinds (filled before server judgments run). */
  clientRules: ReadonlySet<string>;
}

export interface DocumentedResponse {
  status: string;
  /** Media type → schema. */
  content: Map<string, JsonObject>;
  /** Header name (lower case) → { required, validate }. */
  headers: Map<string, { required: boolean; problems: (value: string) => FieldError[] }>;
}

export interface Judgment {
  id: string;
  level: Level;
  side: Side;
  /** One line: the rule, as the contract (README "spec-level facts" and profile table) states it. */
  rule: string;
  judge(ctx: JudgeContext): Finding[];
}

const is2xx = (status: number): boolean => status >= 200 && status <= 299;
const none: Finding[] = [];

const short = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** RFC 6901: one reference token. */
const token = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

function schemaFindings(errors: FieldError[] | undefined, specErrors: FieldError[] | undefined, level: Level): Finding[] {
  if (!errors) return none;
  const atSpec = new Set((specErrors ?? []).map((e) => `${e.pointer}\u0000${e.detail}`));
  return errors.map((e) => ({
    in: 'body' as const,
    pointer: e.pointer,
    reason: e.detail,
    level: level === 'strict' && !atSpec.has(`${e.pointer}\u0000${e.detail}`) ? ('strict' as const) : ('spec' as const),
  }));
}

// ---- the client's request ----------------------------------------------------------------------

const knownOperation: Judgment = {
  id: 'request.known-operation',
  level: 'spec',
  side: 'client',
  rule: "Spec fact 1: the operations exist at exactly the contract's methods and paths.",
  judge(ctx) {
    if (ctx.operation) return none;
    if (ctx.allow)
      return [
        { in: 'method', pointer: '', reason: `${ctx.exchange.method} is not an operation of this path (it has ${ctx.allow.join(', ')})` },
      ];
    return [{ in: 'path', pointer: '', reason: 'the path names no operation of the contract' }];
  },
};

const bearer: Judgment = {
  id: 'request.bearer',
  level: 'spec',
  side: 'client',
  rule: 'Spec fact 2: every operation requires bearer credentials (Authorization: Bearer <token>, RFC 6750).',
  judge(ctx) {
    if (!ctx.operation?.secured || ctx.credentials === 'bearer') return none;
    const reason = {
      missing: 'no Authorization header',
      'non-bearer': 'the Authorization scheme is not Bearer',
      malformed: 'the bearer token is not an RFC 6750 b64token',
    }[ctx.credentials];
    return [{ in: 'header', pointer: 'authorization', reason }];
  },
};

const mediaType: Judgment = {
  id: 'request.media-type',
  level: 'spec',
  side: 'client',
  rule: 'The request body of a create is application/json (a charset parameter is allowed).',
  judge(ctx) {
    const content = ctx.operation?.requestBody?.content;
    if (!content) return none;
    const type = ctx.requestMediaType;
    if (type !== undefined && content.has(type)) return none;
    return [
      {
        in: 'header',
        pointer: 'content-type',
        reason:
          type === undefined
            ? `no Content-Type; send ${[...content.keys()].join(' or ')}`
            : `${type} is not ${[...content.keys()].join(' or ')}`,
      },
    ];
  },
};

const requestJson: Judgment = {
  id: 'request.json',
  level: 'spec',
  side: 'client',
  rule: 'The request body of a create is JSON.',
  judge(ctx) {
    if (!ctx.operation?.requestBody || !ctx.exchange.request.complete) return none;
    if (ctx.requestBody.kind === 'none' && ctx.operation.requestBody.required)
      return [{ in: 'body', pointer: '', reason: 'the body is empty' }];
    if (ctx.requestBody.kind === 'invalid') return [{ in: 'body', pointer: '', reason: ctx.requestBody.reason }];
    return none;
  },
};

const requestSchema: Judgment = {
  id: 'request.body-schema',
  level: 'spec',
  side: 'client',
  rule: "The request body is an object of the contract's request schema (at strict: required members, no unknown member, bounds).",
  judge(ctx) {
    return schemaFindings(ctx.requestSchemaErrors(ctx.level), ctx.requestSchemaErrors('spec'), ctx.level);
  },
};

// ---- the server's answer -----------------------------------------------------------------------

const noTwoXxWithoutBearer: Judgment = {
  id: 'answer.auth-no-2xx',
  level: 'spec',
  side: 'server',
  rule: 'Spec fact 2: a request without bearer credentials (no Authorization, another scheme) gets no 2xx answer.',
  judge(ctx) {
    if (!ctx.operation?.secured || !is2xx(ctx.exchange.answer.status)) return none;
    if (ctx.credentials !== 'missing' && ctx.credentials !== 'non-bearer') return none;
    return [
      {
        in: 'status',
        pointer: '',
        reason: `answered ${ctx.exchange.answer.status} to a request ${ctx.credentials === 'missing' ? 'without Authorization' : 'with a non-Bearer scheme'}`,
      },
    ];
  },
};

const answerSchema: Judgment = {
  id: 'answer.schema',
  level: 'spec',
  side: 'server',
  rule: "Spec facts 3-5 (strict: the profile's answers): the answer is of a documented media type and its body matches the documented schema.",
  judge(ctx) {
    const response = ctx.response(ctx.level);
    if (!response || response.content.size === 0 || !ctx.exchange.answer.complete) return none;
    const type = ctx.answerMediaType;
    const specResponse = ctx.response('spec');
    const level: Level = specResponse && type !== undefined && specResponse.content.has(type) ? 'spec' : ctx.level;
    if (type === undefined || !response.content.has(type)) {
      return [
        {
          in: 'header',
          pointer: 'content-type',
          reason: `${type ?? 'no Content-Type'}, not ${[...response.content.keys()].join(' or ')}`,
          level: specResponse ? 'spec' : level,
        },
      ];
    }
    if (ctx.answerBody.kind === 'invalid') return [{ in: 'body', pointer: '', reason: ctx.answerBody.reason, level }];
    if (ctx.answerBody.kind === 'none') return [{ in: 'body', pointer: '', reason: 'the body is empty', level }];
    return schemaFindings(ctx.answerSchemaErrors(ctx.level), specResponse ? ctx.answerSchemaErrors('spec') : undefined, ctx.level);
  },
};

const exactOrder: Judgment = {
  id: 'answer.exact-order',
  level: 'spec',
  side: 'server',
  rule: 'Spec fact 3: a 2xx order-info answer describes the requested order (order.orderNumber equals the number).',
  judge(ctx) {
    const op = ctx.operation;
    if (!op || op.method !== 'get' || op.pathParams.length !== 1 || !is2xx(ctx.exchange.answer.status)) return none;
    if (ctx.answerBody.kind !== 'json' || !isObject(ctx.answerBody.value)) return none;
    const param = op.pathParams[0] ?? '';
    const { orderMember, orderNumberMember } = ctx.links;
    if (orderMember === undefined || orderNumberMember === undefined) return none;
    const inner = ctx.answerBody.value[orderMember];
    const requested = ctx.params[param];
    const answered = isObject(inner) ? inner[orderNumberMember] : undefined;
    if (answered === requested) return none;
    return [
      {
        in: 'body',
        pointer: `/${token(orderMember)}/${token(orderNumberMember)}`,
        reason: `is ${short(answered)}, the request asked for ${short(requested)}`,
      },
    ];
  },
};

const echo: Judgment = {
  id: 'answer.echo',
  level: 'spec',
  side: 'server',
  rule: 'Spec facts 4-5: a 2xx create answer is the created object: the members the client sent come back with the same values.',
  judge(ctx) {
    const model = ctx.model;
    if (!model || !is2xx(ctx.exchange.answer.status)) return none;
    if (ctx.requestBody.kind !== 'json' || !isObject(ctx.requestBody.value)) return none;
    if (ctx.answerBody.kind !== 'json' || !isObject(ctx.answerBody.value)) return none;
    const sent = ctx.requestBody.value;
    const answered = ctx.answerBody.value;
    const findings: Finding[] = [];
    for (const field of model.fields) {
      if (model.readOnly.includes(field.name) || !(field.name in sent)) continue;
      if (!isDeepStrictEqual(sent[field.name], answered[field.name])) {
        findings.push({
          in: 'body',
          pointer: `/${token(field.name)}`,
          reason: `is ${short(answered[field.name])}, the client sent ${short(sent[field.name])}`,
        });
      }
    }
    return findings;
  },
};

const statusDocumented: Judgment = {
  id: 'answer.status',
  level: 'strict',
  side: 'server',
  rule: 'Profile: every answer has a status the contract documents for the operation (order info 200, creates 201; errors 400/401/404/413/415/422).',
  judge(ctx) {
    const op = ctx.operation;
    if (!op || ctx.response('strict')) return none;
    return [
      {
        in: 'status',
        pointer: '',
        reason: `${ctx.exchange.answer.status} is not documented for ${op.operationId} (documented: ${op.responses.map((r) => r.status).join(', ')})`,
      },
    ];
  },
};

const unknownRoute: Judgment = {
  id: 'answer.unknown-route',
  level: 'strict',
  side: 'server',
  rule: 'Profile: an unknown path is answered 404; a known path with a wrong method 405 with an Allow header.',
  judge(ctx) {
    if (ctx.operation) return none;
    const { status, headers } = ctx.exchange.answer;
    if (!ctx.allow) return status === 404 ? none : [{ in: 'status', pointer: '', reason: `${status} to an unknown path, not 404` }];
    if (status !== 405) return [{ in: 'status', pointer: '', reason: `${status} to a wrong method, not 405` }];
    const allow = (headers['allow'] ?? '').split(',').map((m) => m.trim().toUpperCase());
    const missing = ctx.allow.filter((m) => !allow.includes(m));
    return missing.length === 0 ? none : [{ in: 'header', pointer: 'allow', reason: `Allow does not list ${missing.join(', ')}` }];
  },
};

const documentedHeaders: Judgment = {
  id: 'answer.headers',
  level: 'strict',
  side: 'server',
  rule: 'Profile: an answer carries the headers the contract requires for its status (401: WWW-Authenticate: Bearer ..., RFC 6750).',
  judge(ctx) {
    const response = ctx.response('strict');
    if (!response) return none;
    const findings: Finding[] = [];
    for (const [name, spec] of response.headers) {
      const value = ctx.exchange.answer.headers[name];
      if (value === undefined) {
        if (spec.required) findings.push({ in: 'header', pointer: name, reason: 'is required and missing' });
        continue;
      }
      for (const problem of spec.problems(value)) findings.push({ in: 'header', pointer: name, reason: problem.detail });
    }
    return findings;
  },
};

const authStatus: Judgment = {
  id: 'answer.auth-401',
  level: 'strict',
  side: 'server',
  rule: 'Profile: missing Authorization, a non-Bearer scheme, a malformed or rejected token → 401 with WWW-Authenticate: Bearer (error="invalid_token" for a rejected token).',
  judge(ctx) {
    if (!ctx.operation?.secured) return none;
    const { status, headers } = ctx.exchange.answer;
    if (ctx.credentials !== 'bearer') {
      if (is2xx(status) || status === 401) return none; // a 2xx is answer.auth-no-2xx
      return [
        {
          in: 'status',
          pointer: '',
          reason: `${status} to a request ${ctx.credentials === 'missing' ? 'without Authorization' : ctx.credentials === 'malformed' ? 'with a malformed token' : 'with a non-Bearer scheme'}, not 401`,
        },
      ];
    }
    if (status !== 401) return none;
    const challenge = headers['www-authenticate'] ?? '';
    if (/^Bearer\b/i.test(challenge) && !/error\s*=\s*"?invalid_token"?/i.test(challenge)) {
      return [
        {
          in: 'header',
          pointer: 'www-authenticate',
          reason: 'a 401 to a well-formed bearer token (a rejected token) needs error="invalid_token"',
        },
      ];
    }
    return none;
  },
};

const inputStatus: Judgment = {
  id: 'answer.input-status',
  level: 'strict',
  side: 'server',
  rule: 'Profile: a body not application/json → 415; malformed JSON or a body breaking the schema → 400; a body the contract accepts is never answered 400 or 415.',
  judge(ctx) {
    const op = ctx.operation;
    if (!op?.requestBody || ctx.credentials !== 'bearer' || !ctx.exchange.request.complete) return none;
    const { status } = ctx.exchange.answer;
    const expected = ctx.clientRules.has(mediaType.id)
      ? 415
      : ctx.clientRules.has(requestJson.id) || ctx.clientRules.has(requestSchema.id)
        ? 400
        : undefined;
    if (expected !== undefined)
      return status === expected
        ? none
        : [
            {
              in: 'status',
              pointer: '',
              reason: `${status} to a request the profile answers ${expected} (see the client problems of this exchange)`,
            },
          ];
    if (status === 400 || status === 415)
      return [{ in: 'status', pointer: '', reason: `${status} to a request whose body the contract accepts` }];
    return none;
  },
};

const problemStatus: Judgment = {
  id: 'answer.problem-status',
  level: 'strict',
  side: 'server',
  rule: 'Profile: every error is application/problem+json (RFC 9457) whose `status` is the HTTP status.',
  judge(ctx) {
    const { status } = ctx.exchange.answer;
    if (status < 400 || ctx.answerMediaType !== 'application/problem+json' || ctx.answerBody.kind !== 'json') return none;
    const body = ctx.answerBody.value;
    if (!isObject(body) || body['status'] === undefined || body['status'] === status) return none;
    return [{ in: 'body', pointer: '/status', reason: `is ${short(body['status'])}, the HTTP status is ${status}` }];
  },
};

const noServerError: Judgment = {
  id: 'answer.no-5xx',
  level: 'strict',
  side: 'server',
  rule: 'Strict: no 5xx; every request has a profile answer (2xx or 4xx).',
  judge(ctx) {
    const { status } = ctx.exchange.answer;
    return status >= 500 ? [{ in: 'status', pointer: '', reason: `answered ${status}` }] : none;
  },
};

const defaults: Judgment = {
  id: 'answer.defaults',
  level: 'strict',
  side: 'server',
  rule: 'Profile: members omitted from a create get their defaults (completed false; status "NEW"; notes ""; lotnumber = the lot\'s lotNumber).',
  judge(ctx) {
    const model = ctx.model;
    if (!model || !is2xx(ctx.exchange.answer.status)) return none;
    if (ctx.requestBody.kind !== 'json' || !isObject(ctx.requestBody.value)) return none;
    if (ctx.answerBody.kind !== 'json' || !isObject(ctx.answerBody.value)) return none;
    const sent = ctx.requestBody.value;
    const answered = ctx.answerBody.value;
    const findings: Finding[] = [];
    for (const field of model.fields) {
      if (field.name in sent) continue;
      let expected: JsonValue | undefined;
      if (field.rule.kind === 'default') expected = field.rule.value;
      else if (field.rule.kind === 'from-lot' && field.rule.member) {
        const lot = sent[model.lotMember];
        expected = typeof lot === 'number' ? ctx.lotNumbers.get(lot) : undefined;
      }
      if (expected === undefined || isDeepStrictEqual(answered[field.name], expected)) continue;
      findings.push({
        in: 'body',
        pointer: `/${token(field.name)}`,
        reason: `is ${short(answered[field.name])}, the default is ${short(expected)}`,
      });
    }
    return findings;
  },
};

const errorPointers: Judgment = {
  id: 'answer.error-pointers',
  level: 'strict',
  side: 'server',
  rule: 'Profile: a 400 lists every problem of the body in `errors[].pointer` (RFC 6901, one entry per problem); a 422 names the lot member.',
  judge(ctx) {
    const { errorsMember, pointerMember, lotMember } = ctx.links;
    const { status } = ctx.exchange.answer;
    if (!ctx.operation?.requestBody || errorsMember === undefined || pointerMember === undefined) return none;
    if ((status !== 400 && status !== 422) || ctx.answerBody.kind !== 'json' || !isObject(ctx.answerBody.value)) return none;
    const entries = ctx.answerBody.value[errorsMember];
    if (!Array.isArray(entries)) return none; // answer.schema reports a missing list
    const listed = new Set(entries.flatMap((e) => (isObject(e) && typeof e[pointerMember] === 'string' ? [e[pointerMember]] : [])));
    const wanted =
      status === 400
        ? [...new Set((ctx.requestSchemaErrors('strict') ?? []).map((e) => e.pointer))]
        : lotMember !== undefined
          ? [`/${token(lotMember)}`]
          : [];
    return wanted
      .filter((pointer) => !listed.has(pointer))
      .map((pointer) => ({
        in: 'body' as const,
        pointer: `/${token(errorsMember)}`,
        reason: `no entry has ${pointerMember} ${JSON.stringify(pointer)} (listed: ${[...listed].map((p) => JSON.stringify(p)).join(', ') || 'none'})`,
      }));
  },
};

/** Every judgment, client ones first (the server ones read which client rules were broken). */
export const JUDGMENTS: readonly Judgment[] = [
  knownOperation,
  bearer,
  mediaType,
  requestJson,
  requestSchema,
  noTwoXxWithoutBearer,
  answerSchema,
  exactOrder,
  echo,
  statusDocumented,
  unknownRoute,
  documentedHeaders,
  authStatus,
  inputStatus,
  problemStatus,
  noServerError,
  defaults,
  errorPointers,
];
