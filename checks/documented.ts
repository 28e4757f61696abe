/**
 * The answers of the operations no other check judges the answers of: an operation the operations model
 * gives no resource meaning (a count, a report, a health endpoint: role `other`), or one on a resource the
 * suite cannot create records of. Each gets one valid request (its own credentials, its path and required
 * query parameters filled from their schemas, a valid body where it takes one), and its answer is judged
 * as the contract documents it: a 2xx answer's media type and body at spec, every answer's status,
 * media type and body at strict. The bundled contract has no such operation; the self-test proves these
 * checks with the faults it derives from each success schema (`answer|<operation>|<pointer>|<keyword>`).
 */
import type { OperationId, OperationModel, OperationsModel } from '../contract/operations-model.js';
import { is2xx } from '../judgments/answer.js';
import { judgeDocumentedAnswer, judgeDocumentedStatus } from '../judgments/documented.js';
import type { JudgeContext } from '../judgments/exchange.js';
import { RECORDS } from '../judgments/rules.js';
import { defineCheck, type SuiteContext, type SuiteExchange } from './define.js';

/** The case every check of this module sends. */
const CASE = 'a valid request with valid credentials';

/** Whether other checks judge the answers of `op`: the order read, the creates, the operations on records the suite creates. */
function judgedElsewhere(model: OperationsModel, op: OperationModel): boolean {
  if (op === model.orderInfo || model.isCreate(op.operationId)) return true;
  const resource = op.resource !== undefined ? model.resource(op.resource) : undefined;
  return resource !== undefined && !resource.fixtures && resource.producers.length > 0 && op.role !== 'other';
}

const documented = (model: OperationsModel): OperationModel[] => model.operations.filter((op) => !judgedElsewhere(model, op));
const writes = (op: OperationId, model: OperationsModel): boolean => !['GET', 'HEAD'].includes(model.get(op).method);
/** The contract at strict whatever the run's level (the spec check asks for the spec level itself). */
const strict = <X extends SuiteExchange>(ctx: SuiteContext<X>): JudgeContext => ({ ...ctx.judge, level: 'strict' });

/** The one request of an operation, shared by its spec and strict check. */
function validRequest<X extends SuiteExchange>(ctx: SuiteContext<X>, id: OperationId): Promise<X> {
  return ctx.memo(`documented/${id}`, async () => {
    const op = ctx.model.get(id);
    const params = Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, ctx.parameterValue(p)]));
    const query = op.params.filter((p) => p.in === 'query' && p.required).map((p): [string, string] => [p.name, ctx.parameterValue(p)]);
    const body = op.requestRef !== undefined ? await ctx.exampleBody(id) : undefined;
    return ctx.request(id, { params, query, ...(body !== undefined ? { body } : {}), write: writes(id, ctx.model) });
  });
}

export const documentedAnswerShape = defineCheck({
  name: 'answer-shape',
  level: 'spec',
  operations: (model) => documented(model).flatMap((op) => (op.success.kind !== 'none' ? [op.operationId] : [])),
  title: 'a 2xx answer to a valid request is of the documented media type, its body of the documented schema (the listed types)',
  rule: RECORDS.documented,
  write: writes,
  cases: () => [CASE],
  async run(ctx, t, op) {
    await t.judge(
      CASE,
      () => validRequest(ctx, op),
      (exchange) =>
        exchange.answer !== undefined && is2xx(exchange.answer.status) ? judgeDocumentedAnswer(exchange, strict(ctx), op, 'spec') : [],
    );
  },
  faults: () => [],
});

export const documentedStrictShape = defineCheck({
  name: 'strict-shape',
  level: 'strict',
  operations: (model) => documented(model).map((op) => op.operationId),
  title: 'the answer to a valid request has a documented status, media type and body (every keyword of the strict schema)',
  rule: RECORDS.documented,
  write: writes,
  cases: () => [CASE],
  async run(ctx, t, op) {
    await t.judge(
      CASE,
      () => validRequest(ctx, op),
      (exchange) => [...judgeDocumentedStatus(exchange, strict(ctx), op), ...judgeDocumentedAnswer(exchange, strict(ctx), op, 'strict')],
    );
  },
  faults: () => [],
});
