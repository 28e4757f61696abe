import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readContract } from './document.js';
import { addRfcFormats, RFC_FORMATS } from './formats.js';
import { compileContract } from './schemas.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A validator of one format with ajv-formats alone (what the contract used before), to show where it was lenient. */
function ajvFormatsOnly(format: string): (value: string) => boolean {
  const ajv = new Ajv2020({ strict: true });
  addFormatsModule.default(ajv);
  const validate = ajv.compile({ type: 'string', format });
  return (value) => validate(value);
}

describe('contract formats (contract/formats.ts): each format by its RFC grammar', () => {
  const strict = compileContract(readContract(), 'strict');
  const dateTime = strict.validator(ref('DateTime'));
  const fullDate = strict.validator(ref('FullDate'));

  // RFC 3339 §5.6: time-numoffset = ("+" / "-") time-hour ":" time-minute; partial-time needs seconds;
  // time-hour is 00-23; date-time = full-date "T" full-time (ABNF strings are case-insensitive: t and z pass).
  const DATE_TIME_REFUSED = [
    ['an offset without its colon', '2026-11-21T09:30:00+0000'],
    ['an offset without minutes', '2026-11-21T09:30:00+05'],
    ['a space for T', '2026-11-21 09:30:00Z'],
    ['a line break for T', '2026-11-21\n09:30:00Z'],
    ['no seconds', '2026-11-21T09:30Z'],
    ['hour 24', '2026-11-21T24:00:00Z'],
    ['hour 24 that an offset brings to 23:59 UTC', '2026-11-21T24:59:00+01:00'],
    ['no offset', '2026-11-21T09:30:00'],
    ['a leap second where none was', '2026-11-21T23:59:60Z'],
  ] as const;
  const DATE_TIME_ACCEPTED = [
    ['an offset with minutes', '2026-11-21T09:30:00+05:30'],
    ['nine fraction digits', '2026-11-21T09:30:00.123456789Z'],
    ['a lower-case z', '2026-11-21T09:30:00z'],
    ['a lower-case t', '2026-11-21t09:30:00Z'],
    ['the unknown local offset -00:00', '2026-11-21T09:30:00-00:00'],
    ['a real leap second', '2016-12-31T23:59:60Z'],
  ] as const;

  for (const [name, value] of DATE_TIME_REFUSED)
    it(`date-time refuses ${name} (${JSON.stringify(value)})`, () => {
      assert.deepEqual(dateTime(value), [{ pointer: '', detail: 'must be a date-time string' }]);
    });
  for (const [name, value] of DATE_TIME_ACCEPTED)
    it(`date-time accepts ${name} (${JSON.stringify(value)})`, () => {
      assert.deepEqual(dateTime(value), []);
    });

  it('ajv-formats alone accepted several forms RFC 3339 refuses (why the grammar replaces it)', () => {
    const lenient = ajvFormatsOnly('date-time');
    const accepted = DATE_TIME_REFUSED.filter(([, value]) => lenient(value)).map(([name]) => name);
    assert.deepEqual(accepted, [
      'an offset without its colon',
      'an offset without minutes',
      'a space for T',
      'a line break for T',
      'hour 24 that an offset brings to 23:59 UTC',
      'a leap second where none was',
    ]);
    assert.equal(ajvFormatsOnly('uri-reference')('a"b'), true);
  });

  it('full-date: a real calendar day in YYYY-MM-DD, nothing around it', () => {
    for (const good of ['2024-02-29', '1970-01-01', '9999-12-31']) assert.deepEqual(fullDate(good), [], good);
    for (const bad of ['2026-02-29', '2026-1-05', '20261121', '2026-11-21Z', '2026-11-21T00:00:00Z', ' 2026-11-21'])
      assert.deepEqual(fullDate(bad), [{ pointer: '', detail: 'must be a date string' }], bad);
  });

  it('the other formats the contract uses: uri-reference (RFC 3986) and json-pointer (RFC 6901)', () => {
    const uriReference = RFC_FORMATS['uri-reference'];
    const jsonPointer = RFC_FORMATS['json-pointer'];
    assert.ok(uriReference && jsonPointer);
    for (const good of ['', '/problems/not-found', 'https://example.com/p?q=1#f', '../a', 'urn:x:y']) assert.ok(uriReference(good), good);
    for (const bad of ['a"b', 'a b', '%zz', 'a\\b']) assert.ok(!uriReference(bad), bad);
    for (const good of ['', '/a', '/a~1b', '/a~0b', '/0']) assert.ok(jsonPointer(good), good);
    for (const bad of ['a', '/a~2', '/a~']) assert.ok(!jsonPointer(bad), bad);
  });

  it('iri and iri-reference, which ajv-formats lacks, are known too (a contract may use them)', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormatsModule.default(ajv);
    addRfcFormats(ajv);
    const samples: Record<string, [string, string]> = {
      iri: ['https://例え.jp/パス', 'パス'],
      'iri-reference': ['../パス', 'a b'],
    };
    for (const [format, [good, bad]] of Object.entries(samples)) {
      const validate = ajv.compile({ type: 'string', format });
      assert.equal(validate(good), true, `${format}: ${good}`);
      assert.equal(validate(bad), false, `${format}: ${bad}`);
    }
    assert.equal(ajv.compile({ type: 'string', format: 'int32' })('x'), true, 'the OpenAPI formats stay ajv-formats’');
  });
});
