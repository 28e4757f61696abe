import assert from 'node:assert/strict';
import type { JsonValue } from '../../contract/document.js';
import { Rng } from '../../test/hardening/support/rng.js';
import { jsonText, memberKey } from './plan.js';

/** Strings over every kind of UTF-16 code unit: plain ASCII, escapes, controls, non-ASCII, pairs and lone surrogates. */
function randomString(rng: Rng): string {
  const units: number[] = [];
  const length = rng.int(0, 11);
  for (let i = 0; i < length; i++) {
    const kind = rng.int(0, 5);
    if (kind === 0) units.push(rng.int(0x20, 0x7e));
    else if (kind === 1) units.push(rng.pick([0x22, 0x5c, 0x2f, 0x7f]));
    else if (kind === 2) units.push(rng.int(0, 0x1f));
    else if (kind === 3) units.push(rng.int(0x80, 0xd7ff));
    else if (kind === 4) units.push(rng.int(0xd800, 0xdbff), rng.int(0xdc00, 0xdfff));
    else units.push(rng.int(0xd800, 0xdfff));
  }
  return String.fromCharCode(...units);
}

describe('record JSON (jsonText, memberKey)', () => {
  it('writes every value exactly as JSON.stringify does', () => {
    const fixed: JsonValue[] = [
      '',
      'BENCH-SRC-1',
      'quote " and backslash \\ and slash /',
      'line\nbreak\ttab\u0000nul\u001fus',
      '\u2028\u2029 are not escaped',
      'caf\u00e9 \u4e2d\u6587 \ud83d\ude00',
      '\ud800 lone high',
      'lone low \udc00',
      0,
      -0,
      12.5,
      -1e-7,
      1e21,
      Number.MAX_SAFE_INTEGER,
      5e-324,
      true,
      false,
      null,
      [],
      {},
      [1, 'a', null, { b: [true] }],
      { nested: { 'key "quoted"': 'v\n' } },
    ];
    for (const value of fixed) assert.equal(jsonText(value), JSON.stringify(value), JSON.stringify(value));
    const rng = new Rng(20261122);
    for (let i = 0; i < 20_000; i++) {
      const value = randomString(rng);
      assert.equal(jsonText(value), JSON.stringify(value), `case ${i}: ${JSON.stringify(value)}`);
    }
  });

  it('writes member names as JSON.stringify does, escapes included', () => {
    for (const name of ['id', 'fk_lot_id', 'with "quote"', 'back\\slash', 'ctl\u0001', '\u00e9']) {
      assert.equal(memberKey(name), `${JSON.stringify(name)}:`);
      assert.equal(memberKey(name), `${JSON.stringify(name)}:`);
    }
  });
});
