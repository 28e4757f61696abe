import assert from 'node:assert/strict';
import { messageOf } from './errors.js';

describe('contract/errors: messageOf', () => {
  it('answers the message of an Error and the text of anything else thrown', () => {
    assert.equal(messageOf(new TypeError('bad type')), 'bad type');
    assert.equal(messageOf('plain text'), 'plain text');
    assert.equal(messageOf(42), '42');
    assert.equal(messageOf(undefined), 'undefined');
  });
});
