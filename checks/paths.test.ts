import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { judgeContexts } from '../judgments/context.js';
import { pathVariants } from './paths.js';

const MODEL = judgeContexts(readContract()).strict.model;

describe('near misses of an operation path (checks/paths.ts)', () => {
  it('a trailing slash, every literal segment in the other letter case, the version bumped, a doubled slash; parameters encoded', () => {
    assert.deepEqual(pathVariants('/api/v1/orders/{number}', { number: 'A 1' }), [
      { name: 'a trailing slash', path: '/api/v1/orders/A%201/' },
      { name: 'another letter case (every literal segment)', path: '/API/V1/ORDERS/A%201' },
      { name: 'another version segment (v1 bumped by one)', path: '/api/v2/orders/A%201' },
      { name: 'a doubled slash (before the last literal segment)', path: '/api/v1//orders/A%201' },
    ]);
  });

  it('a class the template has nothing for is left out (no version segment, no letter, a single segment)', () => {
    assert.deepEqual(
      pathVariants('/items', {}).map((v) => v.name),
      ['a trailing slash', 'another letter case (every literal segment)'],
    );
    assert.deepEqual(
      pathVariants('/2024/{id}', { id: 'x' }).map((v) => v.name),
      ['a trailing slash'],
    );
    assert.equal(pathVariants('/V9/x', {}).find((v) => v.name.startsWith('another version'))?.path, '/V10/x');
  });

  it('every operation of the bundled contract gets all four classes, none of them its own path', () => {
    for (const op of MODEL.operations) {
      const params = Object.fromEntries(op.pathParams.map((p) => [p, 'ORD-1']));
      const variants = pathVariants(op.path, params);
      assert.equal(variants.length, 4, op.operationId);
      const own = MODEL.pathOf(op.operationId, params);
      for (const v of variants) assert.notEqual(v.path, own, `${op.operationId}: ${v.name}`);
    }
  });
});
