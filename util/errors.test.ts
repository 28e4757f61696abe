import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { codeOf, messageOf } from './errors.js';

describe('util/errors: messageOf', () => {
  it('answers the message of an Error and the text of anything else thrown', () => {
    assert.equal(messageOf(new TypeError('bad type')), 'bad type');
    assert.equal(messageOf('plain text'), 'plain text');
    assert.equal(messageOf(42), '42');
    assert.equal(messageOf(undefined), 'undefined');
  });
});

describe('util/errors: codeOf', () => {
  it("answers a Node error's code, and undefined for anything without a string code", async () => {
    const missing = await readFile('/nonexistent/goods-mock-errors-test').catch((error: unknown) => error);
    assert.equal(codeOf(missing), 'ENOENT');
    assert.equal(codeOf(Object.assign(new Error('x'), { code: 'EADDRINUSE' })), 'EADDRINUSE');
    assert.equal(codeOf(Object.assign(new Error('x'), { code: 42 })), undefined);
    assert.equal(codeOf(new Error('no code')), undefined);
    assert.equal(codeOf({ code: 'ENOENT' }), undefined);
    assert.equal(codeOf('ENOENT'), undefined);
  });
});
