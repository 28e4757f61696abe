/**
 * Request bodies, derived from the operations model (`contract/operations-model.ts`), never from
 * what a server happens to do:
 * - the systematic create corpus: for every member, each class of value a real client sends
 *   (`valueClasses`), every optional member also omitted, every lot of the order (up to LOT_CAP);
 *   fixed, independent of the seed;
 * - one extra generated body per operation (json-schema-faker, seeded: the seed adds cases on top);
 * - invalid bodies: each required member dropped, each member given each wrong JSON type, each bound
 *   broken, an unknown member, several problems at once; JSON that is not an object; malformed JSON.
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import type { MemberModel, OperationModel } from '../contract/operations-model.js';

/** At most this many lots of the order are named by the create corpus (documented in --list-checks). */
export const LOT_CAP = 10;

/** A lot of the order, as the server answered it. */
export interface DiscoveredLot {
  id: number;
  /** The lot object as answered (for `x-default-from` defaults). */
  value: JsonObject;
}

export interface ValueClass {
  name: string;
  value: JsonValue;
}

export interface CorpusBody {
  /** e.g. `lot 2002; amount: fraction; completed: true; lotnumber: omitted` */
  name: string;
  body: JsonObject;
  lot: DiscoveredLot;
}

export interface InvalidBody {
  /** What was broken, e.g. `amount: exclusiveMinimum broken`. */
  label: string;
  body: JsonObject;
  /** The JSON Pointers the answer's `errors[]` must name (one entry per problem). */
  pointers: string[];
}

/** A string member carries the run marker when a record is found by it (no default from elsewhere, no fixed default). */
export function carriesMarker(member: MemberModel): boolean {
  return (
    member.type === 'string' &&
    !member.readOnly &&
    member.defaultFrom === undefined &&
    (member.default === undefined || member.default === '')
  );
}

const num = (member: MemberModel, keyword: string): number | undefined => member.bounds.find((b) => b.keyword === keyword)?.value;

/** The classes of value a client sends for a member (not `fk_lot_id`: that one names each lot). */
export function valueClasses(member: MemberModel, marker: string): ValueClass[] {
  switch (member.type) {
    case 'boolean':
      return [
        { name: 'true', value: true },
        { name: 'false', value: false },
      ];
    case 'integer': {
      const min = num(member, 'minimum') ?? (num(member, 'exclusiveMinimum') ?? 0) + 1;
      return [
        { name: 'smallest allowed', value: min },
        { name: 'typical', value: min + 41 },
        { name: 'large (2^31-1)', value: 2_147_483_647 },
      ];
    }
    case 'number': {
      const low = num(member, 'exclusiveMinimum');
      const min = num(member, 'minimum');
      const smallest = low !== undefined ? low + 0.001 : (min ?? 0);
      return [
        { name: 'whole number', value: 5 },
        { name: 'fraction', value: 12.5 },
        { name: 'just above the lower bound', value: smallest },
        { name: 'large', value: 1_000_000 },
      ];
    }
    case 'string': {
      const prefix = carriesMarker(member) ? `${marker}-` : '';
      const minLength = num(member, 'minLength') ?? 0;
      const classes: ValueClass[] = [
        { name: 'plain ASCII', value: `${prefix}A-1001` },
        { name: 'unicode and spaces', value: `${prefix}Prüf Ä ü 東京 ✓` },
        { name: 'long (200 chars)', value: `${prefix}L`.padEnd(200, 'x') },
      ];
      // Empty only where it cannot break uniqueness or the marker: members without a marker, or defaulting to ''.
      if (minLength === 0 && (!carriesMarker(member) || member.default === '')) classes.push({ name: 'empty', value: '' });
      return classes;
    }
    default:
      return [];
  }
}

/** The members a client writes (server-assigned ones aside). */
export function writable(op: OperationModel): MemberModel[] {
  return op.members.filter((m) => !m.readOnly);
}

/**
 * The systematic corpus of valid bodies of a create operation: body i gives member j the class
 * (i + j) mod k (k = its classes, plus `omitted` for an optional member) and names lot i mod lots,
 * so every class of every member and every lot (up to LOT_CAP) is sent at least once.
 */
export function createCorpus(op: OperationModel, lots: readonly DiscoveredLot[], marker: string): CorpusBody[] {
  const named = lots.slice(0, LOT_CAP);
  if (named.length === 0) return [];
  const members = writable(op).filter((m) => !m.namesLot);
  const lotMember = writable(op).find((m) => m.namesLot);
  const classes = members.map((m) => [
    ...valueClasses(m, marker),
    ...(m.required ? [] : [{ name: 'omitted', value: null, omitted: true }]),
  ]);
  const size = Math.max(named.length, ...classes.map((c) => c.length));
  const corpus: CorpusBody[] = [];
  for (let i = 0; i < size; i++) {
    const lot = named[i % named.length] as DiscoveredLot;
    const body: JsonObject = lotMember ? { [lotMember.name]: lot.id } : {};
    const parts = [`lot ${lot.id}`];
    members.forEach((member, j) => {
      const list = classes[j] ?? [];
      const chosen = list[(i + j) % list.length];
      if (!chosen) return;
      parts.push(`${member.name}: ${chosen.name}`);
      if (!('omitted' in chosen)) body[member.name] = chosen.value;
    });
    // Every record carries the run marker: when no member took it, the first optional marker member gets it.
    const bearers = members.filter(carriesMarker);
    if (
      !bearers.some((m) => {
        const v = body[m.name];
        return typeof v === 'string' && v.startsWith(marker);
      })
    ) {
      const bearer = bearers.find((m) => !m.required);
      if (bearer) {
        body[bearer.name] = `${marker}-${i}`;
        parts.push(`${bearer.name}: run marker`);
      }
    }
    corpus.push({ name: parts.join('; '), body, lot });
  }
  return corpus;
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
    delete copy['x-default-from'];
    delete copy['x-default-sequence'];
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

/** Every value of another JSON type than the member's, one per type class. */
export function wrongTypeValues(member: MemberModel): ValueClass[] {
  const all: ValueClass[] = [
    { name: 'string', value: '12' },
    { name: 'fraction', value: 1.5 },
    { name: 'whole number', value: 12 },
    { name: 'boolean', value: true },
    { name: 'null', value: null },
    { name: 'array', value: [] },
    { name: 'object', value: {} },
  ];
  const allowed: Record<string, string[]> = {
    string: ['string'],
    integer: ['whole number'],
    number: ['whole number', 'fraction'],
    boolean: ['boolean'],
  };
  const ok = allowed[member.type ?? ''] ?? [];
  return all.filter((c) => !ok.includes(c.name));
}

/** For each bound of a member, a value just past it. */
export function brokenBounds(member: MemberModel): ValueClass[] {
  const step = member.type === 'integer' ? 1 : 0.5;
  return member.bounds.flatMap(({ keyword, value }): ValueClass[] => {
    switch (keyword) {
      case 'minimum':
        return [{ name: `${keyword} ${value} broken`, value: value - step }];
      case 'exclusiveMinimum':
        return [
          { name: `${keyword} ${value} broken (equal)`, value },
          { name: `${keyword} ${value} broken (below)`, value: value - step },
        ];
      case 'maximum':
        return [{ name: `${keyword} ${value} broken`, value: value + step }];
      case 'exclusiveMaximum':
        return [{ name: `${keyword} ${value} broken (equal)`, value }];
      case 'minLength':
        return value > 0 ? [{ name: `${keyword} ${value} broken`, value: 'x'.repeat(value - 1) }] : [];
      case 'maxLength':
        return [{ name: `${keyword} ${value} broken`, value: 'x'.repeat(value + 1) }];
    }
  });
}

export const UNKNOWN_MEMBER = 'conformance_unknown_member';

export function missingRequired(op: OperationModel, valid: JsonObject): InvalidBody[] {
  return writable(op)
    .filter((m) => m.required)
    .map((m) => {
      const body = { ...valid };
      delete body[m.name];
      return { label: `${m.name}: missing`, body, pointers: [`/${m.name}`] };
    });
}

export function wrongTypes(op: OperationModel, valid: JsonObject): InvalidBody[] {
  return writable(op).flatMap((m) =>
    wrongTypeValues(m).map((c) => ({ label: `${m.name}: ${c.name}`, body: { ...valid, [m.name]: c.value }, pointers: [`/${m.name}`] })),
  );
}

export function outOfBounds(op: OperationModel, valid: JsonObject): InvalidBody[] {
  return writable(op).flatMap((m) =>
    brokenBounds(m).map((c) => ({ label: `${m.name}: ${c.name}`, body: { ...valid, [m.name]: c.value }, pointers: [`/${m.name}`] })),
  );
}

export function unknownMember(valid: JsonObject, marker: string): InvalidBody[] {
  return [{ label: `unknown member ${UNKNOWN_MEMBER}`, body: { ...valid, [UNKNOWN_MEMBER]: marker }, pointers: [`/${UNKNOWN_MEMBER}`] }];
}

/** One body with several problems at once (a required member missing, a wrong type, a broken bound, an unknown member). */
export function severalProblems(op: OperationModel, valid: JsonObject, marker: string): InvalidBody[] {
  const body: JsonObject = { ...valid, [UNKNOWN_MEMBER]: marker };
  const pointers = [`/${UNKNOWN_MEMBER}`];
  const members = writable(op);
  const missing = members.find((m) => m.required && !m.namesLot);
  if (missing) {
    delete body[missing.name];
    pointers.push(`/${missing.name}`);
  }
  const bounded = members.find((m) => m !== missing && brokenBounds(m).length > 0 && !m.namesLot);
  const broken = bounded ? brokenBounds(bounded)[0] : undefined;
  if (bounded && broken) {
    body[bounded.name] = broken.value;
    pointers.push(`/${bounded.name}`);
  }
  const typed = members.find((m) => m !== missing && m !== bounded && !m.namesLot && wrongTypeValues(m).length > 0);
  const wrong = typed ? wrongTypeValues(typed)[0] : undefined;
  if (typed && wrong) {
    body[typed.name] = wrong.value;
    pointers.push(`/${typed.name}`);
  }
  return [{ label: `${pointers.length} problems: ${pointers.join(', ')}`, body, pointers }];
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
