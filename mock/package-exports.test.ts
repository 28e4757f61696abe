/**
 * The package exports the compiled mock: `goods-contract-harness/mock` resolves (self-reference through
 * package.json `exports`) to `dist/`, so a frontend's own tests can start the mock in-process.
 * Needs `npm run build` first (`npm test` builds before it runs the tests).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import type * as MockModule from './index.js';

describe('package exports: goods-contract-harness/mock', () => {
  it('resolves by package name to the compiled mock, which starts and answers', async () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string };
    const resolved = createRequire(join(PROJECT_ROOT, 'package.json')).resolve(`${pkg.name}/mock`);
    assert.equal(resolved, join(PROJECT_ROOT, 'dist', 'mock', 'index.js'));
    const compiled = (await import(`${pkg.name}/mock`)) as typeof MockModule;
    const mock = await compiled.createMockServer({ port: 0, quiet: true });
    try {
      const answer = await fetch(`${mock.url}/manualProduction/rest/v1/orders/info/ORD-2026-0001`, {
        headers: { authorization: 'Bearer t' },
      });
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as { order: { orderNumber: string } }).order.orderNumber, 'ORD-2026-0001');
    } finally {
      await mock.close();
    }
  });
});
