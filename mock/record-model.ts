/**
 * How a created record is built, read from the contract once at start-up (no field rule is written
 * in handler code):
 * - `readOnly` members of the request schema are stripped from the request body before validation;
 * - `readOnly` members of the answer are assigned by the server: an integer is the next id of the
 *   resource, a `date-time` string is the time of the create;
 * - `default: v` fills an omitted member with v;
 * - `x-default-from: lot.<member>` fills it from that member of the lot the body references;
 * - `x-default-sequence: {prefix, width}` fills it with the next number of a per-resource sequence.
 * The lot (the request member naming one, and the resource `x-default-from` names) comes from the
 * operations model, which reads it from the contract (`contract/operations-model.ts`).
 */
import { deref, isObject, type JsonObject, type JsonValue, type OpenApiDocument } from '../contract/document.js';

export type FieldRule =
  | { kind: 'id' }
  | { kind: 'timestamp' }
  | { kind: 'default'; value: JsonValue }
  | { kind: 'from-lot'; member: string }
  | { kind: 'sequence'; prefix: string; width: number }
  | { kind: 'input' };

export interface FieldSpec {
  name: string;
  rule: FieldRule;
}

export interface RecordModel {
  /** The answer's members, in the contract's order, with how each gets its value. */
  fields: FieldSpec[];
  /** Request members the server assigns itself (stripped from a request body). */
  readOnly: string[];
  /** The request member naming a lot (`fk_lot_id`). */
  lotMember: string;
}

/** The lot a create refers to, as the operations model reads it from the contract. */
export interface LotLink {
  /** The request member naming a lot (its schema is the lot-id schema), when the create has one. */
  member: string | undefined;
  /** The resource `x-default-from: <resource>.<member>` names (`lot`). */
  resource: string;
}

/** The properties of a schema, following `$ref` and `allOf`, in document order. */
export function collectProperties(doc: OpenApiDocument, schema: JsonValue | undefined, depth = 0): Map<string, JsonObject> {
  const result = new Map<string, JsonObject>();
  const node = deref(doc, schema);
  if (!node || depth > 20) return result;
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) for (const [name, value] of collectProperties(doc, part, depth + 1)) result.set(name, value);
  }
  if (isObject(node['properties'])) {
    for (const [name, value] of Object.entries(node['properties'])) if (isObject(value)) result.set(name, value);
  }
  return result;
}

/** Reads a keyword of a property schema, looking through `$ref` and `allOf`. */
function keyword(doc: OpenApiDocument, schema: JsonValue | undefined, name: string, depth = 0): JsonValue | undefined {
  if (depth > 20) return undefined;
  if (isObject(schema) && name in schema) return schema[name];
  const node = deref(doc, schema);
  if (!node) return undefined;
  if (name in node) return node[name];
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const found = keyword(doc, part, name, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function ruleFor(doc: OpenApiDocument, where: string, name: string, schema: JsonObject, lot: LotLink): FieldRule {
  if (keyword(doc, schema, 'readOnly') === true) {
    if (keyword(doc, schema, 'type') === 'integer') return { kind: 'id' };
    if (keyword(doc, schema, 'format') === 'date-time') return { kind: 'timestamp' };
    throw new Error(`${where}: the readOnly member "${name}" is neither an integer id nor a date-time; the mock cannot assign it`);
  }
  const from = keyword(doc, schema, 'x-default-from');
  if (typeof from === 'string') {
    const member = from.startsWith(`${lot.resource}.`) ? from.slice(lot.resource.length + 1) : '';
    if (member === '') throw new Error(`${where}: x-default-from "${from}" of "${name}" is not of the form ${lot.resource}.<member>`);
    return { kind: 'from-lot', member };
  }
  const sequence = keyword(doc, schema, 'x-default-sequence');
  if (sequence !== undefined) {
    if (!isObject(sequence) || typeof sequence['prefix'] !== 'string' || typeof sequence['width'] !== 'number') {
      throw new Error(`${where}: x-default-sequence of "${name}" must be {prefix: string, width: number}`);
    }
    return { kind: 'sequence', prefix: sequence['prefix'], width: sequence['width'] };
  }
  const value = keyword(doc, schema, 'default');
  if (value !== undefined) return { kind: 'default', value };
  return { kind: 'input' };
}

/** Builds the model of a create operation from its request schema, its answer schema and the lot it refers to. */
export function recordModel(
  doc: OpenApiDocument,
  where: string,
  requestSchema: JsonValue,
  answerSchema: JsonValue,
  lot: LotLink,
): RecordModel {
  const requestProps = collectProperties(doc, requestSchema);
  const answerProps = collectProperties(doc, answerSchema);
  const fields = [...answerProps].map(([name, schema]) => ({ name, rule: ruleFor(doc, where, name, schema, lot) }));
  const readOnly = [...requestProps].filter(([, schema]) => keyword(doc, schema, 'readOnly') === true).map(([name]) => name);
  const lotMember = lot.member;
  if (lotMember === undefined || !requestProps.has(lotMember))
    throw new Error(`${where}: the request schema has no member naming a ${lot.resource} (a member of its id schema)`);
  return { fields, readOnly, lotMember };
}

/** The next value of a sequence, e.g. `S-000001`. */
export function formatSequence(prefix: string, width: number, n: number): string {
  return `${prefix}${String(n).padStart(width, '0')}`;
}

/** The number in a sequence value, or 0 when it is not one (a value the client chose). */
export function parseSequence(prefix: string, value: JsonValue | undefined): number {
  if (typeof value !== 'string' || !value.startsWith(prefix)) return 0;
  const digits = value.slice(prefix.length);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : 0;
}
