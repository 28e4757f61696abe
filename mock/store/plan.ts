/**
 * From the contract's record rules (`record-model.ts`) to a RecordPlan: everything a create knows
 * before the store allocates its counters. Also the JSON of a filled plan, shared by both stores.
 */
import type { JsonObject, JsonValue } from '../../contract/document.js';
import { formatSequence, parseSequence, type RecordModel } from '../record-model.js';
import { isSlot, type CounterSlot, type FixedField, type RecordPlan } from './types.js';

/** The name of a per-session counter (`lot-transfers#id`). */
export function counterKey(resource: string, member: string): string {
  return `${resource}#${member}`;
}

/** A key as the store holds it: a string as it is, a number in its JSON form (`2`), anything else as JSON. */
export function keyText(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value ?? null);
}

/** The counter slots of a resource's records (ids and sequences), in member order. */
export function counterSlots(resource: string, model: RecordModel): CounterSlot[] {
  const slots: CounterSlot[] = [];
  for (const { name, rule } of model.fields) {
    const key = memberKey(name);
    if (rule.kind === 'id') slots.push({ name, key, counter: counterKey(resource, name), kind: 'id' });
    if (rule.kind === 'sequence')
      slots.push({ name, key, counter: counterKey(resource, name), kind: 'sequence', prefix: rule.prefix, width: rule.width });
  }
  return slots;
}

/** Plans a record of one resource: server-assigned members, the input, the contract's defaults. */
export type RecordPlanner = (input: JsonObject, lot: JsonObject | undefined, now: string) => RecordPlan;

/**
 * The planner of a resource's records. Everything that does not depend on the request (member
 * names and their JSON, the counter slots) is made here, once; a create only fills in values.
 */
export function recordPlanner(resource: string, model: RecordModel, clientKey?: string): RecordPlanner {
  const slots = new Map(counterSlots(resource, model).map((slot) => [slot.name, slot]));
  const members = model.fields.map(({ name, rule }) => ({
    name,
    rule,
    key: memberKey(name),
    slot: slots.get(name),
    text: rule.kind === 'default' ? jsonText(rule.value) : undefined,
  }));
  // The creates of one millisecond share their timestamp, so its JSON text is made once for them.
  let now = '';
  let nowText = '';
  return (input, lot, time) => {
    if (time !== now) {
      now = time;
      nowText = jsonText(time);
    }
    const fields: RecordPlan['fields'] = [];
    // Every fixed field has the same members (`text` too), so the stores read them from one object shape.
    for (const { name, rule, key, slot, text } of members) {
      if (rule.kind === 'timestamp') fields.push({ name, key, value: time, text: nowText });
      else if (rule.kind !== 'id' && Object.hasOwn(input, name)) {
        const value = input[name];
        if (value !== undefined) fields.push({ name, key, value, text: undefined });
      } else if (rule.kind === 'default') fields.push({ name, key, value: rule.value, text });
      else if (rule.kind === 'from-lot') {
        const value = lot?.[rule.member];
        if (value !== undefined) fields.push({ name, key, value, text: undefined });
      } else if (slot) fields.push(slot);
    }
    return clientKey !== undefined ? { resource, fields, key: keyText(input[clientKey]) } : { resource, fields };
  };
}

/** `"name":` of each member, made once per name. */
const memberKeys = new Map<string, string>();

/** The JSON text of a member's name and colon, as `JSON.stringify` writes it. */
export function memberKey(name: string): string {
  let key = memberKeys.get(name);
  if (key === undefined) {
    key = `${JSON.stringify(name)}:`;
    if (memberKeys.size < 1024) memberKeys.set(name, key);
  }
  return key;
}

/** Characters a JSON string must escape (and lone surrogates, which `JSON.stringify` escapes too). */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The JSON text of a value, exactly as `JSON.stringify` writes it, cheaper for the plain strings and
 * numbers records are made of (a create serializes one record a request: the hot path).
 */
export function jsonText(value: JsonValue): string {
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

/** The JSON text of a fixed field's value: the planner's, when it made it once, else made now. */
export function fixedText(field: FixedField): string {
  return field.text ?? jsonText(field.value);
}

/**
 * The plan as JSON text pieces around its slots: `segments[i]` comes before slot `i`, the last
 * segment after the last slot. Slot values are written by `slotJson`.
 */
export function planSegments(plan: RecordPlan): { segments: string[]; slots: CounterSlot[] } {
  const segments: string[] = [];
  const slots: CounterSlot[] = [];
  let current = '{';
  let first = true;
  for (const field of plan.fields) {
    current += `${first ? '' : ','}${field.key ?? memberKey(field.name)}`;
    first = false;
    if (isSlot(field)) {
      segments.push(current);
      slots.push(field);
      current = '';
    } else {
      current += fixedText(field);
    }
  }
  segments.push(`${current}}`);
  return { segments, slots };
}

/** The value of a slot for counter value `n`: the id itself, or the sequence string. */
export function slotRecordValue(slot: CounterSlot, n: number): number | string {
  return slot.kind === 'id' ? n : formatSequence(slot.prefix ?? '', slot.width ?? 0, n);
}

/** The counter value a recorded member stands for (journal replay), or 0. */
export function slotValue(slot: CounterSlot, value: JsonValue | undefined): number {
  if (slot.kind === 'id') return typeof value === 'number' && Number.isSafeInteger(value) ? value : 0;
  return parseSequence(slot.prefix ?? '', value);
}
