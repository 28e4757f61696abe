/**
 * Values derived from a schema (JSON Schema 2020-12 as an OpenAPI 3.1 contract writes it), never
 * from a list of member names:
 * - `validCandidates`: the boundary values of every keyword (`minimum`/`maximum` and their exclusive
 *   forms, `multipleOf`, `minLength`/`maxLength`, `enum`, `const`, `format`, `pattern`, array sizes,
 *   type lists with `null`, `oneOf`/`anyOf` branches) plus the catalogue's classes of the type, each
 *   fitted to the schema (`fit`); the caller keeps those the compiled contract accepts;
 * - `breakingValues`: for every keyword of a schema, values that break it (a wrong JSON type per type
 *   class, just past each bound, off the enum, another const, a string outside the pattern or the
 *   format, a required member missing, an unknown member), each at the JSON Pointer it must be
 *   reported at; the caller keeps those the compiled contract refuses at that pointer.
 */
import { generateSync } from 'json-schema-faker';
import { isObject, type JsonObject, type JsonValue } from '../../contract/document.js';
import { childPointer } from '../../util/json-pointer.js';
import { VALUE_CATALOGUE, type CatalogueType } from './catalogue.js';

export interface Candidate {
  name: string;
  value: JsonValue;
  /** Why the class matters (catalogue classes). */
  reason?: string;
}

export interface Breaking {
  /** The keyword the value breaks (`type`, `maxLength`, `required`, `unevaluatedProperties`, ...). */
  keyword: string;
  name: string;
  /** The JSON Pointer (relative to the schema's instance) the problem must be reported at. */
  pointer: string;
  /** The whole instance of the schema, broken at `pointer` (an object without its required member, with a property replaced, ...). */
  value: JsonValue;
}

const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'] as const;

/** The JSON types a schema allows: its `type` (a name or a list), else what its `const`/`enum` hold, else every type. */
export function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  const listed = 'const' in schema ? [schema['const'] ?? null] : Array.isArray(schema['enum']) ? schema['enum'] : undefined;
  if (listed) return [...new Set(listed.map(jsonType))];
  const branches = [...arrayOf(schema['oneOf']), ...arrayOf(schema['anyOf'])].filter(isObject);
  if (branches.length > 0) return [...new Set(branches.flatMap(typesOf))];
  return [...JSON_TYPES];
}

function arrayOf(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

export function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const num = (schema: JsonObject, keyword: string): number | undefined =>
  typeof schema[keyword] === 'number' ? schema[keyword] : undefined;

/** Code points, as JSON Schema counts string length. */
const codePoints = (text: string): string[] => [...text];

/** How many code points `text` has (`[...text].length`: a surrogate pair is one), without building them. */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}

/** A string of exactly `length` code points made from `text`: cut in the middle (head and last code point kept) or padded before the last. */
export function toLength(text: string, length: number): string {
  if (codePointLength(text) === length) return text;
  const cps = codePoints(text);
  if (length <= 0) return '';
  if (cps.length > length) return length === 1 ? (cps[0] ?? '') : [...cps.slice(0, length - 1), cps[cps.length - 1] ?? ''].join('');
  const last = cps.pop() ?? 'x';
  return [...cps, 'x'.repeat(length - cps.length - 1), last].join('');
}

/** Rounds to a multiple of `step` (printing-safe: no 0.30000000000000004). */
function toMultiple(value: number, step: number): number {
  const rounded = Math.round(value / step) * step;
  const decimals = (String(step).split('.')[1] ?? '').length;
  return Number(rounded.toFixed(Math.min(decimals + 2, 20)));
}

/** Fits a value into a schema's bounds where it can: strings cut or padded to the length bounds, numbers clamped and rounded to `multipleOf`. */
export function fit(schema: JsonObject, value: JsonValue): JsonValue {
  if (typeof value === 'string') {
    const length = codePointLength(value);
    const max = num(schema, 'maxLength');
    const min = num(schema, 'minLength');
    if (max !== undefined && length > max) return toLength(value, max);
    if (min !== undefined && length < min) return toLength(value.length > 0 ? value : 'x', min);
    return value;
  }
  if (typeof value === 'number') {
    let out = value;
    const max = num(schema, 'maximum');
    const min = num(schema, 'minimum');
    if (max !== undefined && out > max) out = max;
    if (min !== undefined && out < min) out = min;
    const step = num(schema, 'multipleOf');
    if (step !== undefined && step > 0) out = toMultiple(out, step);
    return out;
  }
  return value;
}

/**
 * Valid strings of each common `format`, at the edges of its RFC grammar (a leap day, an offset with
 * minutes, nine fraction digits, the lower-case `z` and `t` RFC 3339 allows): a server that judges by
 * a narrower approximation refuses them.
 */
const FORMAT_SAMPLES: Record<string, string[]> = {
  date: ['2024-02-29', '1970-01-01', '9999-12-31'],
  'date-time': [
    '2024-02-29T23:59:59.999+14:00',
    '1970-01-01T00:00:00Z',
    '2026-11-21T09:30:00+05:30',
    '2026-11-21T09:30:00.123456789Z',
    '2026-11-21t09:30:00z',
  ],
  time: ['23:59:59Z', '00:00:00+01:00', '09:30:00.123456789+05:30'],
  email: ['first.last+tag@example.com'],
  uuid: ['ffffffff-ffff-4fff-bfff-ffffffffffff', '00000000-0000-4000-8000-000000000000'],
  uri: ['https://example.com/a/b?c=d#e', 'urn:isbn:0451450523'],
  'uri-reference': ['../a/b?c=d', 'https://example.com/x', ''],
  hostname: ['a.example', 'xn--bcher-kva.example'],
  ipv4: ['255.255.255.255', '0.0.0.0'],
  ipv6: ['::1', '2001:db8::ff00:42:8329'],
};

/**
 * Strings that are not of a format: the near misses of its RFC grammar first (each one a form a
 * lenient validator or a default serializer produces: `+0000` without its colon, a space for `T`, no
 * seconds, hour 24, no offset), then plainly other strings.
 */
const NOT_FORMAT: Record<string, string[]> = {
  date: ['2026-02-29', '2026-1-05', '20261121', '2026-13-45', '21.11.2026', '2026-11-21T10:00:00Z'],
  'date-time': [
    '2026-11-21T10:00:00+0000',
    '2026-11-21 10:00:00Z',
    '2026-11-21T10:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T10:00:00+05',
    '2026-11-21T10:00:00',
    '2026-11-21',
  ],
  time: ['10:00:00+0000', '10:00Z', '24:00:00Z', '10:00:00', '25:61:00'],
  email: ['no-at-sign', 'a@'],
  uuid: ['not-a-uuid', '12345'],
  uri: ['no scheme', '//host/only', 'https://example.com/a"b'],
  'uri-reference': ['a"b', '%zz', '\\\\back slash'],
  hostname: ['-bad-.example', 'a b'],
  ipv4: ['256.0.0.1', '1.2.3'],
  ipv6: ['::g', '1:2'],
};

/** A schema json-schema-faker can read: the contract's own annotations (`readOnly`, `default`, `x-` keywords) dropped. */
function fakeable(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'readOnly' || key === 'writeOnly' || key === 'default' || key.startsWith('x-')) continue;
    if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isObject(sub) ? fakeable(sub) : sub]));
    else if (isObject(value)) out[key] = fakeable(value);
    else if (Array.isArray(value) && (key === 'oneOf' || key === 'anyOf' || key === 'allOf' || key === 'prefixItems'))
      out[key] = value.map((part) => (isObject(part) ? fakeable(part) : part));
    else out[key] = value;
  }
  return out;
}

/** A value json-schema-faker generates for the schema (seeded; undefined when it cannot). */
export function generated(schema: JsonObject, seed: number): JsonValue | undefined {
  try {
    const value = generateSync(fakeable(schema), { seed, alwaysFakeOptionals: true, useDefaultValue: false });
    return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonValue);
  } catch {
    return undefined;
  }
}

function numberCandidates(schema: JsonObject, integer: boolean): Candidate[] {
  const out: Candidate[] = [];
  const step = num(schema, 'multipleOf') ?? (integer ? 1 : 0.001);
  const min = num(schema, 'minimum');
  const max = num(schema, 'maximum');
  const emin = num(schema, 'exclusiveMinimum');
  const emax = num(schema, 'exclusiveMaximum');
  if (min !== undefined) out.push({ name: `minimum (${min})`, value: min });
  if (emin !== undefined) out.push({ name: `just above exclusiveMinimum ${emin}`, value: toMultiple(emin + step, step) });
  if (max !== undefined) out.push({ name: `maximum (${max})`, value: max });
  if (emax !== undefined) out.push({ name: `just below exclusiveMaximum ${emax}`, value: toMultiple(emax - step, step) });
  const low = min ?? (emin !== undefined ? emin + step : 0);
  out.push({ name: 'typical', value: integer ? Math.floor(low) + 41 : low + 12.5 });
  if (!integer) out.push({ name: 'fraction', value: toMultiple(low + 0.25, num(schema, 'multipleOf') ?? 0.25) });
  return out;
}

function stringCandidates(schema: JsonObject, seed: number): Candidate[] {
  const out: Candidate[] = [];
  const min = num(schema, 'minLength');
  const max = num(schema, 'maxLength');
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  if (format !== undefined) for (const value of FORMAT_SAMPLES[format] ?? []) out.push({ name: `${format} ${value}`, value });
  if (typeof schema['pattern'] === 'string' || format !== undefined)
    for (const offset of [0, 1, 2]) {
      const value = generated(schema, seed + offset);
      if (typeof value === 'string') out.push({ name: `generated from the ${format !== undefined ? 'format' : 'pattern'}`, value });
    }
  if (min !== undefined) out.push({ name: `minLength (${min})`, value: 'm'.repeat(min) });
  else out.push({ name: 'empty', value: '' });
  if (max !== undefined) out.push({ name: `maxLength (${max})`, value: toLength('M-max', max) });
  return out;
}

function catalogue(type: CatalogueType): Candidate[] {
  return VALUE_CATALOGUE.filter((c) => c.type === type).map((c) => ({ name: c.name, value: c.value, reason: c.reason }));
}

/**
 * Valid candidates of a schema (before the contract's verdict): its keywords' boundary values and the
 * catalogue's classes of its types, fitted. `seed` makes the generated ones reproducible (fixed per member).
 */
export function validCandidates(schema: JsonObject, seed: number, depth = 0): Candidate[] {
  const out: Candidate[] = [];
  if ('const' in schema) return [{ name: `const ${JSON.stringify(schema['const'])}`, value: schema['const'] ?? null }];
  if (Array.isArray(schema['enum'])) return schema['enum'].map((value) => ({ name: `enum ${JSON.stringify(value)}`, value }));
  for (const key of ['oneOf', 'anyOf'] as const)
    arrayOf(schema[key]).forEach((branch, i) => {
      if (isObject(branch))
        for (const c of validCandidates({ ...withoutCombinators(schema), ...branch }, seed + i, depth + 1))
          out.push({ ...c, name: `${key}[${i}] ${c.name}` });
    });
  for (const type of typesOf(schema)) {
    if (type === 'null') out.push({ name: 'null', value: null });
    else if (type === 'boolean') out.push({ name: 'true', value: true }, { name: 'false', value: false });
    else if (type === 'integer' || type === 'number') out.push(...numberCandidates(schema, type === 'integer'), ...catalogue(type));
    else if (type === 'string') {
      out.push(...stringCandidates(schema, seed));
      if (typeof schema['pattern'] !== 'string' && typeof schema['format'] !== 'string') out.push(...catalogue('string'));
    } else if (type === 'array' && depth < 4) out.push(...arrayCandidates(schema, seed, depth));
    else if (type === 'object') {
      const value = generated(schema, seed);
      if (isObject(value)) out.push({ name: 'generated object', value });
    }
  }
  const typical = generated(schema, seed);
  if (typical !== undefined) out.push({ name: 'generated', value: typical });
  return dedupe(out.map((c) => ({ ...c, value: fit(schema, c.value) })));
}

function withoutCombinators(schema: JsonObject): JsonObject {
  const copy = { ...schema };
  delete copy['oneOf'];
  delete copy['anyOf'];
  return copy;
}

function arrayCandidates(schema: JsonObject, seed: number, depth: number): Candidate[] {
  const items = isObject(schema['items']) ? schema['items'] : {};
  const pool = validCandidates(items, seed, depth + 1).map((c) => c.value);
  const min = num(schema, 'minItems') ?? 0;
  const max = num(schema, 'maxItems');
  const take = (n: number): JsonValue[] => Array.from({ length: n }, (_, i) => pool[i % Math.max(pool.length, 1)] ?? null);
  const out: Candidate[] = [{ name: min === 0 ? 'empty array' : `minItems (${min})`, value: take(min) }];
  out.push({ name: 'several items', value: take(Math.max(min, Math.min(3, max ?? 3))) });
  if (max !== undefined) out.push({ name: `maxItems (${max})`, value: take(max) });
  return out;
}

function dedupe(list: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = JSON.stringify(c.value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One value of each JSON type class, for the `type` keyword (a type class the schema allows is left out by the caller's verdict). */
export const WRONG_TYPE_VALUES: readonly Candidate[] = [
  { name: 'string', value: '12' },
  { name: 'fraction', value: 1.5 },
  { name: 'whole number', value: 12 },
  { name: 'boolean', value: true },
  { name: 'null', value: null },
  { name: 'array', value: [] },
  { name: 'object', value: {} },
];

const ALLOWS: Record<string, string[]> = {
  string: ['string'],
  integer: ['whole number'],
  number: ['whole number', 'fraction'],
  boolean: ['boolean'],
  null: ['null'],
  array: ['array'],
  object: ['object'],
};

/** The member name of an unknown member (no contract has it). */
export const UNKNOWN_MEMBER = 'conformance_unknown_member';

/** An unknown member a body gets: a made-up name, or a near miss of a real member (`of`). */
export interface UnknownMember {
  name: string;
  label: string;
  /** The real member it nearly spells (its value is sent under the near miss). */
  of?: string;
}

/** `fk_lot_id` → `fkLotId`. */
const camelCase = (name: string): string => name.replace(/[_-]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
/** `fkLotId` → `fk_lot_id`. */
const snakeCase = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The unknown members of an object whose schema refuses them, from its property names: a made-up
 * name; names whose JSON Pointer needs escaping (`/` → `~1`, `~` → `~0`, RFC 6901 §3); and near misses
 * of each real member that aliasing frameworks accept as it: another case style (`fk_lot_id` →
 * `fkLotId`, `fkLotId` → `fk_lot_id`), a dash for an underscore (`fk-lot-id`), and one member in
 * upper case (case-insensitive binding). A near miss that is itself a member is left out.
 */
export function unknownMembers(properties: readonly string[]): UnknownMember[] {
  const known = new Set(properties);
  const out: UnknownMember[] = [
    { name: UNKNOWN_MEMBER, label: `unknown member ${UNKNOWN_MEMBER}` },
    { name: 'conformance/unknown', label: 'unknown member "conformance/unknown" (its pointer escapes / as ~1)' },
    { name: 'conformance~unknown', label: 'unknown member "conformance~unknown" (its pointer escapes ~ as ~0)' },
  ];
  const nearMiss = (of: string, name: string, how: string): void => {
    if (name === of || known.has(name) || out.some((u) => u.name === name)) return;
    out.push({ name, of, label: `near miss of ${of}: ${name} (${how})` });
  };
  for (const name of properties) {
    if (name.includes('_')) {
      nearMiss(name, camelCase(name), 'another case style');
      nearMiss(name, name.replace(/_/g, '-'), 'a dash for an underscore');
    } else if (/[a-z0-9][A-Z]/.test(name)) nearMiss(name, snakeCase(name), 'another case style');
  }
  const cased = properties.find((name) => name.toUpperCase() !== name && !known.has(name.toUpperCase()));
  if (cased !== undefined) nearMiss(cased, cased.toUpperCase(), 'another letter case');
  return out;
}

const isReadOnly = (schema: JsonValue | undefined): boolean => isObject(schema) && schema['readOnly'] === true;

/** The value sent under a near miss of a member: the member's own value in the body, else its first valid class. */
function memberValue(schema: JsonValue | undefined, value: JsonValue | undefined): JsonValue {
  if (value !== undefined) return value;
  return (isObject(schema) ? validCandidates(schema, 1)[0]?.value : undefined) ?? 'x';
}

/**
 * Values breaking each keyword of `schema` (at `pointer`), given a valid instance `valid` to vary.
 * Objects recurse into their properties (a missing required member, an unknown member, each
 * property's own keywords); arrays into their items.
 */
export function breakingValues(schema: JsonObject, valid: JsonValue | undefined, pointer = '', depth = 0): Breaking[] {
  const out: Breaking[] = [];
  const push = (keyword: string, name: string, value: JsonValue): void => {
    out.push({ keyword, name, pointer, value });
  };
  const types = typesOf(schema);
  const allowed = new Set(types.flatMap((t) => ALLOWS[t] ?? []));
  if ('type' in schema) for (const c of WRONG_TYPE_VALUES) if (!allowed.has(c.name)) push('type', c.name, c.value);
  if (Array.isArray(schema['enum'])) {
    const listed = schema['enum'].map((v) => JSON.stringify(v));
    for (const candidate of offList(schema['enum']))
      if (!listed.includes(JSON.stringify(candidate))) push('enum', 'a value off the enum', candidate);
  }
  if ('const' in schema)
    for (const candidate of offList([schema['const'] ?? null])) push('const', 'another value than the const', candidate);
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  if (format !== undefined)
    for (const value of NOT_FORMAT[format] ?? [`not-a-${format}`]) push('format', `not a ${format} (${JSON.stringify(value)})`, value);
  if (typeof schema['pattern'] === 'string') {
    const base = typeof valid === 'string' ? valid : 'x';
    for (const value of [`!${base}`, `${base}!`, '', ' ', `${base} `, '!', '0', 'a', 'A'])
      push('pattern', `outside the pattern ${schema['pattern']}`, value);
  }
  const step = typeOnly(types, 'integer') ? 1 : (num(schema, 'multipleOf') ?? 0.5);
  const bound = (keyword: string, name: string, value: number): void =>
    push(keyword, `${keyword} ${num(schema, keyword) ?? ''} broken (${name})`, value);
  const min = num(schema, 'minimum');
  const max = num(schema, 'maximum');
  const emin = num(schema, 'exclusiveMinimum');
  const emax = num(schema, 'exclusiveMaximum');
  if (min !== undefined) bound('minimum', 'below', min - step);
  if (emin !== undefined) {
    bound('exclusiveMinimum', 'equal', emin);
    bound('exclusiveMinimum', 'below', emin - step);
  }
  if (max !== undefined) bound('maximum', 'above', max + step);
  if (emax !== undefined) bound('exclusiveMaximum', 'equal', emax);
  const multiple = num(schema, 'multipleOf');
  if (multiple !== undefined) {
    const base = typeof valid === 'number' ? valid : multiple;
    push('multipleOf', `not a multiple of ${multiple}`, base + multiple / 2);
    push('multipleOf', `not a multiple of ${multiple}`, base + multiple / 3);
  }
  const minLength = num(schema, 'minLength');
  const maxLength = num(schema, 'maxLength');
  const text = typeof valid === 'string' ? valid : 'x';
  if (minLength !== undefined && minLength > 0) push('minLength', `minLength ${minLength} broken`, toLength(text || 'x', minLength - 1));
  if (maxLength !== undefined) push('maxLength', `maxLength ${maxLength} broken`, toLength(text || 'x', maxLength + 1));
  if (depth < 4) out.push(...arrayBreaking(schema, valid, pointer, depth), ...objectBreaking(schema, valid, pointer, depth));
  return out;
}

function typeOnly(types: readonly string[], type: string): boolean {
  return types.length === 1 && types[0] === type;
}

/** Values of the same JSON types as `listed` that are not in it. */
function offList(listed: readonly JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const value of listed) {
    if (typeof value === 'string')
      out.push(`${value}_NOT_LISTED`, value.toLowerCase() === value ? value.toUpperCase() : value.toLowerCase());
    else if (typeof value === 'number') out.push(value + 1, value + 0.5);
    else if (typeof value === 'boolean') out.push(!value);
    else if (value === null) out.push('null');
    else out.push(null);
  }
  return out;
}

function arrayBreaking(schema: JsonObject, valid: JsonValue | undefined, pointer: string, depth: number): Breaking[] {
  if (!Array.isArray(valid)) return [];
  const out: Breaking[] = [];
  const minItems = num(schema, 'minItems');
  const maxItems = num(schema, 'maxItems');
  const filler = valid[0] ?? null;
  if (minItems !== undefined && minItems > 0)
    out.push({ keyword: 'minItems', name: `minItems ${minItems} broken`, pointer, value: valid.slice(0, minItems - 1) });
  if (maxItems !== undefined)
    out.push({
      keyword: 'maxItems',
      name: `maxItems ${maxItems} broken`,
      pointer,
      value: Array.from({ length: maxItems + 1 }, (_, i) => valid[i % Math.max(valid.length, 1)] ?? filler),
    });
  if (schema['uniqueItems'] === true && valid.length > 0)
    out.push({ keyword: 'uniqueItems', name: 'the same item twice', pointer, value: [filler, filler] });
  if (isObject(schema['items']) && valid.length > 0)
    for (const b of breakingValues(schema['items'], valid[0], childPointer(pointer, 0), depth + 1))
      out.push({ ...b, name: `item 0: ${b.name}`, value: [b.value, ...valid.slice(1)] });
  return out;
}

function objectBreaking(schema: JsonObject, valid: JsonValue | undefined, pointer: string, depth: number): Breaking[] {
  if (!isObject(valid)) return [];
  const out: Breaking[] = [];
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const required = arrayOf(schema['required']).filter((r): r is string => typeof r === 'string');
  for (const name of required) {
    const copy = { ...valid };
    delete copy[name];
    out.push({ keyword: 'required', name: `${name} missing`, pointer: childPointer(pointer, name), value: copy });
  }
  if (schema['unevaluatedProperties'] === false || schema['additionalProperties'] === false) {
    const keyword = schema['unevaluatedProperties'] === false ? 'unevaluatedProperties' : 'additionalProperties';
    // Server-assigned members last: the letter-case near miss is then of a member the client writes.
    const names = Object.keys(properties).sort((a, b) => Number(isReadOnly(properties[a])) - Number(isReadOnly(properties[b])));
    for (const unknown of unknownMembers(names))
      out.push({
        keyword,
        name: unknown.label,
        pointer: childPointer(pointer, unknown.name),
        value: { ...valid, [unknown.name]: unknown.of === undefined ? 'x' : memberValue(properties[unknown.of], valid[unknown.of]) },
      });
  }
  for (const [name, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    for (const b of breakingValues(sub, valid[name], childPointer(pointer, name), depth + 1))
      out.push({ ...b, name: `${name}: ${b.name}`, value: { ...valid, [name]: b.value } });
  }
  return out;
}
