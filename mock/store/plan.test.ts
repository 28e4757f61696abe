import assert from 'node:assert/strict';
import type { JsonValue } from '../../contract/document.js';
import { jsonText, memberKey } from './plan.js';

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings over every kind of UTF-16 code unit: plain ASCII, escapes, controls, non-ASCII, pairs and lone surrogates. */
function randomString(next: () => number): string {
  const units: number[] = [];
  const length = Math.floor(next() * 12);
  for (let i = 0; i < length; i++) {
    const kind = Math.floor(next() * 6);
    if (kind === 0) units.push(0x20 + Math.floor(next() * 0x5f));
    else if (kind === 1) units.push([0x22, 0x5c, 0x2f, 0x7f][Math.floor(next() * 4)] ?? 0x22);
    else if (kind === 2) units.push(Math.floor(next() * 0x20));
    else if (kind === 3) units.push(0x80 + Math.floor(next() * 0xd780));
    else if (kind === 4) units.push(0xd800 + Math.floor(next() * 0x400), 0xdc00 + Math.floor(next() * 0x400));
    else units.push(0xd800 + Math.floor(next() * 0x800));
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
    const next = random(20261122);
    for (let i = 0; i < 20_000; i++) {
      const value = randomString(next);
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
