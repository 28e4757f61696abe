/**
 * A server that accepts any token (the --rejected-token refused, every token made from --token
 * accepted): the failure says so, and for goods-mock, which names itself in its Bearer realm, how to
 * start it with --token. The mock started with --token passes strict (the README's quick start).
 */
import assert from 'node:assert/strict';
import { createMockServer } from '../../mock/index.js';
import { resolveConformanceConfig } from '../config.js';
import type { Exchange } from '../http.js';
import { runConformance } from '../run.js';
import { anyTokenNote, isGoodsMock } from '../../checks/auth.js';

function answered(status: number, challenge?: string): Exchange {
  return {
    request: { operation: 'getOrderInfo', method: 'GET', path: '/x', headers: {} },
    answer: { status, headers: challenge === undefined ? {} : { 'www-authenticate': challenge }, text: '{}', bytes: 2 },
    timedOut: false,
  };
}

describe('auth checks: a server that accepts any token', function () {
  this.timeout(20_000);

  it('the note needs the --rejected-token refused and every token made from --token accepted; goods-mock is named by its realm', () => {
    const ok = answered(200);
    const other = answered(401, 'Bearer realm="api", error="invalid_token"');
    const mock = answered(401, 'Bearer realm="goods-mock", error="invalid_token"');
    assert.match(anyTokenNote(other, [ok, ok, ok]) ?? '', /^the server accepts any token: the --rejected-token was refused \(401\)/);
    assert.doesNotMatch(anyTokenNote(other, [ok, ok, ok]) ?? '', /goods-mock/);
    assert.match(anyTokenNote(mock, [ok, ok]) ?? '', /this is goods-mock .* start it with `npm start -- --token TOKEN`/);
    // A server taking tokens that start with the real one accepts the suffix only: not "any token".
    assert.equal(anyTokenNote(other, [ok, answered(401), answered(401)]), undefined);
    assert.equal(anyTokenNote(ok, [ok, ok]), undefined, 'the --rejected-token accepted too: the plain failure says enough');
    assert.equal(anyTokenNote(undefined, [ok]), undefined);
    assert.equal(anyTokenNote(other, []), undefined);
    assert.ok(isGoodsMock(answered(401, 'Basic realm="x", Bearer realm="goods-mock"')));
    assert.ok(!isGoodsMock(answered(401, 'Bearer realm="goods-mock-2"')));
    assert.ok(!isGoodsMock(answered(401)));
  });

  it('against goods-mock started without --token (npm start): the 6 rejected-token checks fail, each saying so and how to start it; exit 1', async () => {
    const mock = await createMockServer({ host: '127.0.0.1', port: 0, quiet: true });
    try {
      let text = '';
      const { exitCode, verdict } = await runConformance(
        resolveConformanceConfig({ baseUrl: mock.url.replace(/\/+$/, ''), token: 'dev-token', level: 'strict' }),
        { write: (t) => void (text += t) },
      );
      assert.equal(exitCode, 1, text);
      assert.equal(verdict.outcome, 'failed');
      const failed = verdict.checks.filter((c) => c.status === 'failed');
      assert.deepEqual(
        failed.map((c) => c.id).sort(),
        ['createLotTransfer', 'createTestSample', 'getOrderInfo']
          .flatMap((op) => [`${op}.auth-rejected-401`, `${op}.auth-rejected-no-2xx`])
          .sort(),
      );
      for (const check of failed) {
        assert.match(check.message ?? '', /the server accepts any token: the --rejected-token was refused \(401\)/, check.id);
        assert.match(check.message ?? '', /this is goods-mock \(WWW-Authenticate realm="goods-mock"\)/, check.id);
        assert.match(check.message ?? '', /start it with `npm start -- --token TOKEN`/, check.id);
        // Said once per check, on the first token made from --token.
        assert.equal(check.failures?.filter((f) => f.actual.includes('accepts any token')).length, 1, check.id);
      }
      assert.ok(verdict.hints.some((h) => h.startsWith('the server accepts any token') && h.includes('--token')));
      assert.match(text, /hint: the server accepts any token/);
    } finally {
      await mock.close();
    }
  });

  it('against goods-mock started with --token (npm start -- --token dev-token): strict passes, exit 0', async () => {
    const mock = await createMockServer({ host: '127.0.0.1', port: 0, quiet: true, tokens: ['dev-token'] });
    try {
      const { exitCode, verdict } = await runConformance(
        resolveConformanceConfig({ baseUrl: mock.url.replace(/\/+$/, ''), token: 'dev-token', level: 'strict' }),
        { write: () => undefined },
      );
      assert.equal(
        exitCode,
        0,
        verdict.checks
          .filter((c) => c.status !== 'passed')
          .map((c) => `${c.id} ${c.message ?? ''}`)
          .join('\n'),
      );
      assert.deepEqual(verdict.hints, []);
    } finally {
      await mock.close();
    }
  });
});
