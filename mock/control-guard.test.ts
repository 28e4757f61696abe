/**
 * mock/control-guard.ts: the browser safety of `/__mock`. The policy functions directly; the guard,
 * the reset confirmation and the admin token on a real loopback server (their answers are the
 * problems and headers they set), with requests of exact headers.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type RunningServer } from '../test/support/http.js';
import { checkAdminToken, checkResetConfirmed, controlOriginAllowed, controlPolicy, guardControl, RESET_HEADER } from './control-guard.js';
import { EXPOSED_HEADERS } from './cors.js';
import { ProblemError, PROBLEMS } from './problems.js';
import { sendBody, sendProblem } from './respond.js';
import { rawRequest, type RawAnswer } from './testing.js';

const OWN_HOST = '127.0.0.1:8080';
const LISTED = 'http://app.example:3000';

/** A server whose handler runs `check`, then answers 200 "ok" (or the problem it threw). */
async function serving(check: (req: IncomingMessage, res: ServerResponse) => void): Promise<RunningServer> {
  return listen((req, res) => {
    try {
      check(req, res);
      sendBody(res, 200, 'text/plain', 'ok');
    } catch (error) {
      assert.ok(error instanceof ProblemError);
      sendProblem(res, error);
    }
  });
}

function problemOf(answer: RawAnswer): { type: string; status: number; detail: string } {
  assert.equal(answer.headers['content-type'], 'application/problem+json');
  return JSON.parse(answer.body) as { type: string; status: number; detail: string };
}

describe('mock/control-guard', () => {
  describe('controlPolicy and controlOriginAllowed', () => {
    const policy = controlPolicy(['*', LISTED]);

    it('keeps the listed origins and never "*"', () => {
      assert.deepEqual(policy.origins, [LISTED]);
      assert.deepEqual(controlPolicy(['*']).origins, []);
    });

    it('allows no Origin (same-origin GETs, non-browser clients)', () => {
      assert.equal(controlOriginAllowed(policy, undefined, OWN_HOST), true);
      assert.equal(controlOriginAllowed(policy, undefined, undefined), true);
    });

    it("allows the mock's own origin (http://<Host>, in any case)", () => {
      assert.equal(controlOriginAllowed(policy, `http://${OWN_HOST}`, OWN_HOST), true);
      assert.equal(controlOriginAllowed(policy, 'http://LOCALHOST:8080', 'localhost:8080'), true);
      assert.equal(controlOriginAllowed(policy, 'http://localhost:8080', 'LocalHost:8080'), true);
    });

    it('allows a listed origin exactly; refuses every other one', () => {
      assert.equal(controlOriginAllowed(policy, LISTED, OWN_HOST), true);
      for (const origin of [
        'http://evil.example',
        `https://${OWN_HOST}`,
        'http://127.0.0.1:8081',
        `${LISTED}/`,
        'null',
        '*',
        'http://app.example',
      ])
        assert.equal(controlOriginAllowed(policy, origin, OWN_HOST), false, origin);
      assert.equal(controlOriginAllowed(controlPolicy(['*']), 'http://evil.example', OWN_HOST), false, '"*" does not open the controls');
      assert.equal(controlOriginAllowed(policy, `http://${OWN_HOST}`, undefined), false, 'no Host: no own origin');
    });
  });

  describe('guardControl on a loopback server', () => {
    let server: RunningServer;
    let host = '';
    before(async () => {
      server = await serving((req, res) => guardControl(controlPolicy([LISTED]), req, res, req.headers.host));
      host = new URL(server.url).host;
    });
    after(() => server.close());

    it('refuses a foreign Origin with 403 foreign-origin, Vary: Origin and no CORS headers', async () => {
      const answer = await rawRequest(server.url, { path: '/__mock/records', headers: { Origin: 'http://evil.example' } });
      assert.equal(answer.status, 403);
      const body = problemOf(answer);
      assert.equal(body.type, PROBLEMS.foreignOrigin.type);
      assert.equal(body.status, 403);
      assert.equal(
        body.detail,
        "The page at http://evil.example may not use /__mock; only the mock's own pages and the origins of --cors-origin may.",
      );
      assert.equal(answer.headers['vary'], 'Origin');
      assert.equal(answer.headers['access-control-allow-origin'], undefined);
      assert.equal(answer.headers['access-control-expose-headers'], undefined);
    });

    it('shows at most 100 printable characters of a foreign Origin', async () => {
      const origin = `http://${'a'.repeat(200)}.example`;
      const answer = await rawRequest(server.url, { path: '/__mock', headers: { Origin: origin } });
      assert.equal(answer.status, 403);
      assert.equal(problemOf(answer).detail.split(' may not use')[0], `The page at ${origin.slice(0, 100)}`);
    });

    it('gives a listed origin and its own origin the CORS headers', async () => {
      for (const origin of [LISTED, `http://${host}`]) {
        const answer = await rawRequest(server.url, { path: '/__mock', headers: { Origin: origin } });
        assert.equal(answer.status, 200, origin);
        assert.equal(answer.headers['access-control-allow-origin'], origin);
        assert.equal(answer.headers['vary'], 'Origin');
        assert.equal(answer.headers['access-control-expose-headers'], EXPOSED_HEADERS);
      }
    });

    it('sets no CORS header on a request without Origin', async () => {
      const answer = await rawRequest(server.url, { path: '/__mock' });
      assert.equal(answer.status, 200);
      for (const name of ['access-control-allow-origin', 'vary', 'access-control-expose-headers'])
        assert.equal(answer.headers[name], undefined, name);
    });
  });

  describe('checkResetConfirmed (the reset header)', () => {
    let server: RunningServer;
    before(async () => {
      server = await serving((req) => checkResetConfirmed(req));
    });
    after(() => server.close());

    it('is the lower-case X-Mock-Reset', () => {
      assert.equal(RESET_HEADER, 'x-mock-reset');
    });

    it('refuses a reset without the header, or with an empty one, with 403 reset-not-confirmed', async () => {
      for (const headers of [{}, { 'X-Mock-Reset': '' }, { 'X-Mock-Reset': '   ' }]) {
        const answer = await rawRequest(server.url, { method: 'POST', path: '/__mock/reset', headers });
        assert.equal(answer.status, 403, JSON.stringify(headers));
        const body = problemOf(answer);
        assert.equal(body.type, PROBLEMS.resetNotConfirmed.type);
        assert.match(body.detail, /needs the header "X-Mock-Reset: 1"/);
      }
    });

    it('lets a reset with any non-empty value through', async () => {
      for (const value of ['1', 'yes']) {
        const answer = await rawRequest(server.url, { method: 'POST', path: '/__mock/reset', headers: { 'X-Mock-Reset': value } });
        assert.equal(answer.status, 200, value);
      }
    });
  });

  describe('checkAdminToken', () => {
    let server: RunningServer;
    let token: string | undefined;
    before(async () => {
      server = await serving((req) => checkAdminToken(req, token, 'POST /__mock/reset'));
    });
    after(() => server.close());

    it('lets everything through when no admin token is set', async () => {
      token = undefined;
      assert.equal((await rawRequest(server.url, { method: 'POST', path: '/__mock/reset' })).status, 200);
    });

    it('refuses a missing or wrong token with 401 and WWW-Authenticate; accepts the exact one', async () => {
      token = 's3cret';
      for (const headers of [{}, { Authorization: 'Bearer wrong' }, { Authorization: 'bearer s3cret' }, { Authorization: 's3cret' }]) {
        const answer = await rawRequest(server.url, { method: 'POST', path: '/__mock/reset', headers });
        assert.equal(answer.status, 401, JSON.stringify(headers));
        assert.equal(answer.headers['www-authenticate'], 'Bearer realm="goods-mock-admin"');
        const body = problemOf(answer);
        assert.equal(body.type, PROBLEMS.unauthorized.type);
        assert.equal(body.detail, 'POST /__mock/reset needs "Authorization: Bearer <admin token>" (the --admin-token of this mock).');
      }
      const ok = await rawRequest(server.url, { method: 'POST', path: '/__mock/reset', headers: { Authorization: 'Bearer s3cret' } });
      assert.equal(ok.status, 200);
    });
  });
});
