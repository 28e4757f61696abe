import assert from 'node:assert/strict';
import { childPointer, escapeToken, unescapeToken, valueAt } from './json-pointer.js';

describe('util/json-pointer (RFC 6901)', () => {
  it('escapes ~ before / and unescapes in the reverse order', () => {
    assert.equal(escapeToken('a/b~c'), 'a~1b~0c');
    assert.equal(escapeToken('~1'), '~01');
    assert.equal(unescapeToken('~01'), '~1');
    assert.equal(unescapeToken('a~1b~0c'), 'a/b~c');
    for (const token of ['', 'plain', '~', '/', '~/~1/~0']) assert.equal(unescapeToken(escapeToken(token)), token);
  });

  it('appends a token to a pointer', () => {
    assert.equal(childPointer('', 'lots'), '/lots');
    assert.equal(childPointer('/lots', 0), '/lots/0');
    assert.equal(childPointer('#/paths', '/orders/{id}'), '#/paths/~1orders~1{id}');
  });

  it('finds the value a pointer names, or undefined when it names nothing', () => {
    const root = { 'a/b': { '~k': [10, { x: null }] }, list: [1, 2] };
    assert.equal(valueAt(root, ''), root);
    assert.deepEqual(valueAt(root, '/a~1b/~0k'), [10, { x: null }]);
    assert.equal(valueAt(root, '/a~1b/~0k/0'), 10);
    assert.equal(valueAt(root, '/a~1b/~0k/1/x'), null);
    for (const pointer of ['/missing', '/list/2', '/list/01', '/list/-', '/list/0/deeper', 'list', '/toString'])
      assert.equal(valueAt(root, pointer), undefined, pointer);
    assert.equal(valueAt(42, '/x'), undefined);
  });
});
