/**
 * Judgments of a record's life across exchanges: the sequence the suite's runner produced for one
 * resource (created, read back, listed with filters, changed, refused a change, acted on, deleted),
 * each judge a pure function of that sequence. They catch what no single exchange shows: a read
 * answering another object, a list ignoring its filters, a change or a delete that does not stick, an
 * action that can be repeated, an id handed out again after a delete.
 */
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import type { ResourceModel } from '../contract/operations-model.js';
import { is2xx, objectOf } from './answer.js';
import type { JudgedExchange, Violation } from './exchange.js';
import { RECORDS } from './rules.js';
import { childPointer } from '../util/json-pointer.js';

/** A list request and what it asked for. */
export interface ListStep {
  name: string;
  /** The equality filters sent: record member → value. */
  filters: Record<string, JsonValue>;
  /** The paging sent, when the list pages. */
  page?: { limit: number; offset: number };
  /** The most records the answer may hold (the largest `limit` the list allows, sent with the filters): a full answer may leave matches out. */
  limit?: number;
  /** A filter value is one only the records of this run carry (its marker): few records match, so the answer is small. */
  singlesOut?: boolean;
  exchange: JudgedExchange;
}

/** A change and what surrounds it: the record before, what was sent, the answer, a read after. */
export interface ChangeStep {
  op: string;
  kind: 'merge' | 'replace';
  before: JsonObject;
  sent: JsonObject;
  exchange: JudgedExchange;
  readAfter?: JudgedExchange;
  /** An invalid change sent after it, and a read after that one. */
  refused?: { before: JsonObject; sent: JsonObject; exchange: JudgedExchange; readAfter?: JudgedExchange };
}

export interface ActionStep {
  op: string;
  sets: JsonObject;
  before: JsonObject;
  exchange: JudgedExchange;
  readAfter?: JudgedExchange;
  /** The same action again, when its first run left the record without what it requires. */
  again?: { exchange: JudgedExchange; readAfter?: JudgedExchange };
}

export interface DeleteStep {
  op: string;
  key: string;
  exchange: JudgedExchange;
  readAfter?: JudgedExchange;
  again: JudgedExchange;
}

/** What the runner did with one resource, in order. */
export interface RecordSequence {
  resource: ResourceModel;
  /** The records created (A, B), their keys and answers. */
  created: { key: string; sent: JsonObject; exchange: JudgedExchange }[];
  reads: { op: string; key: string; exchange: JudgedExchange; unknownKey: string; unknown: JudgedExchange }[];
  lists: { op: string; steps: ListStep[] }[];
  changes: ChangeStep[];
  actions: ActionStep[];
  deletes: DeleteStep[];
  /** A create after the deletes (its key must be new). */
  afterDeletes?: JudgedExchange;
  /** A create with the key of a record that exists (a key the client chooses). */
  duplicate?: { key: string; exchange: JudgedExchange };
}

const same = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A 2xx answer's object, or nothing. */
export function recordOf(exchange: JudgedExchange | undefined): JsonObject | undefined {
  if (!exchange?.answer || !is2xx(exchange.answer.status)) return undefined;
  const parsed = objectOf(exchange.answer, '');
  return 'value' in parsed ? parsed.value : undefined;
}

/** The key of a record as text (the member of the resource's key). */
export function keyOf(resource: ResourceModel, record: JsonObject | undefined): string | undefined {
  const value = record?.[resource.key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Members that may differ between two answers of one record without a change: the server's own (`readOnly`), the key aside. */
function mayDiffer(resource: ResourceModel): Set<string> {
  return new Set(resource.members.filter((m) => m.readOnly && m.name !== resource.key).map((m) => m.name));
}

/** The members of `got` that differ from `want` (but those that may differ). */
function differences(resource: ResourceModel, want: JsonObject, got: JsonObject, allowed = mayDiffer(resource)): string[] {
  const names = new Set([...Object.keys(want), ...Object.keys(got)]);
  return [...names].filter((name) => !allowed.has(name) && !same(want[name], got[name]));
}

function diffViolations(rule: string, expected: string, names: string[], want: JsonObject, got: JsonObject): Violation[] {
  return names.map((name) => ({
    rule,
    pointer: childPointer('', name),
    expected,
    reason: `${name}: ${JSON.stringify(want[name] ?? null).slice(0, 80)} expected, ${JSON.stringify(got[name] ?? null).slice(0, 80)} answered`,
  }));
}

/** A read of a created record answers that record (members the server stamps aside). */
export function judgeReadBack(seq: RecordSequence, read: RecordSequence['reads'][number]): Violation[] {
  const rule = RECORDS.readBack;
  const created = seq.created.find((c) => c.key === read.key);
  const want = recordOf(created?.exchange);
  if (!want) return [];
  if (!read.exchange.answer || !is2xx(read.exchange.answer.status))
    return [
      {
        rule,
        in: 'status',
        expected: `a 2xx answer with the record of key ${read.key}`,
        reason: `${read.exchange.answer?.status ?? 'no answer'}`,
      },
    ];
  const got = recordOf(read.exchange);
  if (!got) return [{ rule, pointer: '', expected: 'the record as a JSON object', reason: 'the answer is no JSON object' }];
  return diffViolations(rule, `the record of key ${read.key} as created`, differences(seq.resource, want, got), want, got);
}

/** A key never created is no record: no 2xx (strict: 404). */
export function judgeUnknownKey(read: RecordSequence['reads'][number], strict: boolean): Violation[] {
  const answer = read.unknown.answer;
  if (!answer) return [];
  const rule = RECORDS.unknownKey;
  if (strict ? answer.status !== 404 : is2xx(answer.status))
    return [
      {
        rule,
        in: 'status',
        expected: strict ? '404' : 'no 2xx',
        reason: `the key ${read.unknownKey}, never created, answered ${answer.status}`,
      },
    ];
  return [];
}

/** The records of a list answer (an array, or the array member of a page); undefined when it is neither. */
function listed(resource: ResourceModel, exchange: JudgedExchange): JsonObject[] | undefined {
  if (!exchange.answer || !is2xx(exchange.answer.status)) return undefined;
  const value = exchange.answer.json?.value ?? safeParse(exchange.answer.text);
  const shape = resource.lists.find((l) => l.shape.kind === 'page')?.shape;
  const items = Array.isArray(value) ? value : isObject(value) && shape?.kind === 'page' ? value[shape.member] : undefined;
  return Array.isArray(items) ? items.filter(isObject) : undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A list answers exactly the records matching every filter given: none that breaks a filter, and every
 * record the run created that matches them (paged: within the page asked for).
 */
export function judgeListFilters(seq: RecordSequence, step: ListStep): Violation[] {
  const rule = RECORDS.listFilters;
  const answer = step.exchange.answer;
  // A list filtered to the few records of this run that could not be read (larger than the suite reads,
  // say) lists records the filter does not match; any other list without an answer is not judged here.
  if (!answer)
    return step.singlesOut === true && step.exchange.error !== undefined
      ? [{ rule, pointer: '', expected: "the few records matching a value only this run's records carry", reason: step.exchange.error }]
      : [];
  if (!is2xx(answer.status)) return [{ rule, in: 'status', expected: 'a 2xx list', reason: `answered ${answer.status}` }];
  const items = listed(seq.resource, step.exchange);
  if (items === undefined)
    return [{ rule, pointer: '', expected: 'an array of records (or a page of them)', reason: 'the answer is neither' }];
  const out: Violation[] = [];
  const filters = Object.entries(step.filters);
  items.forEach((item, index) => {
    const broken = filters.filter(([member, value]) => !same(item[member], value));
    if (broken.length > 0)
      out.push({
        rule,
        pointer: `/${index}`,
        expected: `records with ${filters.map(([m, v]) => `${m} = ${JSON.stringify(v)}`).join(', ')}`,
        reason: `record ${keyOf(seq.resource, item) ?? `#${index}`} has ${broken.map(([m]) => `${m} ${JSON.stringify(item[m] ?? null)}`).join(', ')}`,
      });
  });
  if (step.page !== undefined || (step.limit !== undefined && items.length >= step.limit)) return out;
  const keys = new Set(items.map((item) => keyOf(seq.resource, item)));
  for (const created of seq.created) {
    const record = recordOf(created.exchange);
    if (!record || !filters.every(([member, value]) => same(record[member], value))) continue;
    if (!keys.has(created.key))
      out.push({
        rule,
        pointer: '',
        expected: `the record of key ${created.key} (it matches every filter)`,
        reason: `it is missing from the ${items.length} listed`,
      });
  }
  return out;
}

/** A page holds at most `limit` records, and the next page does not repeat them. */
export function judgeListPaging(seq: RecordSequence, first: ListStep, second: ListStep): Violation[] {
  const rule = RECORDS.listPaging;
  const out: Violation[] = [];
  const pages = [first, second].map((s) => ({ step: s, items: listed(seq.resource, s.exchange) }));
  for (const { step, items } of pages) {
    if (items === undefined || step.page === undefined) continue;
    if (items.length > step.page.limit)
      out.push({
        rule,
        pointer: '',
        expected: `at most ${step.page.limit} records (limit)`,
        reason: `${items.length} records at offset ${step.page.offset}`,
      });
  }
  const [a, b] = pages.map((p) => new Set((p.items ?? []).map((item) => keyOf(seq.resource, item))));
  const repeated = [...(a ?? [])].filter((key) => key !== undefined && b?.has(key));
  if (repeated.length > 0)
    out.push({
      rule,
      pointer: '',
      expected: 'the next page (offset + limit) holds other records',
      reason: `it repeats ${repeated.join(', ')}`,
    });
  return out;
}

/**
 * A change the server accepted sticks: the answer (when it has one) and a read after show the members
 * sent with the values sent, and every other member as it was (server stamps aside; a replace may
 * reset members it omits).
 */
export function judgeChangeApplied(seq: RecordSequence, step: ChangeStep): Violation[] {
  const rule = RECORDS.change;
  if (!step.exchange.answer || !is2xx(step.exchange.answer.status))
    return [{ rule, in: 'status', expected: 'a 2xx answer to a valid change', reason: `${step.exchange.answer?.status ?? 'no answer'}` }];
  const want: JsonObject = { ...step.before, ...step.sent };
  const allowed = mayDiffer(seq.resource);
  if (step.kind === 'replace')
    for (const name of Object.keys(step.before)) if (!(name in step.sent) && name !== seq.resource.key) allowed.add(name);
  const out: Violation[] = [];
  for (const [label, exchange] of [
    ['the answer', step.exchange],
    ['a read after it', step.readAfter],
  ] as const) {
    const got = recordOf(exchange);
    if (!got) continue;
    const wrong = differences(seq.resource, want, got, allowed);
    out.push(
      ...diffViolations(rule, `${label}: the members sent changed, the others as before`, wrong, want, got).map((v) => ({
        ...v,
        reason: `${label}: ${v.reason}`,
      })),
    );
  }
  return out;
}

/**
 * A request the record's state or body refuses: no 2xx (strict: `expected.status`), and a read after it
 * shows the record as before (`before` or `after` undefined: not read, nothing to compare).
 */
function refusedUnchanged(
  rule: string,
  seq: RecordSequence,
  status: number,
  strict: boolean,
  expected: { status: number; strict: string; spec: string; unchanged: string },
  before: JsonObject | undefined,
  after: JsonObject | undefined,
): Violation[] {
  if (strict ? status !== expected.status : is2xx(status))
    return [{ rule, in: 'status', expected: strict ? expected.strict : expected.spec, reason: `answered ${status}` }];
  if (!before || !after) return [];
  return diffViolations(rule, expected.unchanged, differences(seq.resource, before, after), before, after);
}

/** A change refused (no 2xx; strict: 400) changes nothing: a read after shows the record as before. */
export function judgeRefusedChange(seq: RecordSequence, step: ChangeStep, strict: boolean): Violation[] {
  const refused = step.refused;
  if (!refused?.exchange.answer) return [];
  return refusedUnchanged(
    RECORDS.refusedChange,
    seq,
    refused.exchange.answer.status,
    strict,
    {
      status: 400,
      strict: '400 for an invalid change',
      spec: 'no 2xx for an invalid change',
      unchanged: 'the record as before the refused change',
    },
    refused.before,
    recordOf(refused.readAfter),
  );
}

/** An action accepted sets the members it declares; a read after shows them. */
export function judgeActionApplied(seq: RecordSequence, step: ActionStep): Violation[] {
  const rule = RECORDS.action;
  if (!step.exchange.answer || !is2xx(step.exchange.answer.status))
    return [
      {
        rule,
        in: 'status',
        expected: 'a 2xx answer: the record has what the action requires',
        reason: `${step.exchange.answer?.status ?? 'no answer'}`,
      },
    ];
  const want: JsonObject = { ...step.before, ...step.sets };
  const out: Violation[] = [];
  for (const [label, exchange] of [
    ['the answer', step.exchange],
    ['a read after it', step.readAfter],
  ] as const) {
    const got = recordOf(exchange);
    if (got)
      out.push(
        ...diffViolations(
          rule,
          `${label}: the members the action sets, the others as before`,
          differences(seq.resource, want, got),
          want,
          got,
        ),
      );
  }
  return out;
}

/** An action asked again of a record that no longer has what it requires is refused (strict: 409) and changes nothing. */
export function judgeActionRepeated(seq: RecordSequence, step: ActionStep, strict: boolean): Violation[] {
  const again = step.again;
  if (!again?.exchange.answer) return [];
  return refusedUnchanged(
    RECORDS.actionConflict,
    seq,
    again.exchange.answer.status,
    strict,
    {
      status: 409,
      strict: '409: the record no longer has what the action requires',
      spec: 'no 2xx',
      unchanged: 'the record as before the refused action',
    },
    recordOf(step.readAfter) ?? recordOf(step.exchange),
    recordOf(again.readAfter),
  );
}

/** A record deleted (2xx) is gone: a read of it and a second delete are no 2xx (strict: 404 each). */
export function judgeDeleted(step: DeleteStep, strict: boolean): Violation[] {
  const rule = RECORDS.delete;
  const first = step.exchange.answer;
  if (!first) return [];
  if (!is2xx(first.status))
    return [{ rule, in: 'status', expected: 'a 2xx answer deleting a record that exists', reason: `answered ${first.status}` }];
  const out: Violation[] = [];
  for (const [label, exchange] of [
    ['a read after the delete', step.readAfter],
    ['a second delete', step.again],
  ] as const) {
    const status = exchange?.answer?.status;
    if (status === undefined) continue;
    if (strict ? status !== 404 : is2xx(status))
      out.push({
        rule,
        in: 'status',
        expected: `${label} of key ${step.key}: ${strict ? '404' : 'no 2xx'}`,
        reason: `${label} answered ${status}`,
      });
  }
  return out;
}

/** A create after a delete never takes a key handed out before (ids are unique per resource, deletes or not). */
export function judgeKeysUniqueAcrossDeletes(seq: RecordSequence): Violation[] {
  const record = recordOf(seq.afterDeletes);
  const key = keyOf(seq.resource, record);
  if (key === undefined) return [];
  const earlier = seq.created.map((c) => c.key);
  return earlier.includes(key)
    ? [
        {
          rule: RECORDS.uniqueKeys,
          pointer: childPointer('', seq.resource.key),
          expected: `a ${seq.resource.key} never handed out before`,
          reason: `${key} was handed out before (${earlier.join(', ')})`,
        },
      ]
    : [];
}

/** A create with a key (the client's) a record already has is refused (strict: 409). */
export function judgeDuplicateKey(seq: RecordSequence, strict: boolean): Violation[] {
  const answer = seq.duplicate?.exchange.answer;
  if (!answer || !seq.duplicate) return [];
  if (strict ? answer.status !== 409 : is2xx(answer.status))
    return [
      {
        rule: RECORDS.duplicateKey,
        in: 'status',
        expected: strict ? '409' : 'no 2xx',
        reason: `a second create with the key ${seq.duplicate.key} answered ${answer.status}`,
      },
    ];
  return [];
}
