import assert from 'node:assert/strict';
import { showRequest } from './expect.js';
import type { Exchange } from './http.js';

function exchange(headers: Record<string, string>, body?: string): Exchange {
  return {
    request: { operation: 'server', method: 'POST', path: '/x', headers, ...(body !== undefined ? { body: Buffer.from(body) } : {}) },
    timedOut: false,
  };
}

describe('conformance report redaction', () => {
  it('never shows the credential of an Authorization header, whatever its scheme or length', () => {
    for (const [value, shown] of [
      ['Bearer t', 'Bearer <redacted>'],
      ['Basic dXNlcjpwYXNz', 'Basic <redacted>'],
      ['Bearer  two  spaces', 'Bearer <redacted>'],
      ['justatoken', '<redacted>'],
    ] as const) {
      assert.equal(showRequest(exchange({ authorization: value }), ['t']).headers['authorization'], shown);
    }
  });

  it('hides a long secret anywhere, and leaves other text readable when the token is short', () => {
    const long = showRequest(exchange({ 'x-echo': 'a-secret-token!' }, '{"note":"a-secret-token"}'), ['a-secret-token']);
    assert.equal(long.headers['x-echo'], '<redacted>!');
    assert.equal(long.body, '{"note":"<redacted>"}');
    const short = showRequest(exchange({ 'content-type': 'application/json' }), ['t']);
    assert.equal(short.headers['content-type'], 'application/json');
  });
});
