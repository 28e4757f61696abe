/**
 * The dashboard's file serving over real HTTP: the page, the allow-listed assets (its own and Swagger
 * UI's from swagger-ui-dist), the contract, and nothing else (no path reaches the file system).
 * The page in a real browser is tested in `test/browser/dashboard.test.ts`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { readContract } from '../contract/document.js';
import { DASHBOARD_DIR, SWAGGER_UI_DIR, serveDashboard } from './dashboard.js';
import { listen, type RunningServer } from '../test/support/http.js';

describe('dashboard files (mock/dashboard.ts)', () => {
  let server: RunningServer;
  before(async () => {
    server = await listen((req, res) => {
      if (!serveDashboard(req, res)) {
        res.writeHead(418, { 'content-type': 'text/plain' });
        res.end('not the dashboard');
      }
    });
  });
  after(() => server.close());

  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
  /** A GET with the path exactly as written (fetch would normalise `..`). */
  const rawGet = (path: string) =>
    new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = request(`${server.url}/`, { path }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  it('serves the page at /__mock/ and /__mock with a same-origin-only content security policy', async () => {
    for (const path of ['/__mock/', '/__mock', '/__mock/?session=alice']) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'.*script-src 'self'/);
      assert.equal(await response.text(), readFileSync(join(DASHBOARD_DIR, 'index.html'), 'utf8'));
    }
  });

  it('the page loads only files the dashboard serves (no CDN, no other host)', async () => {
    const html = await (await get('/__mock/')).text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    assert.ok(references.length >= 4, `expected the page's scripts and styles, found ${references.join(', ')}`);
    for (const reference of references) {
      assert.match(reference, /^\/__mock\/assets\//, `${reference} is not a dashboard asset`);
      assert.equal((await get(reference)).status, 200, reference);
    }
  });

  it("serves Swagger UI's files from swagger-ui-dist and its own scripts, with their types", async () => {
    const cases: [string, string, string][] = [
      ['/__mock/assets/swagger-ui-bundle.js', join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), 'text/javascript; charset=utf-8'],
      ['/__mock/assets/swagger-ui.css', join(SWAGGER_UI_DIR, 'swagger-ui.css'), 'text/css; charset=utf-8'],
      ['/__mock/assets/app.js', join(DASHBOARD_DIR, 'app.js'), 'text/javascript; charset=utf-8'],
      ['/__mock/assets/dashboard.css', join(DASHBOARD_DIR, 'dashboard.css'), 'text/css; charset=utf-8'],
    ];
    for (const [path, file, type] of cases) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), type, path);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file)), `${path} is ${file}`);
    }
    assert.match(SWAGGER_UI_DIR, /node_modules[\\/]swagger-ui-dist$/);
  });

  it('serves the contract as JSON at /__mock/openapi.json', async () => {
    const response = await get('/__mock/openapi.json');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), readContract());
  });

  it('answers 404 problem+json for any asset outside the allow-list, traversal attempts included', async () => {
    const attempts = [
      '/__mock/assets/index.html',
      '/__mock/assets/../../package.json',
      '/__mock/assets/..%2F..%2Fpackage.json',
      '/__mock/assets/%2e%2e/%2e%2e/package.json',
      '/__mock/assets/swagger-ui-bundle.js.map',
      '/__mock/assets/',
      '/__mock/assets/app.js/',
    ];
    for (const path of attempts) {
      const response = await rawGet(path);
      assert.equal(response.status, 404, path);
      assert.equal(response.type, 'application/problem+json', path);
      const body = JSON.parse(response.body) as { status: number; detail: string };
      assert.equal(body.status, 404);
      assert.match(body.detail, /it serves: app\.js, dashboard\.css, swagger-ui\.css, swagger-ui-bundle\.js/);
    }
  });

  it('answers GET and HEAD only (405 with Allow otherwise)', async () => {
    const head = await get('/__mock/assets/app.js', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('content-length')), readFileSync(join(DASHBOARD_DIR, 'app.js')).length);
    const post = await get('/__mock/', { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  it('leaves every other path to the mock (returns false)', async () => {
    for (const path of ['/__mock/health', '/__mock/reset', '/__mock/orders', '/', '/__mockx/', '/manualProduction/rest/v1/orders/info/x']) {
      const response = await get(path);
      assert.equal(response.status, 418, path);
    }
  });
});

describe('dashboard failures (mock/dashboard.ts)', () => {
  it('answers a 500 problem without file path or OS error text, and logs the reason', async () => {
    const lines: string[] = [];
    const missing = join(DASHBOARD_DIR, 'no-such-contract-4711.json');
    const server = await listen((req, res) => {
      if (!serveDashboard(req, res, { contractPath: missing, log: (line) => lines.push(line) })) res.writeHead(418).end();
    });
    try {
      const answer = await fetch(`${server.url}/__mock/openapi.json`);
      assert.equal(answer.status, 500);
      assert.match(answer.headers.get('content-type') ?? '', /problem\+json/);
      const body = await answer.text();
      assert.doesNotMatch(body, /no-such-contract|ENOENT|no such file/);
      assert.ok(!body.includes(DASHBOARD_DIR), body);
      assert.match(body, /internal-error/);
      assert.equal(lines.length, 1);
      assert.match(lines[0] ?? '', /no-such-contract-4711\.json/);
    } finally {
      await server.close();
    }
  });
});
