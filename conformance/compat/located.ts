/**
 * A schema of the contract read for comparison: `$ref`s followed and `allOf` parts merged (as
 * `inlineSchema` of the operations model does), each keyword kept with the JSON Pointer of the
 * document object it is written on and whether that object marks it as a profile rule (`x-profile`).
 * Two contracts are compared on these facts, so every change names where it stands in both documents
 * and the level it belongs to.
 */
import { isObject, resolvePointer, type JsonValue, type OpenApiDocument } from '../../contract/document.js';
import { profileKeywords, SCHEMA_EXTENSIONS } from '../../contract/extensions.js';
import { childPointer } from '../../util/json-pointer.js';

/** One keyword's value, where it is written, and whether it is a profile rule there. */
export interface Located {
  value: JsonValue;
  pointer: string;
  profile: boolean;
}

export interface SchemaFacts {
  /** The pointer of the schema object itself (after `$ref`s: the object the member's keywords are read from first). */
  pointer: string;
  /** The comparable keywords (`COMPARED`), merged over `$ref` and `allOf`. */
  keywords: Map<string, Located>;
  /** Member name → where it is listed as required (the `required` array's pointer). */
  required: Map<string, Located>;
  /** Member name → its schema. */
  properties: Map<string, SchemaFacts>;
  /** Where the members are listed (the first `properties` object found); where a new member would go. */
  propertiesPointer?: string;
  /** The schema of the items of an array. */
  items?: SchemaFacts;
}

/**
 * The keywords compared between two contracts: what a value may be, and what the server does with
 * it. Annotations (`description`, `examples`, `title`) change nothing for either side.
 */
export const COMPARED = [
  'type',
  'enum',
  'const',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'oneOf',
  'anyOf',
  'not',
  'readOnly',
  'writeOnly',
  'default',
  ...SCHEMA_EXTENSIONS,
] as const;

const COMPARED_SET: ReadonlySet<string> = new Set(COMPARED);
const MAX_DEPTH = 20;

function empty(pointer: string): SchemaFacts {
  return { pointer, keywords: new Map(), required: new Map(), properties: new Map() };
}

/** Adds `from` into `into` where `into` has nothing yet (the object's own keywords win over its `allOf` parts). */
function mergeInto(into: SchemaFacts, from: SchemaFacts): void {
  for (const [key, value] of from.keywords) if (!into.keywords.has(key)) into.keywords.set(key, value);
  for (const [name, value] of from.required) if (!into.required.has(name)) into.required.set(name, value);
  for (const [name, value] of from.properties) if (!into.properties.has(name)) into.properties.set(name, value);
  if (!into.items && from.items) into.items = from.items;
  if (into.propertiesPointer === undefined && from.propertiesPointer !== undefined) into.propertiesPointer = from.propertiesPointer;
}

/**
 * Reads the schema at `node` (written at `pointer` in `doc`). A `$ref` already being read on the way
 * here (a recursive schema: a tree, a list of itself) is not read again: it is kept as the keyword
 * `$ref`, so two contracts compare it by the name it refers to.
 */
export function locateSchema(
  doc: OpenApiDocument,
  node: JsonValue | undefined,
  pointer: string,
  depth = 0,
  reading: ReadonlySet<string> = new Set(),
): SchemaFacts {
  if (!isObject(node) || depth > MAX_DEPTH) return empty(pointer);
  const facts = empty(pointer);
  const profile = profileKeywords(node);
  for (const [key, value] of Object.entries(node)) {
    if (COMPARED_SET.has(key)) facts.keywords.set(key, { value, pointer: childPointer(pointer, key), profile: profile.has(key) });
  }
  if (Array.isArray(node['required'])) {
    node['required'].forEach((name, index) => {
      if (typeof name === 'string')
        facts.required.set(name, {
          value: true,
          pointer: childPointer(childPointer(pointer, 'required'), index),
          profile: profile.has('required'),
        });
    });
  }
  const properties = node['properties'];
  if (isObject(properties)) {
    facts.propertiesPointer = childPointer(pointer, 'properties');
    for (const [name, value] of Object.entries(properties)) {
      facts.properties.set(name, locateSchema(doc, value, childPointer(childPointer(pointer, 'properties'), name), depth + 1, reading));
    }
  }
  if (isObject(node['items'])) facts.items = locateSchema(doc, node['items'], childPointer(pointer, 'items'), depth + 1, reading);
  const ref = node['$ref'];
  if (typeof ref === 'string' && reading.has(ref)) {
    facts.keywords.set('$ref', { value: ref, pointer: childPointer(pointer, '$ref'), profile: false });
  } else if (typeof ref === 'string' && ref.startsWith('#')) {
    const target = decodeURIComponent(ref.slice(1));
    mergeInto(facts, locateSchema(doc, resolvePointer(doc, ref), target, depth + 1, new Set([...reading, ref])));
    // The object a `$ref` names is where its keywords are written: report that place.
    if (Object.keys(node).every((key) => key === '$ref' || key === 'description')) facts.pointer = target;
  }
  if (Array.isArray(node['allOf'])) {
    node['allOf'].forEach((part, index) => {
      mergeInto(facts, locateSchema(doc, part, childPointer(childPointer(pointer, 'allOf'), index), depth + 1, reading));
    });
  }
  return facts;
}
