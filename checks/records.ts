/**
 * Checks of a record's life across exchanges, for every resource the contract's operations act on
 * (`contract/resources.ts`): each judges the sequence the runner produced once per resource
 * (`conformance/sequences.ts`, `SuiteContext.recordSequence`) with a pure judge of `judgments/records.ts`. A contract with reads, lists, changes,
 * deletes or actions gets them with no code: they are derived from its operations model.
 */
import type { ResourceModel } from '../contract/operations-model.js';
import {
  judgeActionApplied,
  judgeActionRepeated,
  judgeChangeApplied,
  judgeDeleted,
  judgeDuplicateKey,
  judgeKeysUniqueAcrossDeletes,
  judgeListFilters,
  judgeListPaging,
  judgeReadBack,
  judgeRefusedChange,
  judgeUnknownKey,
  type RecordSequence,
} from '../judgments/records.js';
import { judgeDocumentedAnswer, judgeDocumentedStatus } from '../judgments/documented.js';
import { is2xx } from '../judgments/answer.js';
import type { JudgeContext, JudgedExchange, Violation } from '../judgments/exchange.js';
import type { Level } from '../contract/levels.js';
import { RECORDS } from '../judgments/rules.js';
import type { CheckModule, CheckSource, SuiteCheck } from './define.js';

/** The budget keys of the records a resource's sequence creates (`conformance/sequences.ts` creates them under these keys). */
export function sequenceWrites(resource: ResourceModel): string[] {
  return ['a', 'b', 'after-delete', ...(resource.keyAssigned ? [] : ['duplicate'])].map((k) => `records/${resource.name}/${k}`);
}

/** A case of a check: the exchange it shows when it fails, and its judgment of the sequence. */
interface SequenceCase {
  name: string;
  shown: JudgedExchange | undefined;
  judge: () => Violation[];
}

function recordCheck(
  resource: ResourceModel,
  op: string,
  aspect: string,
  level: Level,
  title: string,
  rule: string,
  cases: readonly string[],
  casesOf: (seq: RecordSequence) => SequenceCase[],
): SuiteCheck {
  return {
    id: `${op}.${aspect}`,
    level,
    operations: [op],
    title,
    rule,
    write: true,
    extraWrites: sequenceWrites(resource),
    async prepare(ctx) {
      await ctx.recordSequence(resource).catch(() => undefined);
    },
    cases,
    async run(ctx, t) {
      const seq = await ctx.recordSequence(resource);
      for (const c of casesOf(seq)) if (c.shown !== undefined) await t.judgeShown(c.name, c.shown, () => c.judge());
    },
  };
}

/**
 * Every answer of the sequence to `op`, named: its own requests, and for the resource's first read the
 * reads after each change, action and delete too.
 */
function answersOf(seq: RecordSequence, op: string): { name: string; exchange: JudgedExchange }[] {
  const out: { name: string; exchange: JudgedExchange }[] = [];
  const add = (name: string, exchange: JudgedExchange | undefined): void => {
    if (exchange !== undefined) out.push({ name, exchange });
  };
  const reads = seq.resource.reads[0] === op;
  for (const r of seq.reads)
    if (r.op === op) {
      add('record A, read by its key', r.exchange);
      add('a key no record has', r.unknown);
    }
  for (const l of seq.lists) if (l.op === op) for (const step of l.steps) add(`the list: ${step.name}`, step.exchange);
  for (const c of seq.changes) {
    if (c.op === op) {
      add('a valid change of record A', c.exchange);
      add('an invalid change of record A', c.refused?.exchange);
    }
    if (reads) {
      add(`record A read after ${c.op}`, c.readAfter);
      add(`record A read after an invalid ${c.op}`, c.refused?.readAfter);
    }
  }
  for (const a of seq.actions) {
    if (a.op === op) {
      add('the action on record A', a.exchange);
      add('the action on record A again', a.again?.exchange);
    }
    if (reads) {
      add(`record A read after ${a.op}`, a.readAfter);
      add(`record A read after ${a.op} again`, a.again?.readAfter);
    }
  }
  for (const d of seq.deletes) {
    if (d.op === op) {
      add('record B deleted', d.exchange);
      add('record B deleted again', d.again);
    }
    if (reads) add(`record B read after ${d.op}`, d.readAfter);
  }
  return out;
}

/** The documented cases of the answers of an operation of each role (what `answersOf` names). */
const ANSWER_CASES: Partial<Record<string, string[]>> = {
  read: ['record A, read by its key', 'a key no record has', 'record A read after each change and action, record B after its delete'],
  list: ['each list request of the sequence (no filter, each filter, every filter, each page)'],
  update: ['a valid change of record A', 'an invalid change of record A'],
  action: ['the action on record A', 'the action on record A again'],
  delete: ['record B deleted', 'record B deleted again'],
};

/** The record checks of one resource: reads, lists, changes, actions, deletes, keys. */
function resourceChecks(source: CheckSource, resource: ResourceModel): SuiteCheck[] {
  if (resource.fixtures || resource.producers.length === 0) return [];
  const checks: SuiteCheck[] = [];
  const check = (...args: Parameters<typeof recordCheck> extends [ResourceModel, ...infer Rest] ? Rest : never) =>
    checks.push(recordCheck(resource, ...args));
  for (const op of resource.reads) {
    const reads = (seq: RecordSequence) => seq.reads.filter((r) => r.op === op);
    check(
      op,
      'read-back',
      'spec',
      `a read of a record just created answers that record`,
      RECORDS.readBack,
      ['record A, read by its key'],
      (seq) => reads(seq).map((r) => ({ name: 'record A, read by its key', shown: r.exchange, judge: () => judgeReadBack(seq, r) })),
    );
    for (const strict of [false, true])
      check(
        op,
        strict ? 'unknown-key-404' : 'unknown-key',
        strict ? 'strict' : 'spec',
        `a key never created is ${strict ? 'answered 404' : 'no record (no 2xx)'}`,
        RECORDS.unknownKey,
        ['a key no record has'],
        (seq) => reads(seq).map((r) => ({ name: 'a key no record has', shown: r.unknown, judge: () => judgeUnknownKey(r, strict) })),
      );
  }
  for (const list of resource.lists) {
    const op = list.operationId;
    const steps = (seq: RecordSequence) => seq.lists.find((l) => l.op === op)?.steps ?? [];
    const names = [
      'no filter',
      ...list.filters.flatMap((f) => [`${f.param} of record A`, `${f.param} of record B`]),
      ...(list.filters.length > 1
        ? ['every filter, with the values of record A', 'one filter with a value of record A, the others of record B']
        : []),
    ];
    check(
      op,
      'filters',
      'strict',
      `the list answers exactly the records matching every filter (${list.filters.map((f) => f.param).join(', ') || 'none'})`,
      RECORDS.listFilters,
      names,
      (seq) =>
        steps(seq)
          .filter((s) => s.page === undefined)
          .map((s) => ({ name: s.name, shown: s.exchange, judge: () => judgeListFilters(seq, s) })),
    );
    if (list.paging?.offset !== undefined)
      check(
        op,
        'paging',
        'strict',
        `a page holds at most ${list.paging.limit} records and the next page others`,
        RECORDS.listPaging,
        ['two pages of one record'],
        (seq) => {
          const [first, second] = steps(seq).filter((s) => s.page !== undefined);
          return first && second
            ? [{ name: 'two pages of one record', shown: second.exchange, judge: () => judgeListPaging(seq, first, second) }]
            : [];
        },
      );
  }
  for (const update of resource.updates) {
    const op = update.operationId;
    const changes = (seq: RecordSequence) => seq.changes.filter((c) => c.op === op);
    const verb = update.kind === 'merge' ? 'a merge patch' : 'a replace';
    check(
      op,
      'change-sticks',
      'spec',
      `${verb} accepted shows in its answer and a read after (exactly the members sent changed)`,
      RECORDS.change,
      [`${verb} of one member of record A`],
      (seq) =>
        changes(seq).map((c) => ({
          name: `${verb} of one member of record A`,
          shown: c.readAfter ?? c.exchange,
          judge: () => judgeChangeApplied(seq, c),
        })),
    );
    for (const strict of [false, true])
      check(
        op,
        strict ? 'refused-change-400' : 'refused-change',
        strict ? 'strict' : 'spec',
        `an invalid change is ${strict ? 'answered 400' : 'refused'} and changes nothing`,
        RECORDS.refusedChange,
        ['an invalid change of record A'],
        (seq) =>
          changes(seq).flatMap((c) =>
            c.refused
              ? [
                  {
                    name: 'an invalid change of record A',
                    shown: c.refused.readAfter ?? c.refused.exchange,
                    judge: () => judgeRefusedChange(seq, c, strict),
                  },
                ]
              : [],
          ),
      );
  }
  for (const op of resource.actions) {
    const actions = (seq: RecordSequence) => seq.actions.filter((a) => a.op === op);
    check(op, 'applies', 'spec', 'the action sets the members it declares', RECORDS.action, ['the action on record A'], (seq) =>
      actions(seq).map((a) => ({
        name: 'the action on record A',
        shown: a.readAfter ?? a.exchange,
        judge: () => judgeActionApplied(seq, a),
      })),
    );
    for (const strict of [false, true])
      check(
        op,
        strict ? 'repeat-409' : 'repeat-refused',
        strict ? 'strict' : 'spec',
        `the action asked again is ${strict ? 'answered 409' : 'refused'} and changes nothing`,
        RECORDS.actionConflict,
        ['the action on record A again'],
        (seq) =>
          actions(seq).flatMap((a) =>
            a.again
              ? [{ name: 'the action on record A again', shown: a.again.exchange, judge: () => judgeActionRepeated(seq, a, strict) }]
              : [],
          ),
      );
  }
  for (const op of resource.deletes.slice(0, 1))
    for (const strict of [false, true])
      check(
        op,
        strict ? 'deleted-404' : 'deletes',
        strict ? 'strict' : 'spec',
        `a deleted record is gone: a read and a second delete are ${strict ? '404' : 'no 2xx'}`,
        RECORDS.delete,
        ['record B deleted, read, deleted again'],
        (seq) =>
          seq.deletes
            .filter((d) => d.op === op)
            .map((d) => ({
              name: 'record B deleted, read, deleted again',
              shown: d.readAfter ?? d.again,
              judge: () => judgeDeleted(d, strict),
            })),
      );
  const producer = resource.producers[0] ?? '';
  if (resource.deletes.length > 0 && resource.keyAssigned)
    check(
      producer,
      'ids-unique-across-deletes',
      'strict',
      'a create after a delete never takes an id handed out before',
      RECORDS.uniqueKeys,
      ['a create after record B was deleted'],
      (seq) => [{ name: 'a create after record B was deleted', shown: seq.afterDeletes, judge: () => judgeKeysUniqueAcrossDeletes(seq) }],
    );
  if (!resource.keyAssigned)
    for (const strict of [false, true])
      check(
        producer,
        strict ? 'duplicate-key-409' : 'duplicate-key',
        strict ? 'strict' : 'spec',
        `a create with a key a record has is ${strict ? 'answered 409' : 'refused'}`,
        RECORDS.duplicateKey,
        [`a create with the ${resource.key} of record A`],
        (seq) => [
          {
            name: `a create with the ${resource.key} of record A`,
            shown: seq.duplicate?.exchange,
            judge: () => judgeDuplicateKey(seq, strict),
          },
        ],
      );
  const jc: JudgeContext = { ...source, level: 'strict' };
  // The answers of each operation on the records, as documented: the 2xx bodies at spec (where the
  // operation answers a body), every answer's status and body at strict.
  for (const op of [
    ...resource.reads,
    ...resource.lists.map((l) => l.operationId),
    ...resource.updates.map((u) => u.operationId),
    ...resource.actions,
    ...resource.deletes.slice(0, 1),
  ]) {
    const model = source.model.get(op);
    const cases = ANSWER_CASES[model.role] ?? [];
    const what =
      model.success.kind === 'none'
        ? 'no body'
        : (model.successSchema ??
          (model.success.kind === 'array' || model.success.kind === 'page' ? `a list of ${model.success.item}` : 'its documented body'));
    if (model.success.kind !== 'none')
      check(
        op,
        'answer-shape',
        'spec',
        `each 2xx answer is of the documented media type, ${what} of the listed types`,
        RECORDS.answers,
        cases,
        (seq) =>
          answersOf(seq, op).map(({ name, exchange }) => ({
            name,
            shown: exchange,
            judge: () =>
              exchange.answer !== undefined && is2xx(exchange.answer.status) ? judgeDocumentedAnswer(exchange, jc, op, 'spec') : [],
          })),
      );
    check(
      op,
      'strict-shape',
      'strict',
      `each answer has a documented status, media type and body (every keyword of the strict schema)`,
      RECORDS.answers,
      cases,
      (seq) =>
        answersOf(seq, op).map(({ name, exchange }) => ({
          name,
          shown: exchange,
          judge: () => [...judgeDocumentedStatus(exchange, jc, op), ...judgeDocumentedAnswer(exchange, jc, op, 'strict')],
        })),
    );
  }
  return checks;
}

/**
 * The record checks of every resource of the contract, resource by resource (one module: the checks
 * of a resource share its sequence, its writes and its order). Their faults lie across exchanges: the
 * self-test derives them from the contract's resources (`conformance/self-test/overrides.ts`); the
 * bundled contract has no such resource.
 */
export const recordChecks: CheckModule = {
  suite: (source) => source.model.resources.flatMap((resource) => resourceChecks(source, resource)),
  faultCases: () => [],
  overrides: {},
  observe: [],
};
