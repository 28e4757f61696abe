/**
 * The ONE place where the proxy applies judgments to an exchange: the adapter between traffic seen on
 * the wire and the suite's pure judgments (`judgments/`). It reads the contract once (both levels
 * compiled, the operations model), finds the operation a request names (the mock's router), turns
 * the seen exchange into the judgments' `JudgedExchange` (bodies decompressed and parsed once), runs
 * the observations of the registered checks (`judgments.ts`, from `checks/index.ts`) at the chosen level, and returns the violations, client ones first.
 */
import { isObject, listOperations, type JsonObject, type OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import type { OperationsModel } from '../../contract/operations-model.js';
import { decodeContent, judgeContexts, jsonOf, JsonBodyFault, parseJsonBody, type JudgedExchange } from '../../judgments/index.js';
import { MAX_BODY_DEPTH } from '../body.js';
import { createRouter, type RouteResult } from '../router.js';
import { MAX_JUDGED_BYTES, UNKNOWN_OPERATION, type Place, type ProxyExchange, type Violation } from './exchange.js';
import type { CheckModule } from '../../checks/define.js';
import { deepFreeze } from '../../util/frozen.js';
import { JUDGMENTS, observationsOf, type Finding, type ProxyJudgeInput } from './judgments.js';

export interface Judge {
  level: Level;
  /** The violations of one exchange at the judge's level (client problems first). */
  judge(exchange: ProxyExchange): Violation[];
  /** The violations at another level (the recorder judges order-info answers at `strict`). */
  judgeAt(exchange: ProxyExchange, level: Level): Violation[];
  /** The operation a request names (`unknown` when none). */
  operationOf(method: string, target: string): string;
  /** Whether the request's path is one of the contract's, whatever the method (`method`: the one about to be judged, routed once). */
  pathInContract(target: string, method?: string): boolean;
  /** The judgments run at the judge's level: id, side, level, rule. */
  judgments: { id: string; side: string; level: Level; rule: string }[];
  /** The contract's operationIds. */
  operations: string[];
  /** The operations model (how an order-info answer names its order and lots, the creates' members). */
  model: OperationsModel;
}

/** Lot numbers remembered (lot id → number, for the `x-default-from` default); the oldest go first. */
const MAX_LOTS = 10_000;

/** The body's bytes, a compressed one (Content-Encoding gzip, deflate, br) decompressed; undefined when it cannot be. */
function decoded(body: Buffer, encoding: string | undefined): Buffer | undefined {
  return body.length === 0 ? body : decodeContent(body, encoding, MAX_JUDGED_BYTES).bytes;
}

/**
 * An answer body parsed once and remembered (the last one of each operation, up to this many UTF-16
 * code units): a read answered with the same text again (the same order read again, the recorder's
 * second judging of an exchange) is not parsed again, and the same bytes are not decoded again. Parsing
 * was most of judging a read.
 */
const MAX_REMEMBERED_ANSWER = 256 * 1024;

interface ParsedAnswer {
  /**
   * The bytes the text was decoded from (a copy), kept once the same text came a second time: the same
   * bytes again are then not decoded again. An answer that never repeats (a create's) costs no copy.
   */
  bytes?: Buffer;
  text: string;
  /** Frozen (every object in it) once it is handed out a second time: judgments only read what they judge. */
  json: ReturnType<typeof jsonOf>;
}

/** Where a shared judgment's violation is, in the proxy's terms. */
function placeOf(finding: Finding): { in: Place; pointer: string } {
  if (finding.header !== undefined) return { in: 'header', pointer: finding.header };
  if (finding.in !== undefined) return { in: finding.in, pointer: finding.pointer ?? '' };
  return finding.pointer !== undefined ? { in: 'body', pointer: finding.pointer } : { in: 'status', pointer: '' };
}

/** `checks`: the check modules whose observations it applies (default: every registered one). */
export function createJudge(source: OpenApiDocument, level: Level, checks?: readonly CheckModule[]): Judge {
  const judgments = checks === undefined ? JUDGMENTS : observationsOf(checks);
  const contexts = judgeContexts(source);
  const { model, contracts } = contexts.strict;
  // Every body schema the judgments can ask for, at both levels, compiled now: compiled at an
  // operation's first exchange instead, it held the event loop (and every answer being forwarded) for
  // tens of milliseconds, hundreds on a busy host.
  for (const compiled of Object.values(contracts))
    compiled.precompile(
      listOperations(compiled.document).flatMap((op) => [
        ...(op.requestBody?.content.values() ?? []),
        ...op.responses.flatMap((r) => [...r.content.values()]),
      ]),
    );
  const router = createRouter(listOperations(contracts.strict.document));
  const lotNumbers = new Map<number, string>();
  const lastAnswers = new Map<string, ParsedAnswer>();
  /** The text of an answer's `bytes`: the remembered answer's own string when they are its bytes. */
  const answerText = (operation: string, bytes: Buffer): string => {
    const last = lastAnswers.get(operation);
    return last?.bytes !== undefined && last.bytes.equals(bytes) ? last.text : bytes.toString('utf8');
  };
  /** What `jsonOf` makes of `answer` (decoded from `bytes`), remembered per operation (see MAX_REMEMBERED_ANSWER). */
  const parsedAnswer = (operation: string, answer: NonNullable<JudgedExchange['answer']>, bytes: Buffer): ParsedAnswer['json'] => {
    const last = lastAnswers.get(operation);
    if (last !== undefined && last.text === answer.text) {
      last.bytes ??= Buffer.from(bytes);
      deepFreeze(last.json);
      return last.json;
    }
    const json = jsonOf(answer, '');
    if (answer.text.length <= MAX_REMEMBERED_ANSWER) lastAnswers.set(operation, { text: answer.text, json });
    return json;
  };

  // The last request routed: judging one exchange asks for it three times (its path, its operation, the judgments).
  let last: { method: string; target: string; routed: RouteResult } | undefined;
  const route = (method: string, target: string): RouteResult => {
    if (last !== undefined && last.method === method && last.target === target) return last.routed;
    const pathname = target.split('?', 1)[0] ?? '/';
    let routed: RouteResult;
    try {
      routed = router.route(method, pathname);
    } catch {
      routed = { kind: 'not-found' }; // undecodable percent-encoding names no resource
    }
    last = { method, target, routed };
    return routed;
  };

  /** Learns lot id → lot number from an order-info answer (for the `lotnumber` default). */
  const learnLots = (body: unknown): void => {
    if (model.order === undefined) return;
    const { lotsMember, lotIdMember, lotNumberMember } = model.order;
    const lots = isObject(body) ? body[lotsMember] : undefined;
    if (!Array.isArray(lots)) return;
    for (const lot of lots) {
      const id = isObject(lot) ? lot[lotIdMember] : undefined;
      const number = isObject(lot) ? lot[lotNumberMember] : undefined;
      if (typeof id !== 'number' || typeof number !== 'string') continue;
      if (lotNumbers.size >= MAX_LOTS && !lotNumbers.has(id)) {
        const oldest = lotNumbers.keys().next();
        if (!oldest.done) lotNumbers.delete(oldest.value);
      }
      lotNumbers.set(id, number);
    }
  };

  const judgeAt = (exchange: ProxyExchange, at: Level): Violation[] => {
    const routed = route(exchange.method, exchange.target);
    const op = routed.kind === 'operation' ? routed.operation.operationId : undefined;
    const requestBytes = decoded(exchange.request.body, exchange.request.headers['content-encoding']);
    const answerBytes = exchange.answer.complete ? decoded(exchange.answer.body, exchange.answer.headers['content-encoding']) : undefined;
    // An answer whose Content-Encoding cannot be read is judged on its raw bytes (not JSON: the schema judgment says so).
    const textBytes = answerBytes ?? (exchange.answer.complete ? exchange.answer.body : Buffer.alloc(0));
    const name = op ?? UNKNOWN_OPERATION;
    const text = exchange.answer.complete ? answerText(name, textBytes) : textBytes.toString('utf8');
    // Built as literals with optional members assigned after (not spread in): spreading conditional objects
    // made these the costliest lines of judging.
    const request: JudgedExchange['request'] = { method: exchange.method, path: exchange.target, headers: exchange.request.headers };
    if (op !== undefined) request.target = op;
    const requestBody = requestBytes === undefined ? exchange.request.body : requestBytes.length > 0 ? requestBytes : undefined;
    if (requestBody !== undefined) request.body = requestBody;
    const answer: NonNullable<JudgedExchange['answer']> = {
      status: exchange.answer.status,
      headers: exchange.answer.headers,
      text,
    };
    // Each body is parsed once, here, with the judgments' own parsers; the judgments read the parsed value
    // (a request body that is no JSON text they find again, and word).
    // A request body nesting deeper than the mock parses one (MAX_BODY_DEPTH) is not parsed, and so not judged,
    // as one longer than MAX_JUDGED_BYTES: parsing a megabyte of nested `[` held the event loop 0.3 s.
    let requestComplete = exchange.request.complete;
    if (requestComplete && requestBody !== undefined && requestBody.length > 0) {
      const parsed = parseJsonBody(requestBody, MAX_BODY_DEPTH);
      if (!(parsed instanceof JsonBodyFault)) request.json = { value: parsed };
      else if (parsed.kind === 'too-deep') requestComplete = false;
    }
    const answerJson = exchange.answer.complete ? parsedAnswer(name, answer, textBytes) : undefined;
    if (answerJson && 'value' in answerJson) answer.json = answerJson;
    const judged: JudgedExchange = { request, answer };
    const sent = request.json !== undefined && isObject(request.json.value) ? request.json.value : undefined;
    const answerBody = answerJson && 'value' in answerJson ? answerJson.value : undefined;
    let lot: JsonObject | undefined;
    const lotMember = op !== undefined && model.isCreate(op) ? model.create(op).recordModel?.lotMember : undefined;
    const lotId = lotMember !== undefined ? sent?.[lotMember] : undefined;
    const lotNumber = typeof lotId === 'number' ? lotNumbers.get(lotId) : undefined;
    if (lotNumber !== undefined && model.order !== undefined)
      lot = { [model.order.lotIdMember]: lotId ?? null, [model.order.lotNumberMember]: lotNumber };
    const clientRules = new Set<string>();
    const input: ProxyJudgeInput = {
      exchange: judged,
      jc: contexts[at],
      params: routed.kind === 'operation' ? routed.params : {},
      requestComplete,
      answerComplete: exchange.answer.complete,
      clientRules,
    };
    if (op !== undefined) input.op = op;
    if (routed.kind === 'method-not-allowed') input.allow = routed.allow;
    if (sent !== undefined) input.sent = sent;
    if (answerBody !== undefined) input.answerBody = answerBody;
    if (lot !== undefined) input.lot = lot;
    const violations: Violation[] = [];
    for (const judgment of judgments) {
      if (judgment.level === 'strict' && at === 'spec') continue;
      for (const finding of judgment.judge(input)) {
        if (judgment.side === 'client') clientRules.add(judgment.id);
        violations.push({
          side: judgment.side,
          operation: name,
          rule: judgment.id,
          level: finding.level ?? judgment.level,
          ...placeOf(finding),
          reason: finding.reason,
        });
      }
    }
    if (op === model.orderInfo?.operationId && !violations.some((v) => v.side === 'server' && v.level === 'spec')) learnLots(answerBody);
    return violations;
  };

  return {
    level,
    judge: (exchange) => judgeAt(exchange, level),
    judgeAt,
    pathInContract(target, method = 'GET') {
      return route(method, target).kind !== 'not-found';
    },
    operationOf(method, target) {
      const routed = route(method, target);
      return routed.kind === 'operation' ? routed.operation.operationId : UNKNOWN_OPERATION;
    },
    judgments: judgments
      .filter((j) => level === 'strict' || j.level === 'spec')
      .map((j) => ({
        id: j.id,
        side: j.side,
        level: j.level,
        rule: j.rule,
      })),
    operations: model.operations.map((op) => op.operationId),
    model,
  };
}
