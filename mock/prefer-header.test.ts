import assert from 'node:assert/strict';
import { preferenceValue } from './prefer-header.js';

describe('a preference of a Prefer header (mock/prefer-header.ts)', () => {
  it('reads name=value and name="value" among preferences and parameters; the first one counts; names ignore case', () => {
    assert.equal(preferenceValue(undefined, 'fault'), undefined);
    assert.equal(preferenceValue('return=minimal', 'fault'), undefined);
    assert.equal(preferenceValue('respond-async, FAULT = "status:503"; wait=10, fault=drop', 'fault'), 'status:503');
    assert.equal(preferenceValue('code=404;x=y', 'code'), '404');
  });

  it('keeps whatever follows the = up to the next , or ; (trailing text, inner spaces): the parser of the value refuses it', () => {
    assert.equal(preferenceValue('fault=delay: 10', 'fault'), 'delay: 10');
    assert.equal(preferenceValue('fault=status:503 junk, other', 'fault'), 'status:503 junk');
    assert.equal(preferenceValue('fault="drip:10 "', 'fault'), 'drip:10 ');
    assert.equal(preferenceValue('fault="unclosed', 'fault'), '"unclosed');
    assert.equal(preferenceValue('fault', 'fault'), '', 'a preference without a value has the empty value');
  });
});
