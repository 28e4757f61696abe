import assert from 'node:assert/strict';
import { ExtensionError } from './extensions.js';
import { PointedContractError } from './pointed-error.js';
import { ResourceError } from './resources.js';

describe('contract/pointed-error: a contract unusable at one place', () => {
  it('names its pointer in the message and keeps each kind its own name', () => {
    for (const Kind of [ResourceError, ExtensionError]) {
      const error = new Kind('#/paths/~1books/post', 'declare which member is the key');
      assert.ok(error instanceof PointedContractError);
      assert.equal(error.pointer, '#/paths/~1books/post');
      assert.equal(error.message, 'declare which member is the key (at #/paths/~1books/post)');
      assert.equal(error.name, Kind.name);
    }
  });
});
