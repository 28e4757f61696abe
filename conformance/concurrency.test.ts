/**
 * --concurrency: never more than N requests in flight, and N used (a counting server in front of the
 * reference server; the speed-up that buys against a slow server is the bench's to measure), --timeout
 * untouched by waiting for a slot, one time-out per operation still, and the same verdicts at 1, 4
 * and 16 for the reference server, faults of the fault table that touch shared exchanges, and a
 * tight write budget. Also: the share of requests that ask for compressed answers.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Level } from '../contract/levels.js';
import { listenOn } from '../support/loopback.js';
import { CHECKS } from './checks/index.js';
import type { Check } from './checks/types.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from './config.js';
import { runConformance, type RunResult } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer, type ReferenceServer } from './self-test/reference-server.js';

interface Seen {
  method: string;
  path: string;
  acceptEncoding: string | undefined;
  contentEncoding: string | undefined;
}

/** A proxy in front of `upstream` that counts the requests in flight (received, not yet answered) and keeps what it saw. */
async function countingProxy(upstream: string): Promise<{ url: string; max(): number; seen: Seen[]; close(): Promise<void> }> {
  const target = new URL(upstream);
  let inFlight = 0;
  let max = 0;
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          seen.push({
            method: req.method ?? '',
            path: req.url ?? '',
            acceptEncoding: req.headers['accept-encoding'],
            contentEncoding: answer.headers['content-encoding'],
          });
          inFlight--; // answered: counted out before the client can send its next request
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  const { url, close } = await listenOn(server);
  return { url, max: () => max, seen, close };
}

function run(url: string, config: ConformanceConfigInput, checks?: readonly Check[]): Promise<RunResult> {
  return runConformance(
    resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, seed: 11, outputDir: 'reports/test', ...config }),
    { write: () => undefined, ...(checks ? { checks } : {}) },
  );
}

const verdictOf = (result: RunResult): string[] => result.verdict.checks.map((c) => `${c.id}=${c.status}`);
/** The order-info checks: about two dozen GETs, a quick run. */
const ORDER_CHECKS = CHECKS.filter((c) => c.operations[0] === 'getOrderInfo');

async function withServer<T>(server: Promise<ReferenceServer>, use: (server: ReferenceServer) => Promise<T>): Promise<T> {
  const started = await server;
  try {
    return await use(started);
  } finally {
    await started.close();
  }
}

describe('--concurrency', function () {
  // Whole suite runs, several at once: bounded generously (a loaded machine), never a timing assertion;
  // the speed-up --concurrency buys against a slow server is measured by `npm run bench` (targets.ts).
  this.timeout(180_000);

  it('never more than N requests in flight (a test server counts), and N are used; 1 sends one at a time', async () => {
    await withServer(startReferenceServer([], { delayMs: 30 }), async (reference) => {
      for (const concurrency of [4, 1]) {
        const proxy = await countingProxy(reference.url);
        try {
          const result = await run(proxy.url, { level: 'strict', concurrency }, concurrency === 1 ? ORDER_CHECKS : undefined);
          assert.equal(result.verdict.outcome, 'passed', verdictOf(result).join(' '));
          assert.ok(proxy.max() <= concurrency, `${proxy.max()} in flight at --concurrency ${concurrency}`);
          assert.ok(proxy.max() >= Math.min(concurrency, 3), `only ${proxy.max()} in flight at --concurrency ${concurrency}`);
        } finally {
          await proxy.close();
        }
      }
    });
  });

  it('--timeout counts from when a request goes out, never while it waits for a slot', async () => {
    await withServer(startReferenceServer([], { delayMs: 100 }), async (reference) => {
      // Two at a time, ~24 requests of 100 ms: over a second of waiting in all, each request well within 250 ms.
      const result = await run(reference.url, { level: 'strict', concurrency: 2, timeoutMs: 250 }, ORDER_CHECKS);
      assert.deepEqual(
        result.verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message ?? ''}`),
        [],
      );
    });
  });

  it('a server that stops answering an operation still costs one time-out (one failed check) per operation at --concurrency 8', async () => {
    await withServer(startReferenceServer(['hang-creates']), async (reference) => {
      const result = await run(reference.url, { level: 'strict', concurrency: 8, timeoutMs: 300 });
      const failed = result.verdict.checks.filter((c) => c.status === 'failed');
      assert.deepEqual(failed.map((c) => c.operation).sort(), ['createLotTransfer', 'createTestSample'], verdictOf(result).join(' '));
      for (const check of failed) assert.match(check.message ?? '', /timed out/, check.id);
      const blocked = result.verdict.checks.filter((c) => c.operation.startsWith('create') && c.status !== 'failed');
      assert.ok(blocked.length > 20);
      for (const check of blocked) assert.equal(check.status, 'not-run', `${check.id}: ${check.message ?? ''}`);
    });
  });

  describe('the same verdicts at --concurrency 1, 4 and 16', () => {
    // Faults of the table touching shared (memoized) exchanges and the whole-run checks, each at its check's level.
    const cases: { name: string; faults: string[]; level: Level; maxWrites?: number }[] = [
      { name: 'the reference server', faults: [], level: 'strict' },
      { name: 'ids-unique (constant-id)', faults: ['constant-id:createLotTransfer'], level: 'strict' },
      { name: 'sample-number-unique (constant-sequence)', faults: ['constant-sequence'], level: 'strict' },
      { name: 'echo (first-lot-only)', faults: ['first-lot-only:createTestSample'], level: 'spec' },
      { name: 'problem-details (problem-no-type)', faults: ['problem-no-type'], level: 'strict' },
      { name: 'no-5xx (null-body-500)', faults: ['null-body-500:createLotTransfer'], level: 'strict' },
      { name: 'content-coding (coding-not-listed)', faults: ['coding-not-listed'], level: 'spec' },
      // 41 writes: every spec case, and only some of the planned extra creates (the rest not run, write budget).
      { name: 'a tight --max-writes 41', faults: [], level: 'strict', maxWrites: 41 },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        await withServer(startReferenceServer(c.faults), async (reference) => {
          const [first, ...others] = await Promise.all(
            [1, 4, 16].map(async (concurrency) =>
              verdictOf(await run(reference.url, { level: c.level, concurrency, ...(c.maxWrites ? { maxWrites: c.maxWrites } : {}) })),
            ),
          );
          assert.ok(first);
          if (c.faults.length > 0) assert.ok(first.some((v) => v.endsWith('=failed')));
          if (c.maxWrites) assert.ok(first.some((v) => v.endsWith('=not-run')));
          for (const other of others) assert.deepEqual(other, first);
        });
      });
    }
  });

  it('a share of requests asks for compressed answers (never the lot discovery); they are decoded and the run passes', async () => {
    await withServer(startReferenceServer(), async (reference) => {
      const proxy = await countingProxy(reference.url);
      try {
        const result = await run(proxy.url, { level: 'strict' });
        assert.equal(result.verdict.outcome, 'passed');
        const [discovery] = proxy.seen.filter((s) => s.method === 'GET');
        assert.equal(discovery?.acceptEncoding, undefined, 'the lot-discovery GET asks for no coding');
        const asked = proxy.seen.filter((s) => s.acceptEncoding === 'gzip, deflate, br');
        assert.ok(asked.some((s) => s.method === 'GET') && asked.some((s) => s.method === 'POST'));
        assert.ok(asked.length >= proxy.seen.length / 10, `${asked.length} of ${proxy.seen.length}`);
        assert.ok(
          asked.every((s) => s.contentEncoding === 'gzip'),
          'the reference server compressed every answer asked for',
        );
        for (const coding of ['gzip', 'deflate', 'br'])
          assert.ok(proxy.seen.some((s) => s.acceptEncoding === coding && s.contentEncoding === coding));
      } finally {
        await proxy.close();
      }
    });
  });
});
