/**
 * The ONE place where the proxy applies judgments to an exchange. It reads the contract once (both
 * levels compiled), finds the operation a request names, parses what the judgments look at, runs
 * the registered judgments (`judgments.ts`) at the chosen level, and returns the violations, client
 * ones first.
 */
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { parse as parseContentType } from 'content-type';
import {
  deref,
  isObject,
  listOperations,
  type JsonObject,
  type JsonValue,
  type OpenApiDocument,
  type OperationSpec,
} from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import { compileContract, type CompiledContract, type FieldError } from '../../contract/schemas.js';
import { collectProperties, recordModel, type RecordModel } from '../record-model.js';
import { createRouter, type RouteResult } from '../router.js';
import { MAX_JUDGED_BYTES, UNKNOWN_OPERATION, type ProxyExchange, type Violation } from './exchange.js';
import { JUDGMENTS, type Credentials, type DocumentedResponse, type JudgeContext, type ParsedBody } from './judgments.js';

export interface Judge {
  level: Level;
  /** The violations of one exchange at the judge's level (client problems first). */
  judge(exchange: ProxyExchange): Violation[];
  /** The violations at another level (the recorder judges order-info answers at `strict`). */
  judgeAt(exchange: ProxyExchange, level: Level): Violation[];
  /** The operation a request names (`unknown` when none). */
  operationOf(method: string, target: string): string;
  /** Whether the request's path is one of the contract's (whatever the method). */
  pathInContract(target: string): boolean;
  /** The judgments run at the judge's level: id, side, level, rule. */
  judgments: { id: string; side: string; level: Level; rule: string }[];
  /** The contract's operationIds. */
  operations: string[];
  /** How an order-info answer names its order and lots (read from the contract). */
  links: OrderLinks;
}

/**
 * How an order-info answer links to the request: the member holding the order header and its member
 * equal to the path parameter (`order` + `Number` for the parameter `number`), the id member of
 * created records and lots (the read-only integer), and the lot member creates default from
 * (`x-default-from: lot.lotNumber`). All read from the contract, none typed here.
 */
export interface OrderLinks {
  orderInfoOperation?: string;
  orderMember?: string;
  orderNumberMember?: string;
  idMember: string;
  lotNumberMember?: string;
  /** The member of a validation problem listing the problems (`errors`), and each entry's JSON-pointer member (`pointer`). */
  errorsMember?: string;
  pointerMember?: string;
  /** The request member of a create that names a lot (`fk_lot_id`). */
  lotMember?: string;
}

function orderLinks(doc: OpenApiDocument, operations: OperationSpec[], creates: RecordModel[]): OrderLinks {
  const idMember = creates.flatMap((m) => m.fields).find((f) => f.rule.kind === 'id')?.name ?? 'id';
  const from = creates.flatMap((m) => m.fields).find((f) => f.rule.kind === 'from-lot')?.rule;
  const links: OrderLinks = { idMember, ...(from?.kind === 'from-lot' ? { lotNumberMember: from.member } : {}) };
  const lotMember = creates[0]?.lotMember;
  if (lotMember !== undefined) links.lotMember = lotMember;
  // The validation problem: an array member whose items have a `format: json-pointer` member.
  for (const op of operations) {
    for (const response of op.responses) {
      for (const schema of response.content.values()) {
        for (const [member, memberSchema] of collectProperties(doc, schema)) {
          const items = deref(doc, memberSchema)?.['items'];
          for (const [name, itemSchema] of collectProperties(doc, items)) {
            if (deref(doc, itemSchema)?.['format'] === 'json-pointer') {
              links.errorsMember = member;
              links.pointerMember = name;
            }
          }
        }
      }
    }
  }
  const info = operations.find((op) => op.method === 'get' && op.pathParams.length === 1);
  const param = info?.pathParams[0];
  const schema = info?.responses.find((r) => r.status.startsWith('2'))?.content.get('application/json');
  if (!info || param === undefined || !schema) return links;
  links.orderInfoOperation = info.operationId;
  for (const [member, memberSchema] of collectProperties(doc, schema)) {
    const wanted = `${member}${param.charAt(0).toUpperCase()}${param.slice(1)}`;
    if (collectProperties(doc, memberSchema).has(wanted)) {
      links.orderMember = member;
      links.orderNumberMember = wanted;
    }
  }
  return links;
}

const MAX_LOTS = 10_000;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

function credentialsOf(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') return 'missing';
  if ((/^\S+/.exec(header)?.[0] ?? '').toLowerCase() !== 'bearer') return 'non-bearer';
  return BEARER.test(header) ? 'bearer' : 'malformed';
}

function mediaTypeOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  try {
    return parseContentType(header).type.toLowerCase();
  } catch {
    return header.split(';', 1)[0]?.trim().toLowerCase();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as JSON; a compressed answer (Content-Encoding gzip, deflate, br) is decompressed first. */
function parseBody(body: Buffer, encoding: string | undefined): ParsedBody {
  let bytes = body;
  if (bytes.length === 0) return { kind: 'none' };
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  try {
    if (coding === 'gzip' || coding === 'x-gzip') bytes = gunzipSync(bytes, { maxOutputLength: MAX_JUDGED_BYTES });
    else if (coding === 'deflate') bytes = inflateSync(bytes, { maxOutputLength: MAX_JUDGED_BYTES });
    else if (coding === 'br') bytes = brotliDecompressSync(bytes, { maxOutputLength: MAX_JUDGED_BYTES });
    else if (coding !== 'identity') return { kind: 'invalid', reason: `Content-Encoding ${coding} cannot be read` };
  } catch (error) {
    return { kind: 'invalid', reason: `the ${coding} body cannot be decoded: ${(error as Error).message}` };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: 'invalid', reason: 'the body is not UTF-8' };
  }
  try {
    return { kind: 'json', value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { kind: 'invalid', reason: `the body is not JSON (${(error as Error).message})` };
  }
}

interface LevelModel {
  compiled: CompiledContract;
  operations: Map<string, OperationSpec>;
}

function levelModel(source: OpenApiDocument, level: Level): LevelModel {
  const compiled = compileContract(source, level);
  return { compiled, operations: new Map(listOperations(compiled.document).map((op) => [op.operationId, op])) };
}

/** The response the contract documents for a status: exact code, then `2XX`-style range, then `default`. */
function documented(model: LevelModel, op: OperationSpec | undefined, status: number): DocumentedResponse | undefined {
  const levelOp = op ? model.operations.get(op.operationId) : undefined;
  if (!levelOp) return undefined;
  const code = String(status);
  const spec =
    levelOp.responses.find((r) => r.status === code) ??
    levelOp.responses.find((r) => r.status.toUpperCase() === `${code[0] ?? ''}XX`) ??
    levelOp.responses.find((r) => r.status === 'default');
  if (!spec) return undefined;
  const doc = model.compiled.document;
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  const item = deref(doc, paths[levelOp.path]);
  const operation = isObject(item?.[levelOp.method]) ? (item[levelOp.method] as JsonObject) : undefined;
  const responses = isObject(operation?.['responses']) ? operation['responses'] : {};
  const response = deref(doc, responses[spec.status]);
  const headers: DocumentedResponse['headers'] = new Map();
  if (isObject(response?.['headers'])) {
    for (const [name, value] of Object.entries(response['headers'])) {
      const header = deref(doc, value);
      if (!header) continue;
      const schema = header['schema'];
      const validate = isObject(schema) ? model.compiled.validator(schema) : undefined;
      headers.set(name.toLowerCase(), {
        required: header['required'] === true,
        problems: (v) =>
          validate ? validate(v).map((e) => ({ pointer: e.pointer, detail: `${e.detail} (value ${JSON.stringify(v.slice(0, 60))})` })) : [],
      });
    }
  }
  return { status: spec.status, content: spec.content, headers };
}

export function createJudge(source: OpenApiDocument, level: Level): Judge {
  const models: Record<Level, LevelModel> = { spec: levelModel(source, 'spec'), strict: levelModel(source, 'strict') };
  const strictOps = [...models.strict.operations.values()];
  const router = createRouter(strictOps);
  const createModels = new Map<string, RecordModel>();
  for (const op of strictOps) {
    const requestSchema = op.requestBody?.content.get('application/json');
    const answer = op.responses.find((r) => r.status.startsWith('2'))?.content.get('application/json');
    if (requestSchema && answer) {
      try {
        createModels.set(op.operationId, recordModel(models.strict.compiled.document, op.operationId, requestSchema, answer));
      } catch {
        // An operation whose answer the record model cannot describe: echo and defaults are not judged for it.
      }
    }
  }
  const lotNumbers = new Map<number, string>();
  const links = orderLinks(models.strict.compiled.document, strictOps, [...createModels.values()]);
  const lotNumberMember = links.lotNumberMember;

  // The documented response of (level, operation, status), worked out once: at most levels × operations × 500 entries.
  const documentedCache = new Map<string, DocumentedResponse | undefined>();
  const documentedOnce = (l: Level, op: OperationSpec | undefined, status: number): DocumentedResponse | undefined => {
    const key = `${l} ${op?.operationId ?? ''} ${status}`;
    if (!documentedCache.has(key)) documentedCache.set(key, documented(models[l], op, status));
    return documentedCache.get(key);
  };

  const route = (method: string, target: string): RouteResult => {
    const pathname = target.split('?', 1)[0] ?? '/';
    try {
      return router.route(method, pathname);
    } catch {
      return { kind: 'not-found' }; // undecodable percent-encoding names no resource
    }
  };

  /** Learns lot id → lot number from an order-info answer (for the `lotnumber` default). */
  const learnLots = (body: ParsedBody): void => {
    if (lotNumberMember === undefined || body.kind !== 'json' || !isObject(body.value)) return;
    for (const value of Object.values(body.value)) {
      if (!Array.isArray(value)) continue;
      for (const item of value) {
        const id = isObject(item) ? item[links.idMember] : undefined;
        const lotNumber = isObject(item) ? item[lotNumberMember] : undefined;
        if (typeof id !== 'number' || typeof lotNumber !== 'string') continue;
        if (lotNumbers.size >= MAX_LOTS && !lotNumbers.has(id)) {
          const oldest = lotNumbers.keys().next();
          if (!oldest.done) lotNumbers.delete(oldest.value);
        }
        lotNumbers.set(id, lotNumber);
      }
    }
  };

  const judgeAt = (exchange: ProxyExchange, at: Level): Violation[] => {
    const routed = route(exchange.method, exchange.target);
    const operation = routed.kind === 'operation' ? routed.operation : undefined;
    const requestBody = parseBody(exchange.request.body, exchange.request.headers['content-encoding']);
    const answerBody = exchange.answer.complete
      ? parseBody(exchange.answer.body, exchange.answer.headers['content-encoding'])
      : ({ kind: 'none' } as const);
    const requestErrors = new Map<Level, FieldError[] | undefined>();
    const answerErrors = new Map<Level, FieldError[] | undefined>();
    const responses = new Map<Level, DocumentedResponse | undefined>();
    const response = (l: Level): DocumentedResponse | undefined => {
      if (!responses.has(l)) responses.set(l, documentedOnce(l, operation, exchange.answer.status));
      return responses.get(l);
    };
    const clientRules = new Set<string>();
    const ctx: JudgeContext = {
      exchange,
      level: at,
      ...(operation ? { operation } : {}),
      ...(routed.kind === 'method-not-allowed' ? { allow: routed.allow } : {}),
      params: routed.kind === 'operation' ? routed.params : {},
      credentials: credentialsOf(exchange.request.headers['authorization']),
      ...(mediaTypeOf(exchange.request.headers['content-type']) !== undefined
        ? { requestMediaType: mediaTypeOf(exchange.request.headers['content-type']) ?? '' }
        : {}),
      requestBody,
      ...(mediaTypeOf(exchange.answer.headers['content-type']) !== undefined
        ? { answerMediaType: mediaTypeOf(exchange.answer.headers['content-type']) ?? '' }
        : {}),
      answerBody,
      requestSchemaErrors(l) {
        if (!requestErrors.has(l)) {
          const schema = operation
            ? models[l].operations.get(operation.operationId)?.requestBody?.content.get('application/json')
            : undefined;
          requestErrors.set(
            l,
            schema && requestBody.kind === 'json' && exchange.request.complete
              ? models[l].compiled.validator(schema)(requestBody.value)
              : undefined,
          );
        }
        return requestErrors.get(l);
      },
      response,
      answerSchemaErrors(l) {
        if (!answerErrors.has(l)) {
          const type = mediaTypeOf(exchange.answer.headers['content-type']);
          const schema = type !== undefined ? response(l)?.content.get(type) : undefined;
          answerErrors.set(l, schema && answerBody.kind === 'json' ? models[l].compiled.validator(schema)(answerBody.value) : undefined);
        }
        return answerErrors.get(l);
      },
      ...(operation && createModels.has(operation.operationId) ? { model: createModels.get(operation.operationId) } : {}),
      lotNumbers,
      links,
      clientRules,
    };
    const violations: Violation[] = [];
    const name = operation?.operationId ?? UNKNOWN_OPERATION;
    for (const judgment of JUDGMENTS) {
      if (judgment.level === 'strict' && at === 'spec') continue;
      for (const finding of judgment.judge(ctx)) {
        if (judgment.side === 'client') clientRules.add(judgment.id);
        violations.push({
          side: judgment.side,
          operation: name,
          rule: judgment.id,
          level: finding.level ?? judgment.level,
          in: finding.in,
          pointer: finding.pointer,
          reason: finding.reason,
        });
      }
    }
    if (operation && !violations.some((v) => v.side === 'server' && v.level === 'spec')) learnLots(answerBody);
    return violations;
  };

  return {
    level,
    judge: (exchange) => judgeAt(exchange, level),
    judgeAt,
    pathInContract(target) {
      return route('GET', target).kind !== 'not-found';
    },
    operationOf(method, target) {
      const routed = route(method, target);
      return routed.kind === 'operation' ? routed.operation.operationId : UNKNOWN_OPERATION;
    },
    judgments: JUDGMENTS.filter((j) => level === 'strict' || j.level === 'spec').map((j) => ({
      id: j.id,
      side: j.side,
      level: j.level,
      rule: j.rule,
    })),
    operations: strictOps.map((op) => op.operationId),
    links,
  };
}
