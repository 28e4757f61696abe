/**
 * Request bodies derived from the contract's request schemas (strict level): valid bodies generated
 * with json-schema-faker (seeded: the same seed and key give the same body), and invalid bodies
 * derived from a valid one (each required member dropped, each member given a wrong type, each
 * bound broken, an unknown member added), each naming the member a server must point at.
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { deref, isObject, listOperations, type JsonObject, type JsonValue, type OpenApiDocument } from '../contract/document.js';
import type { CreateOperationId } from './operations.js';

/** The members of one create request, as the contract states them. */
export interface BodyModel {
  operation: CreateOperationId;
  /** Every member, its schema with `$ref`s inlined and `allOf` merged. */
  properties: Record<string, JsonObject>;
  required: string[];
  /** Members the server assigns (`readOnly`). */
  readOnly: string[];
}

export interface InvalidBody {
  /** What was broken, e.g. `amount: exclusiveMinimum broken`. */
  label: string;
  body: JsonObject;
  /** The JSON Pointer the answer's `errors[]` must name. */
  pointer: string;
}

/** Resolves every `$ref` and merges `allOf` parts into one schema object; drops `x-` keywords. */
export function inlineSchema(doc: OpenApiDocument, schema: JsonValue, depth = 0): JsonObject {
  if (depth > 20) return {};
  const node = deref(doc, schema) ?? {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' || key.startsWith('x-') || key === 'allOf' || key === 'examples' || key === 'description') continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = inlineSchema(doc, sub, depth + 1);
      out[key] = props;
    } else if (key === 'items') {
      out[key] = inlineSchema(doc, value, depth + 1);
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const merged = inlineSchema(doc, part, depth + 1);
      for (const [key, value] of Object.entries(merged)) {
        if (key === 'properties' && isObject(value)) out[key] = { ...(isObject(out[key]) ? out[key] : {}), ...value };
        else if (key === 'required' && Array.isArray(value))
          out[key] = [...new Set([...(Array.isArray(out[key]) ? out[key] : []), ...value])];
        else if (!(key in out)) out[key] = value;
      }
    }
  }
  return out;
}

/** The body model of a create operation, read from the (strict) contract. */
export function bodyModel(doc: OpenApiDocument, operation: CreateOperationId): BodyModel {
  const spec = listOperations(doc).find((op) => op.operationId === operation);
  const schema = spec?.requestBody?.content.get('application/json');
  if (!schema) throw new Error(`the contract has no application/json request body for ${operation}`);
  const inlined = inlineSchema(doc, schema);
  const properties: Record<string, JsonObject> = {};
  const readOnly: string[] = [];
  for (const [name, sub] of Object.entries(isObject(inlined['properties']) ? inlined['properties'] : {})) {
    if (!isObject(sub)) continue;
    properties[name] = sub;
    if (sub['readOnly'] === true) readOnly.push(name);
  }
  const required = Array.isArray(inlined['required']) ? inlined['required'].filter((r): r is string => typeof r === 'string') : [];
  return { operation, properties, required, readOnly };
}

/** A 32-bit seed per (run seed, key): a body does not depend on which other bodies were made. */
export function subSeed(seed: number, key: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h % 2_147_483_647 || 1;
}

/** Generates a body with every writable member (`all`) or only the required ones. */
export function generateBody(model: BodyModel, seed: number, key: string, members: 'all' | 'required'): JsonObject {
  const properties: JsonObject = {};
  for (const [name, schema] of Object.entries(model.properties)) {
    if (model.readOnly.includes(name)) continue;
    if (members === 'required' && !model.required.includes(name)) continue;
    const copy: JsonObject = { ...schema };
    delete copy['default'];
    delete copy['readOnly'];
    properties[name] = copy;
  }
  const schema = { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  const value = generateSync(schema as unknown as JsonSchema, {
    seed: subSeed(seed, key),
    alwaysFakeOptionals: true,
    useDefaultValue: false,
  });
  if (!isObject(value)) throw new Error(`json-schema-faker made no object for ${model.operation}`);
  return value;
}

function typeOf(schema: JsonObject): string | undefined {
  return typeof schema['type'] === 'string' ? schema['type'] : undefined;
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: JsonObject): JsonValue {
  switch (typeOf(schema)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'true';
    case 'array':
    case 'object':
      return 'not-a-structure';
    default:
      return [];
  }
}

/** For each bound of a schema, a value just past it. */
function brokenBounds(schema: JsonObject): { keyword: string; value: JsonValue }[] {
  const out: { keyword: string; value: JsonValue }[] = [];
  const integer = typeOf(schema) === 'integer';
  const step = integer ? 1 : 0.5;
  const num = (k: string): number | undefined => (typeof schema[k] === 'number' ? schema[k] : undefined);
  const min = num('minimum');
  if (min !== undefined) out.push({ keyword: 'minimum', value: min - step });
  const exMin = num('exclusiveMinimum');
  if (exMin !== undefined) out.push({ keyword: 'exclusiveMinimum', value: exMin });
  const max = num('maximum');
  if (max !== undefined) out.push({ keyword: 'maximum', value: max + step });
  const exMax = num('exclusiveMaximum');
  if (exMax !== undefined) out.push({ keyword: 'exclusiveMaximum', value: exMax });
  const minLength = num('minLength');
  if (minLength !== undefined && minLength > 0) out.push({ keyword: 'minLength', value: 'x'.repeat(minLength - 1) });
  const maxLength = num('maxLength');
  if (maxLength !== undefined) out.push({ keyword: 'maxLength', value: 'x'.repeat(maxLength + 1) });
  return out;
}

export const UNKNOWN_MEMBER = 'conformance_unknown_member';

export function missingRequired(model: BodyModel, valid: JsonObject): InvalidBody[] {
  return model.required.map((name) => {
    const body = { ...valid };
    delete body[name];
    return { label: `required member ${name} dropped`, body, pointer: `/${name}` };
  });
}

export function wrongTypes(model: BodyModel, valid: JsonObject): InvalidBody[] {
  return Object.entries(model.properties)
    .filter(([name]) => !model.readOnly.includes(name))
    .map(([name, schema]) => ({ label: `${name} given a wrong type`, body: { ...valid, [name]: wrongType(schema) }, pointer: `/${name}` }));
}

export function outOfBounds(model: BodyModel, valid: JsonObject): InvalidBody[] {
  const out: InvalidBody[] = [];
  for (const [name, schema] of Object.entries(model.properties)) {
    if (model.readOnly.includes(name)) continue;
    for (const { keyword, value } of brokenBounds(schema)) {
      out.push({ label: `${name} breaks ${keyword}`, body: { ...valid, [name]: value }, pointer: `/${name}` });
    }
  }
  return out;
}

export function unknownMember(valid: JsonObject, marker: string): InvalidBody[] {
  return [{ label: `unknown member ${UNKNOWN_MEMBER} added`, body: { ...valid, [UNKNOWN_MEMBER]: marker }, pointer: `/${UNKNOWN_MEMBER}` }];
}
