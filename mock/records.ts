/**
 * What a change does to a record, as pure functions of JSON: a JSON merge patch (RFC 7396), a replace
 * that keeps the server-assigned members, an action's members set; the stamps of a change; the
 * equality filters of a list. The record model (`record-model.ts`) says which members are assigned by
 * the server and how each gets its value; the store keeps the record's JSON as these functions make it.
 */
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import { mergePatch } from '../contract/json-value.js';
import type { RecordModel } from './record-model.js';

/** A change of a record: a merge patch, a whole new body (replace), or an action's members set. */
export type RecordChange =
  | { kind: 'merge'; patch: JsonObject }
  | { kind: 'replace'; body: JsonObject; lot: JsonObject | undefined }
  | { kind: 'action'; sets: JsonObject };

/**
 * The record after `change`, in the contract's member order: server-assigned members kept (an id, the
 * create's time, a generated sequence), the change stamps (`modified`) set to `now`; a replace fills the
 * members it omits with their defaults, as a create does.
 */
export function changedRecord(current: JsonObject, change: RecordChange, model: RecordModel, now: string): JsonObject {
  const assigned = new Set(
    model.fields.filter((f) => f.rule.kind === 'id' || f.rule.kind === 'timestamp' || f.rule.kind === 'sequence').map((f) => f.name),
  );
  let next: JsonObject;
  if (change.kind === 'merge') {
    const patch = Object.fromEntries(Object.entries(change.patch).filter(([name]) => !assigned.has(name)));
    const merged = mergePatch(current, patch);
    next = isObject(merged) ? merged : {};
  } else if (change.kind === 'action') {
    next = { ...current, ...change.sets };
  } else {
    next = {};
    for (const { name, rule } of model.fields) {
      if (assigned.has(name)) continue;
      if (Object.hasOwn(change.body, name)) next[name] = change.body[name] ?? null;
      else if (rule.kind === 'default') next[name] = rule.value;
      else if (rule.kind === 'from-lot' && change.lot?.[rule.member] !== undefined) next[name] = change.lot[rule.member] ?? null;
    }
  }
  const out: JsonObject = {};
  for (const { name, rule } of model.fields) {
    if (rule.kind === 'timestamp' && rule.stamp === 'changed') out[name] = now;
    else if (assigned.has(name)) {
      if (current[name] !== undefined) out[name] = current[name];
    } else if (next[name] !== undefined) out[name] = next[name];
  }
  // Members the contract does not list (an open record schema) follow, as the client sent them.
  for (const [name, value] of Object.entries(next)) if (!Object.hasOwn(out, name) && !assigned.has(name)) out[name] = value;
  return out;
}

/** The members of `record` not equal to `wanted` (an action's `requires`): empty when the record may start the action. */
export function unmet(record: JsonObject, wanted: JsonObject): string[] {
  return Object.entries(wanted)
    .filter(([name, value]) => JSON.stringify(record[name] ?? null) !== JSON.stringify(value))
    .map(([name]) => name);
}

/** A record matches every equality filter: its member equals each value given. */
export function matches(record: JsonValue, filters: readonly { member: string; value: JsonValue }[]): boolean {
  if (!isObject(record)) return false;
  return filters.every(({ member, value }) => JSON.stringify(record[member] ?? null) === JSON.stringify(value));
}
