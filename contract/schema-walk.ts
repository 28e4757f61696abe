/**
 * Reading the contract's schemas as the operations model needs them: `$ref`s inlined, `allOf` merged,
 * the members of an object schema with what each states (type, required, read-only, defaults, bounds).
 */
import { deref, isObject, type JsonObject, type JsonValue, type OpenApiDocument } from './document.js';
import type { Bound, MemberModel } from './model-types.js';
import { escapeToken } from '../util/json-pointer.js';

export const SCHEMA_PREFIX = '#/components/schemas/';

/** A malformed `x-` extension of the contract: where (a JSON Pointer) and what it must be. */
export class ExtensionError extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(`the contract's extension at ${pointer} ${reason}`);
    this.name = 'ExtensionError';
  }
}
/** Keywords whose value is one subschema (inlined like `properties`). */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'not', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames']);

/** Resolves every `$ref` and merges `allOf` parts into one schema object; drops `x-` keywords. */
export function inlineSchema(doc: OpenApiDocument, schema: JsonValue, depth = 0): JsonObject {
  if (depth > 20) return {};
  const node = deref(doc, schema) ?? {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' || key === 'allOf' || key === 'examples' || key === 'description') continue;
    if (key.startsWith('x-') && key !== 'x-default-from' && key !== 'x-default-sequence') continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = inlineSchema(doc, sub, depth + 1);
      out[key] = props;
    } else if (SUBSCHEMA_KEYWORDS.has(key) && isObject(value)) {
      out[key] = inlineSchema(doc, value, depth + 1);
    } else if ((key === 'oneOf' || key === 'anyOf' || key === 'prefixItems') && Array.isArray(value)) {
      out[key] = value.map((part) => inlineSchema(doc, part, depth + 1));
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

/** The component name a schema refers to (`{ $ref: '#/components/schemas/Lot' }` → `Lot`), following `allOf` of one part. */
export function refName(schema: JsonValue | undefined): string | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema['$ref'] === 'string' && schema['$ref'].startsWith(SCHEMA_PREFIX)) return schema['$ref'].slice(SCHEMA_PREFIX.length);
  if (Array.isArray(schema['allOf']) && schema['allOf'].length === 1) return refName(schema['allOf'][0]);
  return undefined;
}

/** The raw (not inlined) property schemas of a component, `allOf` parts included. */
export function rawProperties(doc: OpenApiDocument, name: string, depth = 0): Record<string, JsonValue> {
  const node = deref(doc, { $ref: `${SCHEMA_PREFIX}${name}` });
  if (!node || depth > 10) return {};
  let out: Record<string, JsonValue> = {};
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const ref = refName(part);
      if (ref !== undefined) out = { ...out, ...rawProperties(doc, ref, depth + 1) };
    }
  }
  return { ...out, ...(isObject(node['properties']) ? node['properties'] : {}) };
}

export function boundsOf(schema: JsonObject): Bound[] {
  const keywords: Bound['keyword'][] = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'minLength', 'maxLength'];
  return keywords.flatMap((keyword) => (typeof schema[keyword] === 'number' ? [{ keyword, value: schema[keyword] }] : []));
}

/** The members of an object schema given by a local reference (named or inline), in contract order. */
export function membersOf(doc: OpenApiDocument, ref: string, lotIdSchema: string | undefined): MemberModel[] {
  const inlined = inlineSchema(doc, { $ref: ref });
  const required = Array.isArray(inlined['required']) ? inlined['required'] : [];
  const name = ref.startsWith(SCHEMA_PREFIX) ? ref.slice(SCHEMA_PREFIX.length) : undefined;
  const raw = name !== undefined ? rawProperties(doc, name) : rawOfInline(doc, ref);
  const properties = isObject(inlined['properties']) ? inlined['properties'] : {};
  return Object.entries(properties).flatMap(([member, value]): MemberModel[] => {
    if (!isObject(value)) return [];
    const at = `${ref.slice(1)}/properties/${escapeToken(member)}`;
    const from = value['x-default-from'];
    const sequence = value['x-default-sequence'];
    const [resource, fromMember, ...more] = typeof from === 'string' ? from.split('.') : [];
    if (
      from !== undefined &&
      (resource === undefined || resource === '' || fromMember === undefined || fromMember === '' || more.length > 0)
    )
      throw new ExtensionError(`${at}/x-default-from`, `must be "<resource>.<member>" (lot.lotNumber), not ${JSON.stringify(from)}`);
    if (
      sequence !== undefined &&
      (!isObject(sequence) ||
        typeof sequence['prefix'] !== 'string' ||
        typeof sequence['width'] !== 'number' ||
        !Number.isInteger(sequence['width']) ||
        sequence['width'] < 0 ||
        sequence['width'] > 20)
    )
      throw new ExtensionError(
        `${at}/x-default-sequence`,
        `must be { prefix: <string>, width: <integer 0-20> }, not ${JSON.stringify(sequence)}`,
      );
    return [
      {
        name: member,
        schema: value,
        type: typeof value['type'] === 'string' ? value['type'] : undefined,
        ...(typeof value['format'] === 'string' ? { format: value['format'] } : {}),
        required: required.includes(member),
        readOnly: value['readOnly'] === true,
        ...('default' in value ? { default: value['default'] } : {}),
        ...(resource !== undefined && fromMember !== undefined ? { defaultFrom: { resource, member: fromMember } } : {}),
        ...(isObject(sequence) && typeof sequence['prefix'] === 'string' && typeof sequence['width'] === 'number'
          ? { defaultSequence: { prefix: sequence['prefix'], width: sequence['width'] } }
          : {}),
        bounds: boundsOf(value),
        namesLot: lotIdSchema !== undefined && refName(raw[member]) === lotIdSchema,
      },
    ];
  });
}

/** The raw property schemas of an inline object schema (at a local reference), `allOf` parts included. */
function rawOfInline(doc: OpenApiDocument, ref: string): Record<string, JsonValue> {
  const node = deref(doc, { $ref: ref });
  if (!node) return {};
  let out: Record<string, JsonValue> = {};
  if (Array.isArray(node['allOf']))
    for (const part of node['allOf']) {
      const name = refName(part);
      if (name !== undefined) out = { ...out, ...rawProperties(doc, name) };
    }
  return { ...out, ...(isObject(node['properties']) ? node['properties'] : {}) };
}
