import assert from 'node:assert/strict';
import { deepFreeze, isFrozenWhole } from './frozen.js';

describe('util/frozen', () => {
  it('freezes a value and every object in it, and knows it', () => {
    const value = { a: [1, { b: 'c' }], d: { e: null } };
    assert.equal(isFrozenWhole(value), false);
    deepFreeze(value);
    assert.equal(isFrozenWhole(value), true);
    assert.equal(Object.isFrozen(value.a), true);
    assert.equal(Object.isFrozen(value.a[1]), true);
    assert.equal(Object.isFrozen(value.d), true);
    assert.equal(isFrozenWhole(value.a[1]), true);
  });

  it('does not take an object frozen only at its top for one frozen whole', () => {
    const inner = { b: 1 };
    const outer = Object.freeze({ inner });
    assert.equal(isFrozenWhole(outer), false);
    deepFreeze(outer);
    assert.equal(isFrozenWhole(outer), true);
    assert.equal(Object.isFrozen(inner), true);
  });

  it('answers false for what is not an object', () => {
    for (const value of [null, undefined, 1, 'text', true]) {
      deepFreeze(value);
      assert.equal(isFrozenWhole(value), false);
    }
  });
});
