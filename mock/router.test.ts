import assert from 'node:assert/strict';
import { listOperations, readContract, type OperationSpec } from '../contract/document.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { ProblemError } from './problems.js';
import { createRouter, routeRequest } from './router.js';

const operations = listOperations(readContract(CONTRACT_JSON_PATH));
const router = createRouter(operations);
const withParam = operations.find((op) => op.pathParams.length > 0);
const literal = operations.find((op) => op.pathParams.length === 0);
if (!withParam || !literal) throw new Error('the contract has an operation with and one without path parameters');
const param = withParam.pathParams[0] ?? '';
const pathOf = (value: string): string => withParam.path.replace(`{${param}}`, value);

describe('mock/router', () => {
  it('routes literal and parameterised paths, decoding parameters', () => {
    assert.equal(routeRequest(router, literal.method.toUpperCase(), literal.path).operation, literal);
    const routed = routeRequest(router, withParam.method.toUpperCase(), pathOf('A%20B%2FC'));
    assert.equal(routed.operation, withParam);
    assert.equal(routed.params[param], 'A B/C');
  });

  it('answers every path from the cache of matched paths as from a fresh match, past the cache size too', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 600; i++) {
        // Its type spelled out: inferred, it would depend on the assertions of this loop.
        const routed: { operation: OperationSpec; params: Record<string, string> } = routeRequest(
          router,
          withParam.method.toUpperCase(),
          pathOf(`N-${i}%C3%A9`),
        );
        assert.equal(routed.operation, withParam);
        assert.equal(routed.params[param], `N-${i}é`);
        assert.ok(Object.isFrozen(routed.params), 'shared parameters cannot be changed by a caller');
      }
    }
  });

  it('answers 404 for invalid percent-encoding every time, and 404/405 for unknown paths and methods', () => {
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => routeRequest(router, withParam.method.toUpperCase(), pathOf('%E0%A4%A')),
        (error: unknown) => error instanceof ProblemError && error.kind.status === 404,
      );
    }
    assert.throws(
      () => routeRequest(router, 'GET', `${literal.path}/more`),
      (error: unknown) => error instanceof ProblemError && error.kind.status === 404,
    );
    assert.throws(
      () => routeRequest(router, 'DELETE', pathOf('X')),
      (error: unknown) => error instanceof ProblemError && error.kind.status === 405 && error.headers?.['Allow'] !== undefined,
    );
  });
});
