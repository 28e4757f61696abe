import assert from 'node:assert/strict';
import { withQuery } from './query.js';

describe('withQuery: a request target with query parameters appended', () => {
  it('appends encoded parameters after ? or after the query the path has, and leaves a path alone without any', () => {
    assert.equal(withQuery('/a', []), '/a');
    assert.equal(withQuery('/a', [['api key', 'x&y']]), '/a?api%20key=x%26y');
    assert.equal(withQuery('/a?b=1', [['c', '2']]), '/a?b=1&c=2');
  });
});
