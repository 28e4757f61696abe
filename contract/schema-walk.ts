/**
 * Reading the contract's schemas as the operations model needs them: `$ref`s inlined, `allOf` merged,
 * the members of an object schema with what each states (type, required, read-only, defaults, bounds).
 */
import { deref, isObject, resolvePointer, type JsonObject, type JsonValue, type OpenApiDocument } from './document.js';
import { extensionsOf, SCHEMA_EXTENSIONS } from './extensions.js';
import type { Bound, MemberModel } from './model-types.js';
import { childPointer } from '../util/json-pointer.js';

export const SCHEMA_PREFIX = '#/components/schemas/';

/** Keywords whose value is one subschema (inlined like `properties`). */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'not', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames']);

const KEPT_EXTENSIONS: ReadonlySet<string> = new Set(SCHEMA_EXTENSIONS);

/**
 * Resolves every `$ref` and merges `allOf` parts into one schema object; drops `x-` keywords (but the
 * schema extensions `extensions.ts` reads, with `extensions`: the operations model reads them from a
 * member's merged schema).
 */
export function inlineSchema(doc: OpenApiDocument, schema: JsonValue, depth = 0, extensions = false): JsonObject {
  if (depth > 20) return {};
  const node = deref(doc, schema) ?? {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' || key === 'allOf' || key === 'examples' || key === 'description') continue;
    if (key.startsWith('x-') && !(extensions && KEPT_EXTENSIONS.has(key))) continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = inlineSchema(doc, sub, depth + 1, extensions);
      out[key] = props;
    } else if (SUBSCHEMA_KEYWORDS.has(key) && isObject(value)) {
      out[key] = inlineSchema(doc, value, depth + 1, extensions);
    } else if ((key === 'oneOf' || key === 'anyOf' || key === 'prefixItems') && Array.isArray(value)) {
      out[key] = value.map((part) => inlineSchema(doc, part, depth + 1, extensions));
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const merged = inlineSchema(doc, part, depth + 1, extensions);
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

/**
 * The members of an object schema given by a local reference (named or inline), in contract order.
 * Each member's extensions are read from its merged schema (`extensions.ts`; the operations model has
 * read each written one with its own pointer first, so what can fail here is two of them merged).
 */
export function membersOf(doc: OpenApiDocument, ref: string, lotIdSchema: string | undefined): MemberModel[] {
  const inlined = inlineSchema(doc, { $ref: ref });
  // The same merge keeping the extensions: each member's are read from it; its schema keeps no x- keyword.
  const extended = inlineSchema(doc, { $ref: ref }, 0, true);
  const extendedProperties = isObject(extended['properties']) ? extended['properties'] : {};
  const required = Array.isArray(inlined['required']) ? inlined['required'] : [];
  const name = ref.startsWith(SCHEMA_PREFIX) ? ref.slice(SCHEMA_PREFIX.length) : undefined;
  const raw = name !== undefined ? rawProperties(doc, name) : rawOfInline(doc, ref);
  const properties = isObject(inlined['properties']) ? inlined['properties'] : {};
  return Object.entries(properties).flatMap(([member, schema]): MemberModel[] => {
    if (!isObject(schema)) return [];
    const withExtensions = extendedProperties[member];
    const site = isObject(withExtensions) ? extensionsOf(withExtensions, propertyPointer(doc, ref.slice(1), member)) : undefined;
    return [
      {
        name: member,
        schema,
        type: typeof schema['type'] === 'string' ? schema['type'] : undefined,
        ...(typeof schema['format'] === 'string' ? { format: schema['format'] } : {}),
        required: required.includes(member),
        readOnly: schema['readOnly'] === true,
        ...('default' in schema ? { default: schema['default'] } : {}),
        ...(site?.defaultFrom !== undefined ? { defaultFrom: site.defaultFrom } : {}),
        ...(site?.defaultSequence !== undefined ? { defaultSequence: site.defaultSequence } : {}),
        bounds: boundsOf(schema),
        namesLot: lotIdSchema !== undefined && refName(raw[member]) === lotIdSchema,
      },
    ];
  });
}

/** Where a member's schema is written below the schema at `pointer`, as `inlineSchema` merges it (the last `allOf` part listing it wins). */
function writtenAt(doc: OpenApiDocument, pointer: string, member: string, depth: number): string | undefined {
  const node = resolvePointer(doc, `#${pointer}`);
  if (!isObject(node) || depth > 20) return undefined;
  if (typeof node['$ref'] === 'string' && node['$ref'].startsWith('#/')) return writtenAt(doc, node['$ref'].slice(1), member, depth + 1);
  const parts = Array.isArray(node['allOf']) ? node['allOf'] : [];
  for (let index = parts.length - 1; index >= 0; index--) {
    const found = writtenAt(doc, childPointer(childPointer(pointer, 'allOf'), index), member, depth + 1);
    if (found !== undefined) return found;
  }
  return isObject(node['properties']) && member in node['properties']
    ? childPointer(childPointer(pointer, 'properties'), member)
    : undefined;
}

/** The JSON Pointer of a member's schema in the document, below the object schema at `pointer` (`$ref`s and `allOf` followed). */
export function propertyPointer(doc: OpenApiDocument, pointer: string, member: string): string {
  return writtenAt(doc, pointer, member, 0) ?? childPointer(childPointer(pointer, 'properties'), member);
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
