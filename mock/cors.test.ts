import assert from 'node:assert/strict';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const ORIGIN = 'http://localhost:5173';

describe('mock CORS', () => {
  describe('default: any origin', () => {
    let server: MockServer;
    before(async () => {
      server = await startMock();
    });
    after(() => server.close());

    it('answers a preflight for every operation with the methods and the headers a frontend sends', async () => {
      for (const [path, method] of [
        [`${ORDER_PATH}ORD-2026-0001`, 'GET'],
        [TRANSFERS_PATH, 'POST'],
        [SAMPLES_PATH, 'POST'],
      ] as const) {
        const response = await fetch(`${server.url}${path}`, {
          method: 'OPTIONS',
          headers: {
            Origin: ORIGIN,
            'Access-Control-Request-Method': method,
            'Access-Control-Request-Headers': 'authorization,content-type',
          },
        });
        assert.equal(response.status, 204, path);
        assert.equal(response.headers.get('access-control-allow-origin'), '*');
        assert.ok(response.headers.get('access-control-allow-methods')?.split(', ').includes(method), path);
        const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(', ');
        for (const header of ['authorization', 'content-type', 'prefer', 'x-mock-session']) assert.ok(allowed.includes(header), header);
      }
    });

    it('sets Access-Control-Allow-Origin on successes and errors, exposing WWW-Authenticate', async () => {
      const ok = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Origin: ORIGIN } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('access-control-allow-origin'), '*');
      const denied = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { Origin: ORIGIN } });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('access-control-allow-origin'), '*');
      assert.match(denied.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      const created = await fetch(`${server.url}${SAMPLES_PATH}`, {
        method: 'POST',
        headers: { ...JSON_AUTH, Origin: ORIGIN },
        body: JSON.stringify({ fk_lot_id: 2001, fk_user_id: 1 }),
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('access-control-allow-origin'), '*');
      const invalid = await fetch(`${server.url}${SAMPLES_PATH}`, { method: 'POST', headers: { ...JSON_AUTH, Origin: ORIGIN }, body: '{' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.headers.get('access-control-allow-origin'), '*');
    });

    it('refuses /__mock to a foreign origin (403, no CORS headers), preflights included; its own origin may use it', async () => {
      for (const [path, method] of [
        ['/__mock/reset', 'POST'],
        ['/__mock/test-samples', 'GET'],
      ] as const) {
        const preflight = await fetch(`${server.url}${path}`, {
          method: 'OPTIONS',
          headers: { Origin: ORIGIN, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'x-mock-reset' },
        });
        assert.equal(preflight.status, 403, path);
        assert.equal(preflight.headers.get('access-control-allow-origin'), null);
        const direct = await fetch(`${server.url}${path}`, { method, headers: { Origin: ORIGIN, 'X-Mock-Reset': '1' } });
        assert.equal(direct.status, 403, path);
        assert.equal(direct.headers.get('access-control-allow-origin'), null);
        assert.equal(((await direct.json()) as { type: string }).type, 'https://goods.example/problems/foreign-origin');
      }
      const own = await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { Origin: server.url, 'X-Mock-Reset': '1' } });
      assert.equal(own.status, 204);
    });

    it('answers a preflight to an unknown path with 404', async () => {
      const response = await fetch(`${server.url}/nope`, {
        method: 'OPTIONS',
        headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET' },
      });
      assert.equal(response.status, 404);
    });
  });

  describe('--cors-origin restricts origins', () => {
    let server: MockServer;
    before(async () => {
      server = await startMock({ corsOrigins: [ORIGIN] });
    });
    after(() => server.close());

    it('echoes an allowed origin with Vary: Origin and gives nothing to another origin', async () => {
      const allowed = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Origin: ORIGIN } });
      assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
      assert.match(allowed.headers.get('vary') ?? '', /Origin/);
      const other = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Origin: 'http://evil.example' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      const preflight = await fetch(`${server.url}${TRANSFERS_PATH}`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    });

    it('lets a listed origin use /__mock, X-Mock-Reset included in the preflight', async () => {
      const preflight = await fetch(`${server.url}/__mock/reset`, {
        method: 'OPTIONS',
        headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-mock-reset' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
      assert.ok((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(', ').includes('x-mock-reset'));
      const reset = await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { Origin: ORIGIN, 'X-Mock-Reset': '1' } });
      assert.equal(reset.status, 204);
      assert.equal(reset.headers.get('access-control-allow-origin'), ORIGIN);
    });
  });
});
