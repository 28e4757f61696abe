import assert from 'node:assert/strict';
import { printable } from './printable.js';

describe('printable', () => {
  it('turns every character outside printable ASCII into ?', () => {
    assert.equal(printable('a\u001b[31mb\nc\u00e9\u{1f600}'), 'a?[31mb?c???');
  });

  it('cuts text longer than the limit, and shows the cut', () => {
    assert.equal(printable('x'.repeat(300)), `${'x'.repeat(200)}...`);
    assert.equal(printable('abcdef', 3), 'abc...');
    assert.equal(printable('abc', 3), 'abc');
  });
});
