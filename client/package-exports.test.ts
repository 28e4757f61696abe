/**
 * The package exports the compiled client with its types: `goods-contract-harness/client` resolves
 * (self-reference through package.json `exports`) to `dist/`, and the compiled module works.
 * Needs `npm run build` first (`npm test` builds before it runs the tests).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { PROJECT_ROOT } from '../contract/paths.js';
import { listen, sendJson } from '../test/support/http.js';
import type * as ClientModule from './index.js';

interface ExportTarget {
  types: string;
  default: string;
}

describe('package exports: goods-contract-harness/client', () => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports?: Record<string, ExportTarget | string>;
  };

  it('maps ./client to the compiled module and its declarations, both present in dist/', () => {
    const target = pkg.exports?.['./client'];
    assert.ok(typeof target === 'object', 'package.json has an exports entry "./client" with "types" and "default"');
    for (const file of [target.types, target.default]) {
      assert.ok(existsSync(join(PROJECT_ROOT, file)), `${file} is missing: run \`npm run build\` first (npm test does)`);
    }
    const declarations =
      readFileSync(join(PROJECT_ROOT, target.types), 'utf8') + readFileSync(join(PROJECT_ROOT, 'dist/client/goods-client.d.ts'), 'utf8');
    assert.match(declarations, /export declare function createGoodsClient\(options: GoodsClientOptions\): GoodsClient/);
    assert.match(declarations, /export type \{ components, paths, operations \}/);
  });

  it('resolves by package name and the compiled client answers typed results over HTTP', async () => {
    const resolved = createRequire(join(PROJECT_ROOT, 'package.json')).resolve(`${pkg.name}/client`);
    assert.equal(resolved, join(PROJECT_ROOT, 'dist', 'client', 'index.js'));
    const compiled = (await import(`${pkg.name}/client`)) as typeof ClientModule;
    const server = await listen((req, res) => sendJson(res, 200, { url: req.url, authorization: req.headers.authorization }));
    try {
      const client = compiled.createGoodsClient({ baseUrl: server.url, token: 'abc' });
      const result = await client.getOrderInfo('WE 2026-0003');
      assert.deepEqual(result, {
        data: { url: '/manualProduction/rest/v1/orders/info/WE%202026-0003', authorization: 'Bearer abc' },
        status: 200,
      });
    } finally {
      await server.close();
    }
  });
});
