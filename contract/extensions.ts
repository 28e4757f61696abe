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
 *
 * The markers of the two levels (contract/README.md) and the body limit are read here too:
 * `x-profile: [keyword, ...]` on a schema object (or an operation, the document), `x-profile: true` on
 * a response, `x-spec-status: 2XX` on a success response, `x-max-body-bytes: <bytes>` on a 413 answer.
 * `checkMarkers` refuses a malformed one at start-up (a marker that said nothing would move a profile
 * rule to the specification, or a limit to the server stack's default); `levels.ts`, `document.ts` and
 * the contract comparison read them through `profileKeywords`, `isProfileResponse`, `specStatusOf` and
 * `maxBodyBytesOf`.
 */
import { isObject, type JsonObject, type JsonValue } from './json-value.js';
import { childPointer } from '../util/json-pointer.js';
import { PointedContractError } from './pointed-error.js';

/** `x-default-from: <resource>.<member>`: a default read from a member of another record. */
export interface DefaultFrom {
  resource: string;
  member: string;
}

/** `x-default-sequence: { prefix, width }`: a default generated, unique (`S-000001`). */
export interface DefaultSequence {
  prefix: string;
  width: number;
}

/** The extensions this module reads on a schema object (the keywords a contract comparison compares too). */
export const SCHEMA_EXTENSIONS = ['x-default-from', 'x-default-sequence'] as const;
export type SchemaExtension = (typeof SCHEMA_EXTENSIONS)[number];

/** The widest `x-default-sequence` width: 20 digits hold every number a sequence reaches. */
export const MAX_SEQUENCE_WIDTH = 20;

/** A malformed `x-` extension of the contract: `pointer` names where it is written, the message what is wrong and what to write. */
export class ExtensionError extends PointedContractError {}

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

/** The keywords `x-profile: [keyword, ...]` marks as profile rules on an object (none for `x-profile: true` or no marker). */
export function profileKeywords(node: JsonObject): ReadonlySet<string> {
  const marked = node['x-profile'];
  return new Set(Array.isArray(marked) ? marked.filter((k): k is string => typeof k === 'string') : []);
}

/** A response marked `x-profile: true`: its status code and body are a profile decision. */
export function isProfileResponse(node: JsonObject): boolean {
  return node['x-profile'] === true;
}

/** The status the specification gives a success response (`x-spec-status: 2XX`), when marked. */
export function specStatusOf(node: JsonObject): string | undefined {
  const status = node['x-spec-status'];
  return typeof status === 'string' ? status : undefined;
}

/** The largest request body an operation accepts (`x-max-body-bytes` of its 413 answer), when stated. */
export function maxBodyBytesOf(node: JsonObject): number | undefined {
  const bytes = node['x-max-body-bytes'];
  return typeof bytes === 'number' ? bytes : undefined;
}

/** Throws an ExtensionError for a malformed marker or limit of the object at `pointer`. */
function checkMarkersOf(node: JsonObject, pointer: string): void {
  const marked = node['x-profile'];
  const at = childPointer(pointer, 'x-profile');
  if (marked !== undefined && marked !== true) {
    if (!Array.isArray(marked))
      throw new ExtensionError(
        at,
        `x-profile is ${shown(marked)}: write the keywords of this object that are profile rules as a list (x-profile: [required]), or true on a response that is a profile decision`,
      );
    marked.forEach((keyword, index) => {
      if (typeof keyword !== 'string' || keyword === '')
        throw new ExtensionError(
          childPointer(at, index),
          `x-profile lists ${shown(keyword)}: list keyword names of this object (x-profile: [required])`,
        );
    });
  }
  const status = node['x-spec-status'];
  if (status !== undefined && (typeof status !== 'string' || !/^[1-5](XX|\d\d)$/.test(status)))
    throw new ExtensionError(
      childPointer(pointer, 'x-spec-status'),
      `x-spec-status is ${shown(status)}: write the status the specification gives the response, a code or a class (2XX)`,
    );
  const bytes = node['x-max-body-bytes'];
  if (bytes !== undefined && (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1))
    throw new ExtensionError(
      childPointer(pointer, 'x-max-body-bytes'),
      `x-max-body-bytes is ${shown(bytes)}: write the largest request body accepted, in bytes (a whole number from 1, e.g. 1048576)`,
    );
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

/** Each object of the document that is no name map, data or extension value, once, with its pointer. */
function eachObject(document: JsonValue, visit: (node: JsonObject, pointer: string) => void): void {
  const seen = new Set<object>();
  const walk = (node: JsonValue, pointer: string, nameMap: boolean): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, childPointer(pointer, index), false));
      return;
    }
    if (!nameMap) visit(node, pointer);
    for (const [key, value] of Object.entries(node)) {
      if (!nameMap && (DATA_KEYWORDS.has(key) || key.startsWith('x-'))) continue;
      walk(value, childPointer(pointer, key), !nameMap && NAME_MAPS.has(key));
    }
  };
  walk(document, '', false);
}

/**
 * Every schema object of the document that carries `x-default-from` or `x-default-sequence`, in
 * document order, each read (throws an ExtensionError naming the first malformed one). Data (examples,
 * defaults, constants) and the values of other extensions are not schemas and are not searched.
 */
export function schemaExtensions(document: JsonValue): ExtensionSite[] {
  const sites: ExtensionSite[] = [];
  eachObject(document, (node, pointer) => {
    const site = extensionsOf(node, pointer);
    if (site !== undefined) sites.push(site);
  });
  return sites;
}

/** Throws an ExtensionError naming the first malformed `x-profile`, `x-spec-status` or `x-max-body-bytes` of the document. */
export function checkMarkers(document: JsonValue): void {
  eachObject(document, checkMarkersOf);
}
