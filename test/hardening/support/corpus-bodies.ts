/**
 * Hostile JSON bodies for the two creates: random bytes, truncated and malformed JSON, deep nesting,
 * huge numbers, long strings, duplicate keys, prototype members, unusual and invalid Unicode. Each
 * case carries the status the contract prescribes (a valid body is a 201; this is not a list of 400s).
 */
import type { Rng } from './rng.js';
import { requestBytes } from './http-bytes.js';
import { CREATE_PATHS, ONE_MIB, type CorpusTarget, type Expectation, type HostileCase, type Resource } from './corpus-types.js';

export type CaseDraft = Omit<HostileCase, 'id'>;

const INVALID_JSON: Expectation = { statuses: [400], why: 'not valid JSON' };

export function validBody(rng: Rng, target: CorpusTarget, resource: Resource): Record<string, unknown> {
  const fk_lot_id = rng.pick(target.lotIds);
  if (resource === 'lot-transfers') {
    return {
      fk_lot_id,
      source_scancode: `SRC-${rng.text(rng.int(1, 12), 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789')}`,
      target_scancode: `TGT-${rng.text(rng.int(1, 12), 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789')}`,
      amount: rng.int(1, 100_000) / 4,
    };
  }
  return { fk_lot_id, fk_user_id: rng.int(1, 99_999) };
}

/** A POST to a create with a valid token and `application/json`, with exactly `body` as the body. */
export function post(target: CorpusTarget, resource: Resource, body: Buffer | string, contentType = 'application/json'): Buffer {
  return requestBytes({
    method: 'POST',
    target: CREATE_PATHS[resource],
    headers: [
      ['Authorization', `Bearer ${target.token}`],
      ['Content-Type', contentType],
    ],
    body,
  });
}

function created(resource: Resource, why: string, echo?: Record<string, unknown>): Expectation {
  return { statuses: [201], why, creates: resource, ...(echo ? { echo } : {}) };
}

function bodyCase(
  category: string,
  label: string,
  target: CorpusTarget,
  resource: Resource,
  body: Buffer | string,
  expect: Expectation,
): CaseDraft {
  return { category, label: `${resource}: ${label}`, data: post(target, resource, body), expect };
}

export function randomBytesBody(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const bytes = rng.bytes(rng.int(1, 2048));
  bytes[0] = rng.int(0x80, 0xff); // not the start of a JSON text, so never accidentally valid
  return bodyCase('random bytes', `${bytes.length} random bytes as the body`, target, resource, bytes, INVALID_JSON);
}

export function randomJsonish(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const text = rng.text(rng.int(1, 200), '{}[]":,0123456789.-+eEtrufalsn \\');
  // No object with the required members can come out of this alphabet: at best {} or a non-object.
  return bodyCase('random bytes', `JSON-like noise ${JSON.stringify(text.slice(0, 30))}`, target, resource, text, {
    statuses: [400],
    why: 'invalid JSON, not an object, or missing required members',
  });
}

export function truncatedJson(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const text = JSON.stringify(validBody(rng, target, resource));
  const cut = rng.int(1, text.length - 1);
  return bodyCase(
    'truncated JSON',
    `valid body cut after ${cut} of ${text.length} characters`,
    target,
    resource,
    text.slice(0, cut),
    INVALID_JSON,
  );
}

const MALFORMATIONS: [string, (json: string) => string][] = [
  ['trailing comma', (j) => `${j.slice(0, -1)},}`],
  ['single quotes', (j) => j.replaceAll('"', "'")],
  ['unquoted keys', (j) => j.replace(/"([a-z_]+)":/g, '$1:')],
  ['NaN literal', (j) => j.replace(/:(\d+)/, ':NaN')],
  ['Infinity literal', (j) => j.replace(/:(\d+)/, ':Infinity')],
  ['line comment', (j) => `// note\n${j}`],
  ['block comment', (j) => j.replace('{', '{/* x */')],
  ['trailing garbage', (j) => `${j}x`],
  ['two objects', (j) => `${j}${j}`],
  ['missing colon', (j) => j.replace('":', '"')],
  ['extra closing brace', (j) => `${j}}`],
  ['missing closing brace', (j) => j.slice(0, -1)],
  ['raw control character in a string', (j) => j.replace(/"([a-z])/, '"\u0001$1')],
  ['raw newline in a string', (j) => j.replace(/"([a-z])/, '"\n$1')],
  ['invalid escape', (j) => j.replace(/"([a-z])/, '"\\x41$1')],
  ['hex number', (j) => j.replace(/:(\d+)/, ':0x10')],
  ['leading zero', (j) => j.replace(/:(\d+)/, ':0$1')],
  ['leading plus', (j) => j.replace(/:(\d+)/, ':+$1')],
  ['undefined literal', (j) => j.replace(/:(\d+)/, ':undefined')],
  ['truncated unicode escape', (j) => j.replace(/"([a-z])/, '"\\u12$1')],
];

export function malformedJson(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const [name, mutate] = rng.pick(MALFORMATIONS);
  const json = JSON.stringify(validBody(rng, target, resource));
  const text = mutate(json);
  if (text === json) throw new Error(`the malformation "${name}" left ${json} unchanged`);
  return bodyCase('malformed JSON', name, target, resource, text, INVALID_JSON);
}

export function deepJson(target: CorpusTarget): CaseDraft[] {
  const depth = 10_000;
  const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const bad: Expectation = { statuses: [400], why: 'nested JSON is valid JSON but not a valid create body' };
  return [
    bodyCase('deep JSON', `arrays nested ${depth} deep`, target, 'lot-transfers', arrays, bad),
    bodyCase('deep JSON', `objects nested ${depth} deep`, target, 'test-samples', objects, bad),
    bodyCase(
      'deep JSON',
      `a member holding arrays nested ${depth} deep`,
      target,
      'test-samples',
      `{"fk_lot_id":${target.lotIds[0]},"fk_user_id":1,"notes":${arrays}}`,
      bad,
    ),
    bodyCase('deep JSON', `an unknown member holding objects nested ${depth} deep`, target, 'lot-transfers', `{"x":${objects}}`, bad),
    bodyCase('deep JSON', `unbalanced: ${depth} opening brackets`, target, 'lot-transfers', '['.repeat(depth), INVALID_JSON),
    bodyCase('deep JSON', 'arrays nested 100000 deep', target, 'test-samples', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, bad),
    bodyCase(
      'deep JSON',
      `${depth} nested objects with __proto__ keys`,
      target,
      'test-samples',
      `${'{"__proto__":'.repeat(depth)}{}${'}'.repeat(depth)}`,
      bad,
    ),
  ];
}

/** Numbers at and beyond the edges of IEEE doubles, each with the status the contract prescribes. */
export function numberCases(target: CorpusTarget): CaseDraft[] {
  const lot = target.lotIds[0] ?? 1;
  const transfer = (member: string, raw: string) =>
    `{"fk_lot_id":${member === 'fk_lot_id' ? raw : lot},"source_scancode":"S","target_scancode":"T","amount":${member === 'amount' ? raw : '1'}}`;
  const sample = (member: string, raw: string) =>
    `{"fk_lot_id":${member === 'fk_lot_id' ? raw : lot},"fk_user_id":${member === 'fk_user_id' ? raw : '1'}}`;
  const rows: [Resource, string, string, number, string][] = [
    ['lot-transfers', 'amount', '1e400', 400, 'overflows to Infinity: not a JSON number value'],
    ['lot-transfers', 'amount', '-1e400', 400, 'overflows to -Infinity'],
    ['lot-transfers', 'amount', '-0', 400, 'exclusiveMinimum 0'],
    ['lot-transfers', 'amount', '0', 400, 'exclusiveMinimum 0'],
    ['lot-transfers', 'amount', '1e-400', 400, 'underflows to 0: exclusiveMinimum 0'],
    ['lot-transfers', 'amount', '5e-324', 201, 'the smallest positive double is > 0'],
    ['lot-transfers', 'amount', '1.7976931348623157e308', 201, 'the largest double is a number'],
    ['lot-transfers', 'amount', '18446744073709551616', 201, '2^64 is a number (no maximum in the contract)'],
    ['lot-transfers', 'amount', `1${'0'.repeat(5000)}`, 400, '5001 digits overflow to Infinity'],
    ['lot-transfers', 'amount', `1.${'0'.repeat(5000)}1`, 201, 'a long mantissa rounds to 1'],
    ['lot-transfers', 'amount', '"1"', 400, 'a string is not a number'],
    ['lot-transfers', 'amount', 'true', 400, 'a boolean is not a number'],
    ['lot-transfers', 'amount', 'null', 400, 'null is not a number'],
    ['lot-transfers', 'fk_lot_id', '18446744073709551616', 422, '2^64 is an integer >= 1 but no lot has it'],
    ['lot-transfers', 'fk_lot_id', '9007199254740993', 422, '2^53+1 is an integer but no lot has it'],
    ['lot-transfers', 'fk_lot_id', `${lot}.0`, 201, 'n.0 is an integer in JSON Schema'],
    ['lot-transfers', 'fk_lot_id', `${lot / 1000}e3`, 201, 'exponent notation of a lot id is that integer'],
    ['lot-transfers', 'fk_lot_id', `${lot}.5`, 400, 'not an integer'],
    ['lot-transfers', 'fk_lot_id', '0', 400, 'minimum 1'],
    ['lot-transfers', 'fk_lot_id', `-${lot}`, 400, 'minimum 1'],
    ['lot-transfers', 'fk_lot_id', '1e400', 400, 'Infinity is not an integer'],
    ['lot-transfers', 'fk_lot_id', `"${lot}"`, 400, 'a string is not an integer'],
    ['test-samples', 'fk_user_id', '18446744073709551616', 201, '2^64 is an integer >= 1'],
    ['test-samples', 'fk_user_id', '1e400', 400, 'Infinity is not an integer'],
    ['test-samples', 'fk_user_id', '-0', 400, 'minimum 1'],
    ['test-samples', 'fk_user_id', '1.5', 400, 'not an integer'],
    ['test-samples', 'fk_user_id', '1e2', 201, '1e2 is the integer 100'],
    ['test-samples', 'fk_lot_id', '-1e400', 400, '-Infinity is not an integer'],
  ];
  return rows.map(([resource, member, raw, status, why]) => {
    const text = resource === 'lot-transfers' ? transfer(member, raw) : sample(member, raw);
    const expect: Expectation =
      status === 201 ? created(resource, why, { [member]: JSON.parse(raw) as unknown }) : { statuses: [status], why };
    return bodyCase(
      'huge numbers',
      `${member} = ${raw.length > 40 ? `${raw.slice(0, 20)}...(${raw.length} chars)` : raw}`,
      target,
      resource,
      text,
      expect,
    );
  });
}

export function longStringCases(target: CorpusTarget): CaseDraft[] {
  const lot = target.lotIds[0] ?? 1;
  const notes = 'n'.repeat(100_000);
  const scancode = 'S'.repeat(500_000);
  const manyMembers = `{${Array.from({ length: 5000 }, (_, i) => `"m${i}":${i}`).join(',')}}`;
  const escaped = '\\u0041'.repeat(100_000);
  return [
    bodyCase(
      'long strings',
      'notes of 100,000 characters',
      target,
      'test-samples',
      JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes }),
      created('test-samples', 'no maxLength in the contract', { notes }),
    ),
    bodyCase(
      'long strings',
      'source_scancode of 500,000 characters',
      target,
      'lot-transfers',
      JSON.stringify({ fk_lot_id: lot, source_scancode: scancode, target_scancode: 'T', amount: 1 }),
      created('lot-transfers', 'no maxLength in the contract', { source_scancode: scancode }),
    ),
    bodyCase(
      'long strings',
      'notes of 100,000 \\u0041 escapes',
      target,
      'test-samples',
      `{"fk_lot_id":${lot},"fk_user_id":1,"notes":"${escaped}"}`,
      created('test-samples', 'escapes decode to A', { notes: 'A'.repeat(100_000) }),
    ),
    bodyCase(
      'long strings',
      'a member name of 10,000 characters',
      target,
      'test-samples',
      `{"fk_lot_id":${lot},"fk_user_id":1,"${'k'.repeat(10_000)}":1}`,
      { statuses: [400], why: 'unknown member' },
    ),
    bodyCase('long strings', '5,000 unknown members', target, 'lot-transfers', manyMembers, {
      statuses: [400],
      why: 'unknown members, required ones missing',
    }),
    bodyCase(
      'long strings',
      'notes: an array of 100,000 numbers',
      target,
      'test-samples',
      `{"fk_lot_id":${lot},"fk_user_id":1,"notes":[${Array.from({ length: 100_000 }, () => '1').join(',')}]}`,
      { statuses: [400], why: 'notes must be a string' },
    ),
    bodyCase(
      'long strings',
      'a body of exactly 1 MiB',
      target,
      'test-samples',
      exactSizeSample(lot, ONE_MIB),
      created('test-samples', 'the body limit is 1 MiB inclusive'),
    ),
  ];
}

/** A valid sample body of exactly `size` bytes (padded notes). */
export function exactSizeSample(lot: number, size: number): string {
  const head = `{"fk_lot_id":${lot},"fk_user_id":1,"notes":"`;
  return `${head}${'x'.repeat(size - head.length - 2)}"}`;
}

export function duplicateKeys(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const body = validBody(rng, target, resource);
  const member = rng.pick(Object.keys(body));
  const json = JSON.stringify(body);
  // Invalid for every member of both creates (strings, integers >= 1, amount > 0).
  const bad = rng.pick(['-1', 'null', '{}', '[]', 'true']);
  if (rng.next() < 0.5) {
    // The last duplicate wins (ECMA-404 leaves it open; JSON.parse and most parsers keep the last).
    return bodyCase(
      'duplicate keys',
      `${member} first ${bad}, then valid`,
      target,
      resource,
      `{"${member}":${bad},${json.slice(1)}`,
      created(resource, 'the last duplicate wins', { [member]: body[member] }),
    );
  }
  return bodyCase('duplicate keys', `${member} valid, then ${bad}`, target, resource, `${json.slice(0, -1)},"${member}":${bad}}`, {
    statuses: [400],
    why: `the last ${member} is invalid`,
  });
}

const PROTO_MEMBERS = [
  '"__proto__":{"polluted":"yes"}',
  '"__proto__":null',
  '"constructor":{"prototype":{"polluted":"yes"}}',
  '"prototype":{"polluted":"yes"}',
  '"__proto__":{"fk_lot_id":1,"toString":"x"}',
  '"hasOwnProperty":"x"',
  '"toString":{"polluted":"yes"}',
];

export function protoMembers(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const json = JSON.stringify(validBody(rng, target, resource));
  const member = rng.pick(PROTO_MEMBERS);
  const where = rng.int(0, 2);
  const text =
    where === 0
      ? `{${member},${json.slice(1)}`
      : where === 1
        ? `${json.slice(0, -1)},${member}}`
        : resource === 'test-samples'
          ? `${json.slice(0, -1)},"notes":{${member}}}`
          : `${json.slice(0, -1)},"completed":{${member}}}`;
  const why = where === 2 ? 'a typed member holding an object' : 'not a member of the create body';
  return bodyCase('prototype members', `${member} (${['first', 'last', 'nested'][where]})`, target, resource, text, {
    statuses: [400],
    why,
  });
}

/** A proto-looking string is just a string: accepted and echoed. */
export function protoStrings(target: CorpusTarget): CaseDraft[] {
  const lot = target.lotIds[0] ?? 1;
  return ['__proto__', 'constructor', 'prototype', '{"__proto__":{"polluted":1}}'].map((notes) =>
    bodyCase(
      'prototype members',
      `notes = ${JSON.stringify(notes)}`,
      target,
      'test-samples',
      JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes }),
      created('test-samples', 'a string value', { notes }),
    ),
  );
}

/** Unusual Unicode written as JSON escapes or raw UTF-8: all valid strings, so accepted and echoed. */
const UNUSUAL = [
  '\\ud800',
  '\\udfff',
  '\\udbff\\udfff',
  '\\u0000',
  '\u202e',
  '\u200f',
  '\u200b',
  '😀',
  '👩‍👩‍👧',
  'e\u0301',
  '\ufeff',
  '\uffff',
  '\\ufffe',
  'ß',
  '\u4e2d\u6587',
  '\\\\',
  '\\"',
  '\\/',
  '\\b\\f\\n\\r\\t',
];

export function unicodeValid(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const member = resource === 'test-samples' ? 'notes' : rng.pick(['source_scancode', 'target_scancode']);
  const parts = Array.from({ length: rng.int(1, 6) }, () => rng.pick(UNUSUAL));
  const literal = parts.join('');
  const json = JSON.stringify(validBody(rng, target, resource));
  const text = `${json.slice(0, -1)},"${member}":"${literal}"}`;
  const value = JSON.parse(`"${literal}"`) as string;
  return bodyCase(
    'unicode',
    `${member} = "${literal.replace(/[^\x20-\x7e]/g, (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`)}"`,
    target,
    resource,
    Buffer.from(text, 'utf8'),
    created(resource, 'any JSON string is a valid string', { [member]: value }),
  );
}

const INVALID_UTF8: [string, number[]][] = [
  ['lone continuation byte', [0x80]],
  ['truncated 2-byte sequence', [0xc3]],
  ['bad continuation', [0xc3, 0x28]],
  ['overlong slash', [0xc0, 0xaf]],
  ['UTF-8 encoded surrogate', [0xed, 0xa0, 0x80]],
  ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['0xFE byte', [0xfe]],
  ['0xFF byte', [0xff]],
  ['5-byte form', [0xf8, 0x88, 0x80, 0x80, 0x80]],
  ['Latin-1 e-acute', [0xe9]],
];

export function unicodeInvalid(rng: Rng, target: CorpusTarget): CaseDraft {
  const resource = rng.pick<Resource>(['lot-transfers', 'test-samples']);
  const member = resource === 'test-samples' ? 'notes' : 'source_scancode';
  const [name, bytes] = rng.pick(INVALID_UTF8);
  const json = JSON.stringify(validBody(rng, target, resource));
  const body = Buffer.concat([Buffer.from(`${json.slice(0, -1)},"${member}":"a`), Buffer.from(bytes), Buffer.from('b"}')]);
  return bodyCase('unicode', `invalid UTF-8 in ${member}: ${name}`, target, resource, body, { statuses: [400], why: 'JSON must be UTF-8' });
}

export function bomBody(target: CorpusTarget): CaseDraft {
  const lot = target.lotIds[0] ?? 1;
  return bodyCase(
    'unicode',
    'a UTF-8 byte order mark before the JSON',
    target,
    'test-samples',
    `\ufeff{"fk_lot_id":${lot},"fk_user_id":1}`,
    {
      statuses: [201, 400],
      why: 'RFC 8259 lets a parser ignore a BOM or reject it',
      creates: 'test-samples',
    },
  );
}
