/**
 * The answers of the operations no other check judges the answers of: an operation the operations model
 * gives no resource meaning (a count, a report, a health endpoint: role `other`), or one on a resource the
 * suite cannot create records of. Each gets one valid request (its own credentials, its path and required
 * query parameters filled from their schemas, a valid body where it takes one), and its answer is judged
 * as the contract documents it: a 2xx answer's media type and body at spec, every answer's status,
 * media type and body at strict.
 */
import type { JsonObject, JsonValue } from '../../contract/document.js';
import type { OperationModel, OperationsModel, ParamModel } from '../../contract/operations-model.js';
import { is2xx } from '../../judgments/answer.js';
import { judgeDocumentedAnswer, judgeDocumentedStatus } from '../../judgments/documented.js';
import type { JudgeContext } from '../../judgments/exchange.js';
import { RECORDS } from '../../judgments/rules.js';
import type { CheckContext } from '../context.js';
import { baseBody, derivationOf } from '../data.js';
import type { Exchange } from '../http.js';
import { generated } from '../values/derive.js';
import type { CheckSource } from './helpers.js';
import type { Check } from './types.js';

/** The case every check of this file sends. */
const CASE = 'a valid request with valid credentials';

/** Whether other checks judge the answers of `op`: the order read, the creates, the operations on records the suite creates. */
function judgedElsewhere(model: OperationsModel, op: OperationModel): boolean {
  if (op === model.orderInfo || model.isCreate(op.operationId)) return true;
  const resource = op.resource !== undefined ? model.resource(op.resource) : undefined;
  return resource !== undefined && !resource.fixtures && resource.producers.length > 0 && op.role !== 'other';
}

/** A value of a parameter its schema accepts: its default, its first enum value, a generated one, else a plain one of its type. */
export function parameterValue(param: ParamModel, seed: number): string {
  const schema = param.schema;
  const candidates: (JsonValue | undefined)[] = [
    schema['default'],
    Array.isArray(schema['enum']) ? schema['enum'][0] : undefined,
    schema['const'],
    generated(schema, seed),
  ];
  const value = candidates.find((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  if (value !== undefined) return String(value);
  return param.type === 'integer' || param.type === 'number' ? '1' : param.type === 'boolean' ? 'true' : 'conformance';
}

/** The one request of an operation, shared by its spec and strict check. */
function validRequest(ctx: CheckContext, op: OperationModel): Promise<Exchange> {
  return ctx.memo(`documented/${op.operationId}`, async () => {
    const seed = ctx.config.seed;
    const params = Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, parameterValue(p, seed)]));
    const query = op.params.filter((p) => p.in === 'query' && p.required).map((p): [string, string] => [p.name, parameterValue(p, seed)]);
    let body: JsonObject | undefined;
    if (op.requestRef !== undefined) body = baseBody(derivationOf(ctx.judge, op.operationId), (await ctx.lots())[0]?.id);
    return ctx.request(op.operationId, {
      params,
      query,
      ...(body !== undefined ? { body } : {}),
      write: op.method !== 'GET' && op.method !== 'HEAD',
    });
  });
}

/** The spec and strict check of one operation's documented answers. */
function checksOfOperation(source: CheckSource, op: OperationModel): Check[] {
  const jc: JudgeContext = { ...source, level: 'strict' };
  const write = op.method !== 'GET' && op.method !== 'HEAD';
  const checks: Check[] = [];
  if (op.success.kind !== 'none')
    checks.push({
      id: `${op.operationId}.answer-shape`,
      level: 'spec',
      operations: [op.operationId],
      title: 'a 2xx answer to a valid request is of the documented media type, its body of the documented schema (the listed types)',
      rule: RECORDS.documented,
      write,
      cases: [CASE],
      async run(ctx, t) {
        await t.judge(
          CASE,
          () => validRequest(ctx, op),
          (exchange) =>
            exchange.answer !== undefined && is2xx(exchange.answer.status)
              ? judgeDocumentedAnswer(exchange, jc, op.operationId, 'spec')
              : [],
        );
      },
    });
  checks.push({
    id: `${op.operationId}.strict-shape`,
    level: 'strict',
    operations: [op.operationId],
    title: 'the answer to a valid request has a documented status, media type and body (every keyword of the strict schema)',
    rule: RECORDS.documented,
    write,
    cases: [CASE],
    async run(ctx, t) {
      await t.judge(
        CASE,
        () => validRequest(ctx, op),
        (exchange) => [
          ...judgeDocumentedStatus(exchange, jc, op.operationId),
          ...judgeDocumentedAnswer(exchange, jc, op.operationId, 'strict'),
        ],
      );
    },
  });
  return checks;
}

/** The documented-answer checks of every operation no other check judges the answers of. */
export function documentedChecks(source: CheckSource): Check[] {
  return source.model.operations.filter((op) => !judgedElsewhere(source.model, op)).flatMap((op) => checksOfOperation(source, op));
}
