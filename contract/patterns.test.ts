import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { linearPattern, linearRegExp, patternProblem } from './patterns.js';

/** Strings on which ECMA-262 and a translation could disagree: white space, line ends, astral and accented letters. */
const PROBES = [
  '',
  'a',
  'abc',
  'ABC-123',
  ' ',
  '\t',
  '\v',
  '\n',
  '\r',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  'a b',
  'a\u00a0b',
  '\b',
  'é',
  'e\u0301',
  '😀',
  'x😀y',
  '2026-11-21',
  'Bearer abc',
  'Bearer',
  'a/b',
  '.',
  'k<x>',
];

describe('contract patterns in linear time (contract/patterns.ts)', () => {
  it('matches what JavaScript matches, for the classes whose meaning differs between ECMA-262 and RE2', () => {
    const patterns = [
      '^Bearer( |$)',
      '^[A-Z]{2}-[0-9]{3}$',
      '^\\d{4}-\\d{2}-\\d{2}$',
      '\\s',
      '^\\S+$',
      '^[\\s]+$',
      '^[^\\s]+$',
      '^[\\S]+$',
      '^.$',
      '^a.b$',
      '[.]',
      '\\.',
      '^[\\b]$',
      '^\\u00e9$',
      '^\\u{1F600}$',
      '^\\p{L}+$',
      '^(?<year>\\d{4})-',
      '^[^]$',
      '\\/',
      '^\\w+$',
      '\\bb',
      '^[a-z]*$',
      '^(a|b)+$',
    ];
    for (const source of patterns) {
      const native = new RegExp(source, 'u');
      const linear = linearPattern(source);
      for (const probe of PROBES)
        assert.equal(linear.test(probe), native.test(probe), `${JSON.stringify(source)} on ${JSON.stringify(probe)}`);
    }
  });

  it('matches the catastrophic pattern ^(a+)+$ against 32 and 100,000 characters ending in "!" within a second (JavaScript: minutes)', () => {
    const linear = linearPattern('^(a+)+$');
    for (const length of [32, 100_000]) {
      const started = performance.now();
      assert.equal(linear.test(`${'a'.repeat(length - 1)}!`), false);
      assert.ok(performance.now() - started < 1000, `${length} characters took ${Math.round(performance.now() - started)} ms`);
    }
    assert.equal(linear.test('aaaa'), true);
  });

  it('refuses, naming the construct, what has no linear-time evaluation, and what is no ECMA-262 pattern', () => {
    const refused: [string, RegExp][] = [
      ['^(?=S)[A-Z]+$', /a lookahead "\(\?=\.\.\.\)"/],
      ['^(?!S)', /a negative lookahead/],
      ['(?<=a)b', /a lookbehind/],
      ['(?<!a)b', /a negative lookbehind/],
      ['(a)\\1', /a backreference "\\N"/],
      ['(?<x>a)\\k<x>', /a named backreference/],
      ['(a', /not an ECMA-262 regular expression .*Unterminated group/],
      ['a{,3}', /not an ECMA-262 regular expression/],
      ['\\p{Script=Greek}', /RE2 cannot compile it/],
    ];
    for (const [source, reason] of refused) {
      assert.match(patternProblem(source) ?? 'accepted', reason, source);
      assert.throws(() => linearPattern(source), /cannot be used/);
    }
    // Escaped, or inside a class, the same characters are plain text.
    for (const source of ['\\(?=a\\)', '[(?=]', '\\\\1']) assert.equal(patternProblem(source), undefined, source);
  });

  it('is the engine ajv compiles patterns, patternProperties and propertyNames with', () => {
    const ajv = new Ajv2020({ code: { regExp: linearRegExp }, allErrors: true });
    const validate = ajv.compile({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' }, other: { type: 'string', pattern: '^x' } },
      patternProperties: { '^n-\\d+$': { type: 'integer' } },
      propertyNames: { pattern: '^[a-z0-9-]+$' },
    });
    const started = performance.now();
    assert.equal(validate({ code: `${'a'.repeat(31)}!`, other: 'x', 'n-1': 'not an integer', UPPER: 1 }), false);
    assert.ok(performance.now() - started < 1000);
    assert.deepEqual(validate.errors?.map((e) => `${e.instancePath} ${e.keyword}`).sort(), [
      ' pattern',
      ' propertyNames',
      '/code pattern',
      '/n-1 type',
    ]);
    assert.equal(validate({ code: 'aaa', other: 'xy', 'n-2': 3 }), true);
    // Each pattern keeps its own compiled program (ajv caches by toString).
    assert.notEqual(linearPattern('^a$').toString(), linearPattern('^b$').toString());
  });
});
