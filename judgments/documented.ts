/**
 * Judgments of an answer against what the contract documents for its operation and status (at a
 * level): the status is documented, the media type is one documented for it, the body matches the
 * documented schema (one violation per JSON pointer). These judge any answer, whichever request caused
 * it: the suite's own or traffic a proxy observed.
 */
import { listOperations, type JsonObject, type OperationSpec } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import type { OperationId } from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';
import { is2xx, jsonOf, mediaTypeOf, schemaValid } from './answer.js';
import { createFact } from './create.js';
import type { JudgeContext, JudgedExchange, Violation } from './exchange.js';
import { PROFILE, RECORDS, SPEC } from './rules.js';

/** The response the contract documents for a status: the exact code, then a `2XX`-style range, then `default`. */
export interface DocumentedResponse {
  /** As the contract writes it (`200`, `4XX`, `default`). */
  status: string;
  /** Media type → schema. */
  content: ReadonlyMap<string, JsonObject>;
}

const operationsOf = new WeakMap<CompiledContract, Map<string, OperationSpec>>();

function operationSpec(contract: CompiledContract, op: OperationId): OperationSpec | undefined {
  let byId = operationsOf.get(contract);
  if (!byId) {
    byId = new Map(listOperations(contract.document).map((spec) => [spec.operationId, spec]));
    operationsOf.set(contract, byId);
  }
  return byId.get(op);
}

export function documentedResponse(
  jc: JudgeContext,
  op: OperationId,
  status: number,
  level: Level = jc.level,
): DocumentedResponse | undefined {
  const spec = operationSpec(jc.contracts[level], op);
  if (!spec) return undefined;
  const code = String(status);
  const found =
    spec.responses.find((r) => r.status === code) ??
    spec.responses.find((r) => r.status.toUpperCase() === `${code[0] ?? ''}XX`) ??
    spec.responses.find((r) => r.status === 'default');
  return found ? { status: found.status, content: found.content } : undefined;
}

/** The roles of the operations on records (their answers are judged by the rule of record answers). */
const RECORD_ROLES = new Set(['read', 'list', 'update', 'action', 'delete']);

/** Profile (strict): the answer's status is one the contract documents for the operation. */
export function judgeDocumentedStatus(exchange: JudgedExchange, jc: JudgeContext, op: OperationId): Violation[] {
  const answer = exchange.answer;
  if (!answer || documentedResponse(jc, op, answer.status, 'strict')) return [];
  const documented = operationSpec(jc.contracts.strict, op)?.responses.map((r) => r.status) ?? [];
  return [
    {
      rule: PROFILE.documentedStatus,
      in: 'status',
      expected: `a documented status (${documented.join(', ')})`,
      reason: `${answer.status} is not documented for ${op}`,
    },
  ];
}

/**
 * The answer is of a media type documented for its status and its body matches that schema, at
 * `level` (spec facts 3-5 at spec; the profile's answers at strict). An answer whose status the level
 * does not document, or documents without a body, is not judged here (see judgeDocumentedStatus).
 */
export function judgeDocumentedAnswer(exchange: JudgedExchange, jc: JudgeContext, op: OperationId, level: Level = jc.level): Violation[] {
  const answer = exchange.answer;
  if (!answer) return [];
  const response = documentedResponse(jc, op, answer.status, level);
  if (!response || response.content.size === 0) return [];
  const rule = !is2xx(answer.status)
    ? PROFILE.problem
    : level === 'strict'
      ? PROFILE.formats
      : op === jc.model.orderInfo?.operationId
        ? SPEC.orderInfo
        : jc.model.isCreate(op)
          ? createFact(jc, op)
          : RECORD_ROLES.has(jc.model.operations.find((o) => o.operationId === op)?.role ?? 'other')
            ? RECORDS.answers
            : SPEC.operations;
  const type = mediaTypeOf(answer);
  const schema = type !== undefined ? response.content.get(type) : undefined;
  const wanted = (): string => [...response.content.keys()].join(' or ');
  if (!schema)
    return [
      {
        rule,
        in: 'header',
        header: 'content-type',
        expected: `Content-Type ${wanted()}`,
        reason: `${answer.headers['content-type'] ?? 'no Content-Type'}, not ${wanted()}`,
      },
    ];
  if (answer.text === '') return [{ rule, in: 'body', pointer: '', expected: `a ${type} body`, reason: 'the body is empty' }];
  const parsed = jsonOf(answer, rule);
  if ('violation' in parsed) return [{ ...parsed.violation, in: 'body', pointer: '' }];
  return schemaValid(
    parsed.value,
    jc.contracts[level].validator(schema),
    rule,
    `the documented ${response.status} ${type} body (${level} level)`,
  );
}
