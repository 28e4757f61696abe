/** Values derived from a schema: boundary values and catalogue classes fitted to it; one breaking value per keyword, at its pointer. */
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonObject, JsonValue } from '../../contract/document.js';
import { addRfcFormats } from '../../contract/formats.js';
import { VALUE_CATALOGUE } from './catalogue.js';
import { breakingValues, codePointLength, fit, toLength, typesOf, validCandidates } from './derive.js';

const values = (schema: JsonObject): JsonValue[] => validCandidates(schema, 1).map((c) => c.value);
const broken = (schema: JsonObject, valid: JsonValue): string[] => breakingValues(schema, valid).map((b) => `${b.pointer} ${b.keyword}`);

describe('values derived from a schema', () => {
  it('counts code points as the string iterator does: a surrogate pair is one, a lone surrogate one, in any place', () => {
    const texts = [
      '',
      'a',
      'é',
      '😀',
      'a😀b',
      '\ud83d',
      '\ude00',
      'x\ud83d',
      '\ude00\ud83d',
      '\ud83d\ud83d\ude00',
      '😀😀',
      'z'.repeat(1000) + '😀',
    ];
    for (const text of texts) assert.equal(codePointLength(text), [...text].length, JSON.stringify(text));
  });

  it('the JSON types of a schema: its type (name or list), else those of its const or enum, else of its branches', () => {
    assert.deepEqual(typesOf({ type: ['string', 'null'] }), ['string', 'null']);
    assert.deepEqual(typesOf({ enum: ['A', 1] }), ['string', 'integer']);
    assert.deepEqual(typesOf({ oneOf: [{ type: 'integer' }, { type: 'boolean' }] }), ['integer', 'boolean']);
  });

  it('string lengths are counted in code points; a cut keeps the head and the last code point', () => {
    assert.equal(toLength('😀😀😀😀', 2), '😀😀');
    assert.equal([...toLength(' padded value ', 5)].length, 5);
    assert.ok(toLength(' padded value ', 5).endsWith(' '));
    assert.equal(toLength('ab', 4), 'axxb');
  });

  it('fit clips strings and numbers into the bounds and rounds to multipleOf', () => {
    assert.equal(fit({ maxLength: 3 }, 'abcdef'), 'abf');
    assert.equal(fit({ minLength: 3 }, 'a'), 'xxa');
    assert.equal(fit({ maximum: 10 }, 1e21), 10);
    assert.equal(fit({ minimum: 1 }, 0), 1);
    assert.equal(fit({ multipleOf: 0.25 }, 0.1), 0);
  });

  it('every catalogue class is offered to an unconstrained member of its type, and each has a reason', () => {
    for (const c of VALUE_CATALOGUE) {
      assert.ok(c.reason.length > 10, c.name);
      assert.ok(
        values({ type: c.type }).some((v) => v === c.value),
        `${c.type}: ${c.name}`,
      );
    }
  });

  it('boundary values of every keyword: bounds, enum, const, null in a type list, formats, array sizes, oneOf branches', () => {
    const numbers = values({ type: 'integer', minimum: 3, maximum: 9 });
    assert.ok(numbers.includes(3) && numbers.includes(9));
    assert.ok(
      numbers.every((n) => typeof n === 'number' && n >= 3 && n <= 9),
      'catalogue classes clipped into the bounds',
    );
    assert.ok(values({ type: 'number', exclusiveMaximum: 5, multipleOf: 0.5 }).includes(4.5));
    assert.deepEqual(values({ type: 'string', enum: ['A', 'B'] }), ['A', 'B']);
    assert.deepEqual(values({ const: 'X' }), ['X']);
    assert.ok(values({ type: ['string', 'null'] }).includes(null));
    assert.ok(values({ type: 'string', format: 'date' }).includes('2024-02-29'));
    const strings = values({ type: 'string', maxLength: 40 });
    assert.ok(strings.every((s) => typeof s === 'string' && [...s].length <= 40));
    assert.ok(strings.some((s) => typeof s === 'string' && [...s].length === 40));
    const arrays = values({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 });
    assert.ok(arrays.some((a) => Array.isArray(a) && a.length === 1) && arrays.some((a) => Array.isArray(a) && a.length === 2));
    const branches = values({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['Z'] }] });
    assert.ok(branches.includes(true) && branches.includes('Z'));
    const pattern = values({ type: 'string', pattern: '^[A-Z]{2}-[0-9]{3}$' }).filter(
      (v) => typeof v === 'string' && /^[A-Z]{2}-[0-9]{3}$/.test(v),
    );
    assert.ok(pattern.length > 0, 'samples of the pattern');
  });

  it('one breaking value per keyword, at its pointer, nested objects and array items included', () => {
    const schema: JsonObject = {
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: {
        a: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        n: { type: 'number', exclusiveMinimum: 0, maximum: 10, multipleOf: 0.5 },
        e: { enum: ['X', 'Y'] },
        d: { type: 'string', format: 'date-time' },
        list: {
          type: 'array',
          items: { type: 'object', required: ['k'], properties: { k: { type: 'integer' } } },
          maxItems: 2,
          uniqueItems: true,
        },
      },
    };
    const found = broken(schema, { a: 'ab', n: 1, e: 'X', d: '2026-01-01T00:00:00Z', list: [{ k: 1 }] });
    for (const wanted of [
      '/a required',
      '/conformance_unknown_member additionalProperties',
      '/a type',
      '/a minLength',
      '/a maxLength',
      '/a pattern',
      '/n exclusiveMinimum',
      '/n maximum',
      '/n multipleOf',
      '/e enum',
      '/d format',
      '/list maxItems',
      '/list uniqueItems',
      '/list/0/k required',
      '/list/0/k type',
    ])
      assert.ok(found.includes(wanted), wanted);
    // Each breaking value is the whole instance with the member replaced.
    const pattern = breakingValues(schema, { a: 'ab' }).find((b) => b.pointer === '/a' && b.keyword === 'pattern');
    assert.ok(pattern && typeof pattern.value === 'object' && pattern.value !== null && !Array.isArray(pattern.value));
  });

  it('format samples sit at the edges of the RFC grammar (all valid); its near misses break it (each refused, each a case)', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormatsModule.default(ajv);
    addRfcFormats(ajv);
    for (const format of ['date', 'date-time', 'time', 'uri', 'uri-reference', 'email', 'uuid', 'ipv4', 'ipv6']) {
      const schema = { type: 'string', format };
      const validate = ajv.compile(schema);
      const samples = validCandidates(schema, 1).filter((c) => c.name.startsWith(`${format} `));
      assert.ok(samples.length > 0, `${format}: samples`);
      for (const c of samples) assert.ok(validate(c.value), `${format}: ${JSON.stringify(c.value)} is valid`);
      const misses = breakingValues(schema, 'x').filter((b) => b.keyword === 'format');
      assert.ok(misses.length > 0, `${format}: near misses`);
      for (const b of misses) assert.ok(!validate(b.value), `${format}: ${JSON.stringify(b.value)} is refused`);
    }
    const dateTime = breakingValues({ type: 'string', format: 'date-time' }, 'x').map((b) => b.value);
    for (const miss of ['2026-11-21T10:00:00+0000', '2026-11-21 10:00:00Z', '2026-11-21T10:00Z', '2026-11-21T24:00:00Z'])
      assert.ok(dateTime.includes(miss), miss);
    const valid = values({ type: 'string', format: 'date-time' });
    for (const edge of ['2026-11-21T09:30:00+05:30', '2026-11-21T09:30:00.123456789Z', '2026-11-21t09:30:00z'])
      assert.ok(valid.includes(edge), edge);
  });
});
