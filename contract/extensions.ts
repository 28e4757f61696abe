/**
 * The one reader of the contract's schema extensions, which say what a server fills in when a client
 * leaves a member out (docs/resources.md):
 *
 * - `x-default-from: <resource>.<member>`: the value of that member of the record the body names
 *   (`lot.lotNumber`: the `lotNumber` of the lot the body's lot-id member names);
 * - `x-default-sequence: { prefix: <string>, width: <integer 0-20> }`: the next number of a sequence of
 *   the resource, zero-padded to `width` digits after `prefix` (`S-000001`).
 *
 * `schemaExtensions` reads every occurrence in the document, each with the JSON Pointer where it is
 * written, so a malformed value anywhere (in a schema no operation uses too) is a start-up error naming
 * that place and what to write there; the operations model (`schema-walk.ts`) gives each member its
 * typed facts (`MemberModel.defaultFrom`, `defaultSequence`) through the same parsers, and the mock, the
 * suite and the proxy read those facts, never the extension.
 */
import { isObject, type JsonObject, type JsonValue } from './json-value.js';
import type { DefaultFrom, DefaultSequence } from './model-types.js';
import { childPointer } from '../util/json-pointer.js';

/** The extensions this module reads on a schema object (the keywords a contract comparison compares too). */
export const SCHEMA_EXTENSIONS = ['x-default-from', 'x-default-sequence'] as const;
export type SchemaExtension = (typeof SCHEMA_EXTENSIONS)[number];

/** The widest `x-default-sequence` width: 20 digits hold every number a sequence reaches. */
export const MAX_SEQUENCE_WIDTH = 20;

/** A malformed `x-` extension of the contract: `pointer` names where it is written, the message what is wrong and what to write. */
export class ExtensionError extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(`${reason} (at ${pointer})`);
    this.name = 'ExtensionError';
  }
}

/** A value as the message shows it (cut when long). */
function shown(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Reads `x-default-from` written at `pointer` (throws an ExtensionError naming it when malformed). */
export function parseDefaultFrom(value: JsonValue, pointer: string): DefaultFrom {
  const parts = typeof value === 'string' ? value.split('.') : [];
  const [resource, member] = parts;
  if (parts.length !== 2 || resource === undefined || member === undefined || resource === '' || member === '')
    throw new ExtensionError(
      pointer,
      `x-default-from is ${shown(value)}, not "<resource>.<member>": write the record the default is read from and its member, e.g. "lot.lotNumber"`,
    );
  return { resource, member };
}

/** Reads `x-default-sequence` written at `pointer` (throws an ExtensionError naming the part that is wrong). */
export function parseDefaultSequence(value: JsonValue, pointer: string): DefaultSequence {
  const shape = `{ prefix: <string>, width: <integer 0-${MAX_SEQUENCE_WIDTH}> }, e.g. { prefix: "S-", width: 6 }`;
  if (!isObject(value)) throw new ExtensionError(pointer, `x-default-sequence is ${shown(value)}, not an object: write ${shape}`);
  for (const key of Object.keys(value))
    if (key !== 'prefix' && key !== 'width')
      throw new ExtensionError(childPointer(pointer, key), `x-default-sequence has no "${key}" (only prefix and width): remove it`);
  const { prefix, width } = value;
  if (typeof prefix !== 'string')
    throw new ExtensionError(
      prefix === undefined ? pointer : childPointer(pointer, 'prefix'),
      `x-default-sequence needs "prefix", the text before the number (a string; "" for none): write ${shape}`,
    );
  if (typeof width !== 'number' || !Number.isInteger(width) || width < 0 || width > MAX_SEQUENCE_WIDTH)
    throw new ExtensionError(
      width === undefined ? pointer : childPointer(pointer, 'width'),
      `x-default-sequence needs "width", the digits the number is zero-padded to (an integer from 0 to ${MAX_SEQUENCE_WIDTH}), not ${width === undefined ? 'none' : shown(width)}: write ${shape}`,
    );
  return { prefix, width };
}

/** One schema object carrying extensions: where it is and what they say. */
export interface ExtensionSite {
  /** The pointer of the schema object (its extensions are `<pointer>/x-default-from`, ...). */
  pointer: string;
  defaultFrom?: DefaultFrom;
  defaultSequence?: DefaultSequence;
}

/** Members whose value is data (an example, a default, a constant), never a schema. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default']);
/** Members whose value maps names to schemas (a member named `x-default-from` there is a property, not the extension). */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'schemas']);

/** The typed extensions of one schema object written at `pointer`, or undefined when it has none (throws when malformed). */
export function extensionsOf(node: JsonObject, pointer: string): ExtensionSite | undefined {
  const from = node['x-default-from'];
  const sequence = node['x-default-sequence'];
  if (from === undefined && sequence === undefined) return undefined;
  if (from !== undefined && sequence !== undefined)
    throw new ExtensionError(
      pointer,
      'a member has both x-default-from and x-default-sequence, but a member left out gets one value: keep the one the server fills in',
    );
  if ('default' in node)
    throw new ExtensionError(
      childPointer(pointer, from !== undefined ? 'x-default-from' : 'x-default-sequence'),
      `a member has both default and ${from !== undefined ? 'x-default-from' : 'x-default-sequence'}, but a member left out gets one value: keep the one the server fills in`,
    );
  return {
    pointer,
    ...(from !== undefined ? { defaultFrom: parseDefaultFrom(from, childPointer(pointer, 'x-default-from')) } : {}),
    ...(sequence !== undefined ? { defaultSequence: parseDefaultSequence(sequence, childPointer(pointer, 'x-default-sequence')) } : {}),
  };
}

/**
 * Every schema object of the document that carries `x-default-from` or `x-default-sequence`, in
 * document order, each read (throws an ExtensionError naming the first malformed one). Data (examples,
 * defaults, constants) and the values of other extensions are not schemas and are not searched.
 */
export function schemaExtensions(document: JsonValue): ExtensionSite[] {
  const sites: ExtensionSite[] = [];
  const seen = new Set<object>();
  const walk = (node: JsonValue, pointer: string, nameMap: boolean): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, childPointer(pointer, index), false));
      return;
    }
    if (!nameMap) {
      const site = extensionsOf(node, pointer);
      if (site !== undefined) sites.push(site);
    }
    for (const [key, value] of Object.entries(node)) {
      if (!nameMap && (DATA_KEYWORDS.has(key) || key.startsWith('x-'))) continue;
      walk(value, childPointer(pointer, key), !nameMap && NAME_MAPS.has(key));
    }
  };
  walk(document, '', false);
  return sites;
}
