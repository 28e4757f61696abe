/**
 * Verdicts independent of rate limits: a gateway answering 429 problem+json with `Retry-After: 1`
 * past a number of requests a second (40 at --concurrency 8, 20 at 1: far below what a run sends, so it
 * refuses many), in front of a correct server, is passed at both levels (exit 0), at the default
 * concurrency and at --concurrency 1: the run slows down, waits as asked, and says how often.
 * Past --deadline it stops waiting (not run, never failed).
 */
import assert from 'node:assert/strict';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer, type ReferenceServer } from './self-test/reference-server.js';
import { startRateLimitGateway } from './testing/rate-limit-gateway.js';

describe('rate limits: Retry-After is honoured, never counted against the server', function () {
  this.timeout(180_000);
  let upstream: ReferenceServer;
  before(async () => {
    upstream = await startReferenceServer();
  });
  after(() => upstream.close());

  const runs = [
    { level: 'spec', concurrency: 8, limit: 40 },
    { level: 'strict', concurrency: 8, limit: 40 },
    { level: 'strict', concurrency: 1, limit: 20 },
  ] as const;
  for (const { level, concurrency, limit } of runs) {
    it(`a gateway answering 429 + Retry-After: 1 past ${limit} requests a second is passed at ${level} with --concurrency ${concurrency} (exit 0), the waits counted`, async () => {
      const gateway = await startRateLimitGateway(upstream.url, { limit });
      try {
        let text = '';
        const config = resolveConformanceConfig({ baseUrl: gateway.url, token: REFERENCE_TOKEN, level, concurrency, seed: 9 });
        const { exitCode, verdict } = await runConformance(config, { write: (t) => void (text += t) });
        assert.deepEqual(
          verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`),
          [],
        );
        assert.equal(exitCode, 0, text);
        assert.ok(gateway.refused > 0, 'the gateway did refuse requests');
        assert.equal(verdict.traffic?.waits, gateway.refused, 'every 429 was waited out');
        assert.ok((verdict.traffic?.pausedMs ?? 0) >= 1000);
        assert.match(
          text,
          new RegExp(
            `\\nrate limit: the server asked the run to wait ${gateway.refused} time\\(s\\) \\(429, or 503 with Retry-After\\); the run paused \\d+\\.\\d s in all`,
          ),
        );
        // The whole-run checks judged the answers, not the 429s: none is in the run's history.
        assert.equal(verdict.requests, gateway.forwarded, 'every request counted was answered by the server itself');
      } finally {
        await gateway.close();
      }
    });
  }

  it('503 with Retry-After is waited out too', async () => {
    const gateway = await startRateLimitGateway(upstream.url, { status: 503, limit: 40 });
    try {
      const config = resolveConformanceConfig({ baseUrl: gateway.url, token: REFERENCE_TOKEN, level: 'spec', seed: 9 });
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.equal(exitCode, 0);
      assert.ok((verdict.traffic?.waits ?? 0) > 0);
    } finally {
      await gateway.close();
    }
  });

  it('a wait past --deadline is not made: the requests are not run (exit 3), never failed', async () => {
    const gateway = await startRateLimitGateway(upstream.url, { retryAfter: 30 });
    try {
      const config = resolveConformanceConfig({ baseUrl: gateway.url, token: REFERENCE_TOKEN, level: 'spec', seed: 9, deadlineMs: 5000 });
      const started = Date.now();
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.ok(Date.now() - started < 15_000, 'the run did not wait 30 s');
      assert.deepEqual(
        verdict.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message ?? ''}`),
        [],
      );
      assert.equal(exitCode, 3);
      assert.ok(verdict.unchecked.some((r) => r.reason === 'deadline'));
    } finally {
      await gateway.close();
    }
  });
});
