/** Judgments of create exchanges (spec facts 4-6; the profile's 201, formats, defaults, read-only). */
import type { JsonObject, JsonValue } from '../contract/document.js';
import type { CreateOperationId, OperationModel } from '../contract/operations-model.js';
import { is2xx, mediaTypeIs, objectOf, schemaValid, statusIs } from './answer.js';
import type { JudgeContext, JudgedExchange, Violation } from './exchange.js';
import { PROFILE, SPEC } from './rules.js';
import { childPointer } from '../util/json-pointer.js';

/** The same JSON value (members in the same order); two equal scalars are compared without serializing them. */
export const sameJson = (a: JsonValue | undefined, b: JsonValue | undefined): boolean =>
  a === b || (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b));

/**
 * The spec fact of a create operation's answer: the fact that names its record (4: `Lot transfer
 * object`, 5: `Test sample object`, read from the success schema's name), else the contract's rule for
 * any create.
 */
export function createFact(jc: JudgeContext, op: CreateOperationId): string {
  const model = jc.model.get(op);
  const known = FACTS.get(model);
  if (known !== undefined) return known;
  const words = (model.successSchema ?? '').replace(/(?<=[a-z0-9])([A-Z])/g, ' $1').toLowerCase();
  const fact = [SPEC.lotTransfer, SPEC.testSample].find((f) => words !== '' && f.toLowerCase().includes(`${words} object`)) ?? SPEC.created;
  FACTS.set(model, fact);
  return fact;
}

/** Each create's fact and read-only members, found once per operation model (judging reads them for every create exchange). */
const FACTS = new WeakMap<OperationModel, string>();
const READ_ONLY = new WeakMap<OperationModel, ReadonlySet<string>>();

function readOnlyOf(model: OperationModel): ReadonlySet<string> {
  let names = READ_ONLY.get(model);
  if (names === undefined) READ_ONLY.set(model, (names = new Set(model.members.filter((m) => m.readOnly).map((m) => m.name))));
  return names;
}

/** Spec fact 6: a valid, authenticated create naming a lot of the order is answered 2xx. */
export function judgeCreateAnswered(exchange: JudgedExchange): Violation[] {
  return statusIs(exchange, SPEC.validRequest, is2xx, 'a 2xx status');
}

/** Profile: create success is 201. */
export function judgeCreateStatus(exchange: JudgedExchange, jc: JudgeContext, op: CreateOperationId): Violation[] {
  return statusIs(exchange, PROFILE.createSuccess, jc.model.create(op).successStatus);
}

/** A 2xx answer's object, or the violation of `rule`; undefined when there is no 2xx to judge. */
function created(exchange: JudgedExchange, rule: string): { value: JsonObject } | { violation: Violation } | undefined {
  if (!exchange.answer || !is2xx(exchange.answer.status)) return undefined;
  return objectOf(exchange.answer, rule);
}

/** Spec facts 4/5 (spec level), profile formats (strict level): the 2xx answer is the object of the listed types. */
export function judgeCreateShape(exchange: JudgedExchange, jc: JudgeContext, op: CreateOperationId, level = jc.level): Violation[] {
  const rule = level === 'spec' ? createFact(jc, op) : PROFILE.formats;
  const value = created(exchange, rule);
  if (value === undefined || !exchange.answer) return [];
  if ('violation' in value) return [value.violation];
  const name = jc.model.create(op).successSchema;
  return [
    ...(level === 'spec' ? mediaTypeIs(exchange.answer, rule, 'application/json') : []),
    ...schemaValid(
      value.value,
      jc.contracts[level].validator({ $ref: `#/components/schemas/${name}` }),
      rule,
      `a ${name} object (${level} level)`,
    ),
  ];
}

/** Spec facts 4/5: every member the client sent (server-assigned ones aside) comes back with the same value. */
export function judgeEcho(exchange: JudgedExchange, jc: JudgeContext, op: CreateOperationId, sent: JsonObject): Violation[] {
  const rule = createFact(jc, op);
  const value = created(exchange, rule);
  if (value === undefined) return [];
  if ('violation' in value) return [value.violation];
  const readOnly = readOnlyOf(jc.model.create(op));
  return Object.keys(sent)
    .filter((name) => !readOnly.has(name) && !sameJson(sent[name], value.value[name]))
    .map((name) => ({
      rule,
      pointer: childPointer('', name),
      expected: `${name} ${JSON.stringify(sent[name])} (as sent)`,
      reason: `${name}: sent ${JSON.stringify(sent[name])}, answered ${JSON.stringify(value.value[name])}`,
    }));
}

/**
 * Profile defaults: each member with a default that the client did not send comes back with it
 * (`default`; `x-default-from` read from `lot`; `x-default-sequence` a non-empty string).
 */
export function judgeDefaults(
  exchange: JudgedExchange,
  jc: JudgeContext,
  op: CreateOperationId,
  sent: JsonObject,
  lot: JsonObject | undefined,
): Violation[] {
  const rule = PROFILE.defaults;
  const value = created(exchange, rule);
  if (value === undefined) return [];
  if ('violation' in value) return [value.violation];
  const out: Violation[] = [];
  for (const member of jc.model.create(op).members) {
    if (member.name in sent || member.readOnly) continue;
    const got = value.value[member.name];
    let wanted: JsonValue | undefined;
    if (member.defaultFrom) wanted = lot?.[member.defaultFrom.member];
    else if ('default' in member) wanted = member.default;
    if (wanted !== undefined && !sameJson(got, wanted))
      out.push({
        rule,
        pointer: childPointer('', member.name),
        expected: `${member.name} ${JSON.stringify(wanted)} (the default)`,
        reason: `${member.name} is ${JSON.stringify(got)}`,
      });
    if (member.defaultSequence && (typeof got !== 'string' || got.length === 0))
      out.push({
        rule,
        pointer: childPointer('', member.name),
        expected: `a generated, non-empty ${member.name}`,
        reason: `${member.name} is ${JSON.stringify(got)}`,
      });
  }
  return out;
}

/** Profile: server-assigned (`readOnly`) members a client sends are ignored (the answer has the server's values). */
export function judgeReadOnlyIgnored(exchange: JudgedExchange, jc: JudgeContext, op: CreateOperationId, sent: JsonObject): Violation[] {
  const rule = PROFILE.readOnly;
  const status = statusIs(exchange, rule, is2xx, 'a 2xx status (read-only members are ignored, not rejected)');
  if (status.length > 0) return status;
  const value = created(exchange, rule);
  if (value === undefined) return [];
  if ('violation' in value) return [value.violation];
  return jc.model
    .create(op)
    .members.filter((m) => m.readOnly && m.name in sent && sameJson(value.value[m.name], sent[m.name]))
    .map((m) => ({
      rule,
      pointer: childPointer('', m.name),
      expected: `a server-assigned ${m.name}`,
      reason: `the answer kept the client's ${m.name} ${JSON.stringify(sent[m.name])}`,
    }));
}
