/**
 * The time model: --timeout bounds each request and is never shortened (there is no whole-run
 * budget); a server that never answers costs one time-out per operation, the rest is not run;
 * --deadline cuts checks off as not run, never as failed.
 */
import assert from 'node:assert/strict';
import { listen, type Loopback } from '../support/loopback.js';
import { CHECKS } from './checks/index.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

/** A server that accepts connections and never answers. */
function silentServer(): Promise<Loopback> {
  return listen(() => undefined);
}

describe('conformance time model', function () {
  this.timeout(120_000);

  it('a correct server answering every request in 1 s passes (each request gets the whole --timeout)', async () => {
    const server = await startReferenceServer([], { delayMs: 1000 });
    try {
      // A subset of the checks keeps the test short (every request takes 1 s, the run well over --timeout in all);
      // nothing in the run shortens --timeout.
      const ids = [
        'getOrderInfo.valid-request-2xx',
        'getOrderInfo.exact-order',
        'createLotTransfer.valid-request-2xx',
        'createLotTransfer.echo',
      ];
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', seed: 4, timeoutMs: 3000 });
      assert.equal(config.deadlineMs, undefined, 'no whole-run bound unless --deadline is given');
      const { exitCode, verdict } = await runConformance(config, {
        write: () => undefined,
        checks: CHECKS.filter((c) => ids.includes(c.id)),
      });
      assert.deepEqual(
        verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`),
        [],
      );
      assert.equal(exitCode, 0);
      assert.ok(verdict.counts.cases >= 8, `${verdict.counts.cases} cases sent, each answered after 1 s`);
    } finally {
      await server.close();
    }
  });

  it('a server that never answers costs one time-out per operation; every other check is not run, blocked by it', async () => {
    const server = await silentServer();
    try {
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', timeoutMs: 300 });
      const { exitCode, verdict, requests } = await runConformance(config, { write: () => undefined });
      assert.equal(exitCode, 1);
      const failed = verdict.checks.filter((c) => c.status === 'failed');
      assert.deepEqual(failed.map((c) => c.operation).sort(), ['createLotTransfer', 'createTestSample', 'getOrderInfo']);
      for (const check of failed) assert.match(check.message ?? '', /timed out/, check.id);
      assert.equal(requests.length, 3, 'three requests sent: one per operation, each timed out');
      // Each was sent again once with the limit doubled before it counted, and the report says so.
      assert.deepEqual(verdict.traffic && [verdict.traffic.timeoutRetries, verdict.traffic.answeredOnRetry], [3, 0]);
      for (const check of failed)
        assert.match(check.message ?? '', /no answer within 300 ms, nor within 600 ms when sent again \(timed out twice/, check.id);
      const rest = verdict.checks.filter((c) => c.status !== 'failed');
      assert.ok(rest.length > 50);
      for (const check of rest) {
        assert.equal(check.status, 'not-run', check.id);
        assert.ok(check.blockedBy !== undefined && check.blockedBy.length > 0, `${check.id} names what blocked it`);
      }
    } finally {
      await server.close();
    }
  });

  it('a correct server slow for a moment (its first answers past --timeout): each request that timed out is sent again with the limit doubled and passes; the report says so', async () => {
    // The limit leaves an ordinary answer room on a busy machine (a 1 MiB create can take over a second
    // there); the first answers come after it, and before the doubled limit of the retry.
    const server = await startReferenceServer([], { slowStart: { answers: 3, delayMs: 3000 } });
    try {
      let text = '';
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', seed: 4, timeoutMs: 2000 });
      const { exitCode, verdict } = await runConformance(config, { write: (t) => void (text += t) });
      assert.deepEqual(
        verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}: ${c.message ?? ''}`),
        [],
      );
      assert.equal(exitCode, 0);
      const retried = verdict.traffic?.timeoutRetries ?? 0;
      assert.ok(retried >= 1 && retried <= 3, `${retried} request(s) retried`);
      assert.equal(verdict.traffic?.answeredOnRetry, retried);
      assert.match(
        text,
        new RegExp(
          `\\ntime-outs: ${retried} request\\(s\\) timed out and were sent again once with the limit doubled: ${retried} answered on the retry`,
        ),
      );
    } finally {
      await server.close();
    }
  });

  it('--deadline: the checks it cuts off are not run (reason deadline), never failed; exit 3', async () => {
    const server = await startReferenceServer([], { delayMs: 150 });
    try {
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', deadlineMs: 1000 });
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.deepEqual(
        verdict.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message ?? ''}`),
        [],
      );
      const cut = verdict.checks.filter((c) => c.status === 'not-run');
      assert.ok(cut.length > 0);
      assert.ok(cut.some((c) => c.reason === 'deadline'));
      assert.equal(exitCode, 3);
      assert.equal(verdict.outcome, 'incomplete');
      assert.ok(verdict.unchecked.some((r) => r.reason === 'deadline'));
    } finally {
      await server.close();
    }
  });
});
