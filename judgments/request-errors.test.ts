/** Judgments of requests a server must refuse: here, a near miss of an operation's path. */
import assert from 'node:assert/strict';
import type { JudgedExchange } from './exchange.js';
import { judgeNotServedAt } from './request-errors.js';
import { PROFILE } from './rules.js';

const SERVED = '/api/v1/items/create';
const VARIANT = '/api/v1/items/create/';

function answered(status: number, headers: Record<string, string> = {}): JudgedExchange {
  return { request: { method: 'POST', path: VARIANT, headers: {} }, answer: { status, headers, text: '' } };
}

const reasons = (exchange: JudgedExchange): string[] => judgeNotServedAt(exchange, PROFILE.pathVariants, SERVED).map((v) => v.reason);

describe('judgeNotServedAt: a near miss of a path is an unknown path', () => {
  it('404 passes, and so does 405 (the server may have operations of its own at that path)', () => {
    assert.deepEqual(reasons(answered(404)), []);
    assert.deepEqual(reasons(answered(405, { allow: 'GET' })), []);
  });

  it('a redirect fails, and says when it leads to the operation itself (absolute or relative Location)', () => {
    assert.deepEqual(reasons(answered(307, { location: SERVED })), [`redirected (307) to "${SERVED}", the operation’s own path`]);
    assert.deepEqual(reasons(answered(308, { location: `http://staging.example${SERVED}?a=1` })), [
      `redirected (308) to "http://staging.example${SERVED}?a=1", the operation’s own path`,
    ]);
    assert.deepEqual(reasons(answered(301, { location: '/elsewhere' })), ['redirected (301) to "/elsewhere"']);
    assert.deepEqual(reasons(answered(302)), ['redirected (302) to (no Location)']);
  });

  it("the operation's answer fails (served as the operation), so does any other status or no answer", () => {
    assert.deepEqual(reasons(answered(201)), [`answered 201: served as the operation at ${SERVED}`]);
    assert.deepEqual(reasons(answered(400)), ['the answer has status 400']);
    const [violation] = judgeNotServedAt(
      { request: { method: 'POST', path: VARIANT, headers: {} }, error: 'socket hang up' },
      PROFILE.pathVariants,
      SERVED,
    );
    assert.equal(violation?.reason, 'socket hang up');
    assert.equal(violation?.expected, `404 (or 405) for a path that is not ${SERVED}`);
  });

  it('names the request path as what is at fault', () => {
    assert.equal(judgeNotServedAt(answered(200), PROFILE.pathVariants, SERVED)[0]?.in, 'path');
  });
});
