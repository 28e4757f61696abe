import assert from 'node:assert/strict';
import type { OperationSecurity, SecurityScheme } from '../contract/security.js';
import { authPolicy, checkBearer, checkSecurity } from './auth.js';
import { ProblemError } from './problems.js';
import type { MockServer } from './server.js';
import { ORDER_PATH, rawRequest, SAMPLES_PATH, startMock } from './testing.js';

const ORDER = `${ORDER_PATH}ORD-2026-0001`;

async function statusWith(
  server: MockServer,
  authorization: string | undefined,
): Promise<{ status: number; challenge: string | undefined; type: string }> {
  const answer = await rawRequest(server.url, {
    path: ORDER,
    headers: authorization === undefined ? {} : { Authorization: authorization },
  });
  const challenge = answer.headers['www-authenticate'];
  const type = answer.status === 200 ? '' : String((JSON.parse(answer.body) as { type: string }).type);
  return { status: answer.status, challenge: Array.isArray(challenge) ? challenge.join() : challenge, type };
}

describe('mock auth: bearer tokens (RFC 6750)', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  it('accepts any well-formed b64token, scheme case-insensitive', async () => {
    for (const header of ['Bearer abc', 'bearer abc.DEF-ghi_~+/==', 'BEARER   x', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln']) {
      assert.equal((await statusWith(server, header)).status, 200, header);
    }
  });

  it('answers 401 with a Bearer challenge and no error code for a missing header or another scheme', async () => {
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearer']) {
      const answer = await statusWith(server, header);
      assert.equal(answer.status, 401, String(header));
      assert.equal(answer.type, 'https://goods.example/problems/unauthorized');
      assert.match(answer.challenge ?? '', /^Bearer realm="goods-mock"/);
    }
    assert.equal((await statusWith(server, undefined)).challenge, 'Bearer realm="goods-mock"');
  });

  it('answers 401 error="invalid_token" for a malformed token and for the default rejected token "invalid"', async () => {
    for (const header of ['Bearer a b', 'Bearer ab=c', 'Bearer ä', 'Bearer invalid', 'Bearer "quoted"']) {
      const answer = await statusWith(server, header);
      assert.equal(answer.status, 401, header);
      assert.equal(answer.challenge, 'Bearer realm="goods-mock", error="invalid_token"', header);
    }
  });

  it('checks auth before the body: a create without a token is 401 even with a broken body', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      path: SAMPLES_PATH,
      headers: { 'Content-Type': 'text/plain' },
      body: 'nope',
    });
    assert.equal(answer.status, 401);
  });
});

describe('mock auth: --token and --reject-token', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock({ tokens: ['alpha', 'beta'], rejectTokens: ['beta'] });
  });
  after(() => server.close());

  it('accepts only the listed tokens, and a rejected token wins over an accepted one', async () => {
    assert.equal((await statusWith(server, 'Bearer alpha')).status, 200);
    const other = await statusWith(server, 'Bearer gamma');
    assert.equal(other.status, 401);
    assert.match(other.challenge ?? '', /error="invalid_token"/);
    assert.equal((await statusWith(server, 'Bearer beta')).status, 401);
    assert.equal((await statusWith(server, 'Bearer invalid')).status, 401);
  });
});

describe('checkBearer: the cache of accepted headers', () => {
  it('answers a cached header with its token, and never caches a refused one', () => {
    const policy = authPolicy(['good'], ['bad']);
    assert.equal(checkBearer('Bearer good', policy), 'good');
    assert.equal(checkBearer('Bearer good', policy), 'good');
    assert.deepEqual([...policy.accepted], [['Bearer good', 'good']]);
    for (const header of ['Bearer bad', 'Bearer other', 'Basic good', 'Bearer  good!']) {
      for (let i = 0; i < 2; i++) assert.throws(() => checkBearer(header, policy), ProblemError, header);
    }
    assert.equal(policy.accepted.size, 1);
  });

  it('keeps at most 64 headers, and still checks every header past that', () => {
    const policy = authPolicy([], []);
    for (let i = 0; i < 100; i++) assert.equal(checkBearer(`Bearer t${i}`, policy), `t${i}`);
    assert.equal(policy.accepted.size, 64);
    assert.equal(checkBearer('Bearer t99', policy), 't99');
    assert.throws(() => checkBearer('Bearer t99 x', policy), ProblemError);
  });
});

describe('checkSecurity: Basic credentials (RFC 7617) against --token', () => {
  const basic: SecurityScheme = { name: 'basicAuth', type: 'http', carrier: { kind: 'authorization', scheme: 'basic' }, pointer: '/x' };
  const security: OperationSecurity = { alternatives: [[basic]], secured: true };
  const sent = (credentials: string) => ({ headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } });
  const policy = authPolicy(['librarian-token', 'ann:pw'], ['invalid']);

  it('accepts a --token as the whole user:password, or as the password of any user', () => {
    for (const credentials of ['ann:pw', 'reader:librarian-token', 'anyone:librarian-token'])
      assert.doesNotThrow(() => checkSecurity(security, sent(credentials), '', policy), credentials);
  });

  it('refuses another password, a token as the user name, and a rejected password (401)', () => {
    for (const credentials of ['ann:other', 'librarian-token:x', 'reader:invalid', 'librarian-token'])
      assert.throws(
        () => checkSecurity(security, sent(credentials), '', policy),
        (error: unknown) => error instanceof ProblemError && error.kind.status === 401,
        credentials,
      );
  });
});
