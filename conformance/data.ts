/**
 * The cases of the create operations, derived from the contract (the operations model and the
 * compiled request schema at both levels), never from what a server happens to do:
 * - valid values of every member (`memberClasses`): the boundary values of its keywords and the
 *   catalogue's classes (`values/`), each kept only where the strict schema accepts it in a body;
 * - the systematic create corpus (`createCorpus`): every class of every member at least once, the
 *   optional members' presence combined pairwise, every lot of the order (up to LOT_CAP); fixed,
 *   independent of the seed; the run marker in every member that can hold it;
 * - one extra generated body per operation (json-schema-faker, seeded: the seed adds cases on top);
 * - invalid bodies (`invalidBodies`): one per keyword of each member (each wrong JSON type, just past
 *   each bound, off the enum, outside the pattern or format, each required member missing, an unknown
 *   member, a server-assigned member of a wrong type), each with the pointer it must be reported at
 *   and the levels it is invalid at (spec: the specification-level schema refuses it too);
 * - JSON that is not an object; malformed JSON.
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import { childPointer, unescapeToken } from '../util/json-pointer.js';
import type { Level } from '../contract/levels.js';
import {
  inlineSchema,
  type MemberModel,
  type OperationId,
  type OperationModel,
  type OperationsModel,
  type ParamModel,
} from '../contract/operations-model.js';
import type { CompiledContract, KeywordError } from '../contract/schemas.js';
import {
  breakingValues,
  codePointLength,
  generated,
  UNKNOWN_MEMBER,
  validCandidates,
  toLength,
  fit,
  type Candidate,
} from './values/derive.js';
import type { CorpusBody, Derivation, DiscoveredLot, InvalidBody, ValueClass } from '../checks/data.js';

export { UNKNOWN_MEMBER };

/** At most this many lots of the order are named by the create corpus (documented in --list-checks). */
export const LOT_CAP = 10;

export type { CorpusBody, Derivation, DiscoveredLot, InvalidBody, ValueClass } from '../checks/data.js';

const derivations = new WeakMap<Record<Level, CompiledContract>, Map<string, Derivation>>();

/** The derivation of a create operation of a compiled contract (made once per contract and operation). */
export function derivationOf(jc: { model: OperationsModel; contracts: Record<Level, CompiledContract> }, id: OperationId): Derivation {
  let known = derivations.get(jc.contracts);
  if (!known) {
    known = new Map();
    derivations.set(jc.contracts, known);
  }
  const found = known.get(id);
  if (found) return found;
  const op = jc.model.get(id);
  const ref = { $ref: op.requestRef ?? `#/components/schemas/${op.requestSchema ?? ''}` };
  const made: Derivation = {
    op,
    schema: inlineSchema(jc.contracts.strict.document, ref),
    validate: { spec: jc.contracts.spec.keywordValidator(ref), strict: jc.contracts.strict.keywordValidator(ref) },
  };
  known.set(id, made);
  return made;
}

/** The members a client writes (server-assigned ones aside). */
export function writable(op: OperationModel): MemberModel[] {
  return op.members.filter((m) => !m.readOnly);
}

/** A member may carry the run marker when a record is found by it: a string, not server-assigned, with no default from elsewhere or a fixed one. */
export function carriesMarker(member: MemberModel): boolean {
  return (
    member.type === 'string' &&
    !member.readOnly &&
    member.defaultFrom === undefined &&
    (member.default === undefined || member.default === '')
  );
}

/** A fixed seed per member (json-schema-faker's generated classes do not depend on the run's seed). */
function memberSeed(op: OperationModel, member: MemberModel): number {
  return subSeed(1, `${op.operationId}/${member.name}`);
}

const errorsAt = (errors: readonly KeywordError[], pointer: string): KeywordError[] =>
  errors.filter((e) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`));

/** The value is accepted for the member in `body` (the strict schema finds no problem at or under the member). */
export function acceptsMember(d: Derivation, body: JsonObject, member: string, value: JsonValue): boolean {
  return errorsAt(d.validate.strict({ ...body, [member]: value }), childPointer('', member)).length === 0;
}

/** A body of the required members only, each with its first accepted class, naming `lotId`. */
export function baseBody(d: Derivation, lotId: number | undefined): JsonObject {
  const body: JsonObject = {};
  const lotMember = writable(d.op).find((m) => m.namesLot);
  if (lotMember) body[lotMember.name] = lotId ?? firstAccepted(d, body, lotMember) ?? 1;
  for (const member of writable(d.op)) {
    if (!member.required || member.namesLot) continue;
    const value = firstAccepted(d, body, member);
    if (value !== undefined) body[member.name] = value;
  }
  return body;
}

function firstAccepted(d: Derivation, body: JsonObject, member: MemberModel): JsonValue | undefined {
  const classes = validCandidates(member.schema, memberSeed(d.op, member));
  const typical = classes.find((c) => c.name === 'typical' || c.name === 'generated' || c.name === 'plain ASCII');
  for (const c of typical ? [typical, ...classes] : classes) if (acceptsMember(d, body, member.name, c.value)) return c.value;
  return undefined;
}

/** The valid classes of a member: its schema's boundary values and the catalogue's classes the strict schema accepts. */
export function memberClasses(d: Derivation, member: MemberModel, body: JsonObject = baseBody(d, undefined)): ValueClass[] {
  return validCandidates(member.schema, memberSeed(d.op, member)).filter((c: Candidate) => acceptsMember(d, body, member.name, c.value));
}

/** `value` with the tag after its first code point (edges kept), fitted to the member's length bounds; undefined when the schema refuses it. */
export function tagged(d: Derivation, body: JsonObject, member: MemberModel, value: JsonValue, tag: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  // The first code point (a surrogate pair whole), without spreading a long value into code points.
  const first = value === '' ? '' : String.fromCodePoint(value.codePointAt(0) ?? 0);
  const joined = value === '' ? tag : `${first}${tag}${value.slice(first.length)}`;
  const max = member.schema['maxLength'];
  const out = typeof max === 'number' && codePointLength(joined) > max ? toLength(joined, max) : joined;
  return out.includes(tag) && acceptsMember(d, body, member.name, out) ? out : undefined;
}

/**
 * Rows of presence (true) or omission (false) of `n` optional members covering every pair of
 * choices of every two members (greedy pairwise; every member also present and omitted at least once).
 */
export function pairwisePresence(n: number): boolean[][] {
  if (n === 0) return [];
  if (n === 1) return [[true], [false]];
  const uncovered = new Set<string>();
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) for (const a of [0, 1]) for (const b of [0, 1]) uncovered.add(`${i},${j},${a},${b}`);
  const rows: boolean[][] = [];
  const gain = (row: number[]): number => {
    let g = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (uncovered.has(`${i},${j},${row[i]},${row[j]}`)) g++;
    return g;
  };
  while (uncovered.size > 0) {
    // Greedy, member by member: each member takes the choice covering most pairs with the ones already set.
    const row: number[] = [];
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestGain = -1;
      for (const choice of [1, 0]) {
        let g = 0;
        for (let j = 0; j < i; j++) if (uncovered.has(`${j},${i},${row[j]},${choice}`)) g++;
        for (let j = i + 1; j < n; j++) if (uncovered.has(`${i},${j},${choice},0`) || uncovered.has(`${i},${j},${choice},1`)) g += 0.5;
        if (g > bestGain) {
          bestGain = g;
          best = choice;
        }
      }
      row.push(best);
    }
    if (gain(row) === 0) break;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) uncovered.delete(`${i},${j},${row[i]},${row[j]}`);
    rows.push(row.map((c) => c === 1));
  }
  return rows;
}

/** The lot of a create that names none (a contract without lots). */
export const NO_LOT: DiscoveredLot = { id: 0, value: {} };

/**
 * A valid value of `member` in `body` not in `used` (JSON texts): the body's own value when it is new,
 * else generated from the member's schema, seeded by `seedText` (the run marker and the row: a new run
 * makes new values); undefined when none is found.
 */
export function uniqueValue(
  d: Derivation,
  body: JsonObject,
  member: MemberModel,
  seedText: string,
  used: ReadonlySet<string>,
): JsonValue | undefined {
  const own = body[member.name];
  if (own !== undefined && !used.has(JSON.stringify(own))) return own;
  const schema: JsonObject = { ...member.schema };
  delete schema['default'];
  delete schema['readOnly'];
  for (let attempt = 0; attempt < 20; attempt++) {
    const value = generateSync(schema, { seed: subSeed(1, `${seedText}/${attempt}`), useDefaultValue: false }) as JsonValue;
    if (!used.has(JSON.stringify(value)) && acceptsMember(d, body, member.name, value)) return value;
  }
  return undefined;
}

/**
 * The systematic corpus of valid bodies of a create operation. The optional members' presence is
 * combined pairwise (`pairwisePresence`); each member present in a row takes its next class, until
 * every class of every member has been sent; row r names lot r mod lots. Every body carries the run
 * marker (with the row number, so values are unique within the run) in each member that can hold it.
 */
export function createCorpus(d: Derivation, lots: readonly DiscoveredLot[], marker: string, key?: string): CorpusBody[] {
  const lotMember = writable(d.op).find((m) => m.namesLot);
  // A create that names no lot needs none: its rows name the placeholder lot (no member of the body).
  const named = lotMember ? lots.slice(0, LOT_CAP) : [NO_LOT];
  if (named.length === 0) return [];
  const base = baseBody(d, lotMember ? named[0]?.id : undefined);
  const members = writable(d.op).filter((m) => !m.namesLot);
  const keyMember = key !== undefined ? members.find((m) => m.name === key) : undefined;
  const usedKeys = new Set<string>();
  const classes = members.map((m) => memberClasses(d, m, base));
  const optional = members.filter((m) => !m.required);
  const presence = pairwisePresence(optional.length);
  const next = members.map(() => 0);
  const done = (): boolean => classes.every((list, j) => (next[j] ?? 0) >= list.length);
  const corpus: CorpusBody[] = [];
  for (let r = 0; r < presence.length || r < named.length || !done(); r++) {
    const lot = named[r % named.length] as DiscoveredLot;
    const body: JsonObject = lotMember ? { [lotMember.name]: lot.id } : {};
    const parts = [`lot ${lot.id}`];
    const tag = `${marker}-${r}`;
    let marked = false;
    members.forEach((member, j) => {
      const list = classes[j] ?? [];
      const o = optional.indexOf(member);
      const present = o < 0 || r >= presence.length || presence[r]?.[o] === true;
      if (!present) {
        parts.push(`${member.name}: omitted`);
        return;
      }
      const index = next[j] ?? 0;
      next[j] = index + 1;
      // Member j starts at its class j, so one row mixes different classes of different members.
      const chosen = list[(index + j) % Math.max(list.length, 1)];
      if (!chosen) return;
      let value = chosen.value;
      if (carriesMarker(member) && !(value === '' && member.default === '')) {
        const withTag = tagged(d, base, member, value, tag);
        if (withTag !== undefined) {
          value = withTag;
          marked = true;
        }
      }
      parts.push(`${member.name}: ${chosen.name}`);
      body[member.name] = value;
    });
    // A body with no member holding the marker: an omitted member that can hold it gets it.
    if (!marked) {
      const bearer = ensureMarker(d, body, tag);
      if (bearer !== undefined) parts.push(`${bearer}: run marker`);
    }
    // A key the client chooses is one no other body of the run has (a duplicate is refused, rightly).
    if (keyMember !== undefined && body[keyMember.name] !== undefined) {
      const value = uniqueValue(d, body, keyMember, `${marker}/${r}`, usedKeys);
      if (value !== undefined) body[keyMember.name] = value;
      usedKeys.add(JSON.stringify(body[keyMember.name]));
    }
    corpus.push({ name: parts.join('; '), body, lot });
  }
  return corpus;
}

/**
 * Gives the run marker to the first member of `body` that can hold it and is absent (never one of
 * `except`), unless a member already holds `tag`; answers the member that took it.
 */
export function ensureMarker(d: Derivation, body: JsonObject, tag: string, except: readonly string[] = []): string | undefined {
  if (Object.values(body).some((v) => typeof v === 'string' && v.includes(tag))) return undefined;
  for (const member of writable(d.op).filter((m) => carriesMarker(m) && !(m.name in body) && !except.includes(m.name))) {
    const value = tagged(d, body, member, fit(member.schema, ''), tag);
    if (value !== undefined) {
      body[member.name] = value;
      return member.name;
    }
  }
  return undefined;
}

/**
 * `body` padded to exactly `bytes` of JSON text in a string member whose schema accepts the padded
 * value (the run marker tag first, then `x`s); undefined when no member can take it.
 */
export function paddedBody(d: Derivation, body: JsonObject, bytes: number, tag: string): { body: JsonObject; member: string } | undefined {
  for (const member of writable(d.op).filter((m) => m.type === 'string' && !m.namesLot)) {
    const start = { ...body, [member.name]: tag };
    const missing = bytes - Buffer.byteLength(JSON.stringify(start));
    if (missing < 0) continue;
    const value = `${tag}${'x'.repeat(missing)}`;
    if (acceptsMember(d, body, member.name, value)) return { body: { ...body, [member.name]: value }, member: member.name };
  }
  return undefined;
}

/** The members of a create that can hold the run marker (none: the summary says how to find the run's records instead). */
export function markerMembers(d: Derivation, marker: string): string[] {
  const base = baseBody(d, undefined);
  return writable(d.op)
    .filter((m) => carriesMarker(m) && tagged(d, base, m, fit(m.schema, ''), `${marker}-0`) !== undefined)
    .map((m) => m.name);
}

/** A 32-bit seed per (run seed, key): a body does not depend on which other bodies were made. */
export function subSeed(seed: number, key: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h % 2_147_483_647 || 1;
}

/** Generates a body with every writable member (`all`) or only the required ones, seeded by (seed, key). */
export function generateBody(op: OperationModel, seed: number, key: string, members: 'all' | 'required'): JsonObject {
  const properties: JsonObject = {};
  for (const member of writable(op)) {
    if (members === 'required' && !member.required) continue;
    const copy: JsonObject = { ...member.schema };
    delete copy['default'];
    delete copy['readOnly'];
    properties[member.name] = copy;
  }
  const schema = { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  const value = generateSync(schema as unknown as JsonSchema, {
    seed: subSeed(seed, key),
    alwaysFakeOptionals: true,
    useDefaultValue: false,
  });
  if (!isObject(value)) throw new Error(`json-schema-faker made no object for ${op.operationId}`);
  return value;
}

/** Keyword families of the invalid-body checks. */
export const KEYWORD_FAMILIES = {
  required: ['required'],
  type: ['type'],
  bounds: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems'],
  unknown: ['unevaluatedProperties', 'additionalProperties'],
} as const;

/**
 * Keywords judged with one case each (the first value of the keyword the contract refuses). Not
 * `format`: each near miss of a format's grammar is a case of its own (a lenient validator refuses
 * some and accepts others).
 */
const ONE_PER_KEYWORD = new Set(['pattern', 'enum', 'const', 'multipleOf', 'uniqueItems']);

/**
 * Every invalid body of a create operation derived from `valid`: each value breaking a keyword of
 * the request schema (members, nested members, array items), kept where the strict schema refuses
 * it at the pointer; its levels: `spec` too when the specification-level schema refuses it as well.
 * Server-assigned members are judged on their JSON type only (the contract: "must have the type they
 * have in the answer ... and are then ignored").
 */
export function invalidBodies(d: Derivation, valid: JsonObject): InvalidBody[] {
  const readOnly = new Set(d.op.members.filter((m) => m.readOnly).map((m) => childPointer('', m.name)));
  const out: InvalidBody[] = [];
  const seen = new Set<string>();
  for (const b of breakingValues(d.schema, valid)) {
    if (!isObject(b.value)) continue;
    const member = `/${b.pointer.split('/')[1] ?? ''}`;
    if (readOnly.has(member) && b.keyword !== 'type') continue;
    const key = ONE_PER_KEYWORD.has(b.keyword) ? `${b.pointer}|${b.keyword}` : `${b.pointer}|${b.keyword}|${b.name}`;
    if (seen.has(key)) continue;
    const strict = d.validate.strict(b.value);
    if (!strict.some((e) => e.pointer === b.pointer)) continue;
    seen.add(key);
    const spec = d.validate.spec(b.value).some((e) => e.pointer === b.pointer);
    out.push({ label: b.name, keyword: b.keyword, body: b.value, pointers: [b.pointer], levels: spec ? ['spec', 'strict'] : ['strict'] });
  }
  return out;
}

/** One body with several problems at once: up to four invalid cases of different members and keyword families, combined. */
export function severalProblems(cases: readonly InvalidBody[], valid: JsonObject): InvalidBody[] {
  const families = [
    KEYWORD_FAMILIES.unknown,
    KEYWORD_FAMILIES.required,
    KEYWORD_FAMILIES.bounds,
    KEYWORD_FAMILIES.type,
  ] as readonly (readonly string[])[];
  const body: JsonObject = { ...valid };
  const pointers: string[] = [];
  const used = new Set<string>();
  for (const family of families) {
    const c = cases.find((x) => family.includes(x.keyword) && !used.has(topMember(x)) && x.levels.includes('strict'));
    if (!c) continue;
    const name = topMember(c);
    used.add(name);
    if (name in c.body) body[name] = c.body[name] ?? null;
    else delete body[name];
    pointers.push(...c.pointers);
  }
  if (pointers.length < 2) return [];
  return [{ label: `${pointers.length} problems: ${pointers.join(', ')}`, keyword: 'several', body, pointers, levels: ['strict'] }];
}

function topMember(c: InvalidBody): string {
  return unescapeToken((c.pointers[0] ?? '').split('/')[1] ?? '');
}

/** Every kind of JSON text that is not an object. */
export function nonObjectJson(valid: JsonObject): { label: string; text: string }[] {
  return [
    { label: 'null', text: 'null' },
    { label: 'array (of the valid body)', text: JSON.stringify([valid]) },
    { label: 'string', text: JSON.stringify(JSON.stringify(valid)) },
    { label: 'number', text: '42' },
    { label: 'boolean', text: 'true' },
  ];
}

/** Texts that are not JSON at all. */
export function malformedJson(valid: JsonObject): { label: string; text: string }[] {
  const text = JSON.stringify(valid);
  return [
    { label: 'truncated object', text: text.slice(0, -1) },
    { label: 'trailing comma', text: `${text.slice(0, -1)},}` },
    { label: 'single-quoted strings', text: text.replace(/"/g, "'") },
    { label: 'empty body', text: '' },
  ];
}

/** Every member a record is found by carries the run marker, so one broken member never leaves a body without it. */
export function withMarkers(d: Derivation, body: JsonObject, tag: string): JsonObject {
  for (const m of writable(d.op))
    if (carriesMarker(m) && !(m.name in body)) {
      const value = tagged(d, body, m, '', tag);
      if (value !== undefined) body[m.name] = value;
    }
  return body;
}

/** A value of a parameter its schema accepts: its default, its first enum value, a generated one (seeded), else a plain one of its type. */
export function parameterValue(param: ParamModel, seed: number): string {
  const schema = param.schema;
  const candidates: (JsonValue | undefined)[] = [
    schema['default'],
    Array.isArray(schema['enum']) ? schema['enum'][0] : undefined,
    schema['const'],
    generated(schema, seed),
  ];
  const value = candidates.find((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  if (value !== undefined) return String(value);
  return param.type === 'integer' || param.type === 'number' ? '1' : param.type === 'boolean' ? 'true' : 'conformance';
}
