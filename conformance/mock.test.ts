/** The suite against the mock (in-process): strict passes; the reports are written; a seed repeats a run. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figure } from '../support/figures.js';
import { resolveConformanceConfig } from './config.js';
import type { Verdict } from '../report/results.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

describe('conformance run against the in-process mock', () => {
  let output: string;
  before(() => {
    output = mkdtempSync(join(tmpdir(), 'conformance-'));
  });
  after(() => rmSync(output, { recursive: true, force: true }));

  it('passes at strict level and writes the json verdict', async () => {
    let text = '';
    const result = await runConformance(resolveConformanceConfig({ level: 'strict', seed: 11, reporters: ['json'], outputDir: output }), {
      write: (t) => void (text += t),
    });
    const failed = result.verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message ?? ''}`);
    assert.deepEqual(failed, []);
    assert.equal(result.exitCode, 0);
    const verdict = JSON.parse(readFileSync(join(output, 'conformance.json'), 'utf8')) as Verdict;
    assert.equal(verdict.level, 'strict');
    assert.equal(verdict.seed, 11);
    assert.deepEqual(verdict.operationsTested.sort(), ['createLotTransfer', 'createTestSample', 'getOrderInfo', 'server']);
    assert.equal(verdict.counts.total, verdict.checks.length);
    const cap = resolveConformanceConfig().maxWrites;
    assert.ok(verdict.writes > 0 && verdict.writes < cap, `writes ${verdict.writes} stay under the default cap ${cap}`);
    figure('strict-valid-creates', verdict.writes);
    figure('strict-requests', result.requests.length);
    assert.equal(verdict.requests, result.requests.length, 'the report counts every request the run sent');
    assert.ok(result.requests.length > verdict.counts.total, `${result.requests.length} requests for ${verdict.counts.total} checks`);
    assert.match(text, new RegExp(`\\(\\d+ cases, ${result.requests.length} requests, level strict\\)`));
    assert.match(text, /seed 11/);
    assert.match(text, new RegExp(`run marker ${verdict.runMarker}`));
    assert.match(text, /PASS {2}\[strict\] createLotTransfer\.status-201/);
  });

  it('writes a JUnit file and a self-contained HTML page', async () => {
    await runConformance(resolveConformanceConfig({ level: 'spec', seed: 1, reporters: ['junit'], outputDir: output }), {
      write: () => undefined,
    });
    const xml = readFileSync(join(output, 'junit.xml'), 'utf8');
    assert.match(xml, /<testsuite[^>]*name="goods conformance"/);
    assert.match(xml, /getOrderInfo\.exact-order/);
    await runConformance(resolveConformanceConfig({ level: 'spec', seed: 1, reporters: ['html'], outputDir: output }), {
      write: () => undefined,
    });
    const html = readFileSync(join(output, 'conformance.html'), 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|<link /);
    assert.match(html, /getOrderInfo\.exact-order/);
  });

  it('--read-only sends no POST and reports every write check as skipped', async () => {
    const result = await runConformance(resolveConformanceConfig({ level: 'strict', readOnly: true, outputDir: output }), {
      write: () => undefined,
    });
    assert.equal(result.exitCode, 0);
    assert.deepEqual(
      result.requests.filter((r) => r.method !== 'GET'),
      [],
    );
    const skipped = result.verdict.checks.filter((c) => c.status === 'skipped');
    assert.ok(skipped.some((c) => c.id === 'createLotTransfer.echo'));
    assert.ok(skipped.every((c) => c.reason === 'read-only'));
    assert.ok(skipped.every((c) => c.message?.includes('--read-only')));
    assert.ok(!existsSync(join(output, 'nothing')));
  });

  it('--max-writes caps the creates; the checks past the cap are not run with the reason (exit 3)', async () => {
    const result = await runConformance(resolveConformanceConfig({ level: 'strict', maxWrites: 2, outputDir: output }), {
      write: () => undefined,
    });
    assert.equal(result.verdict.writes, 2);
    assert.equal(result.exitCode, 3);
    const capped = result.verdict.checks.filter((c) => c.status === 'not-run');
    assert.ok(capped.length > 0);
    assert.ok(capped.every((c) => c.reason === 'write-budget' && c.message?.includes('--max-writes 2')));
  });
});

describe('generated requests', () => {
  it('the same seed sends the same requests (in the same order at --concurrency 1); another seed other bodies; every created record carries the run marker', async () => {
    const server = await startReferenceServer();
    try {
      const run = (seed: number, concurrency?: number) =>
        runConformance(
          resolveConformanceConfig({
            baseUrl: server.url,
            token: REFERENCE_TOKEN,
            level: 'strict',
            seed,
            runMarker: 'CONF-TEST-MARK',
            concurrency,
          }),
          {
            write: () => undefined,
          },
        );
      // Above --concurrency 1 the order between requests in flight at once may vary; the requests do not.
      const sorted = (requests: { method: string; path: string; body?: string }[]): string[] =>
        requests.map((r) => JSON.stringify(r)).sort();
      const a = await run(5);
      const b = await run(5);
      const c = await run(6);
      assert.deepEqual(sorted(a.requests), sorted(b.requests));
      assert.notDeepEqual(sorted(a.requests), sorted(c.requests));
      const [one, again] = [await run(5, 1), await run(5, 1)];
      assert.deepEqual(one.requests, again.requests);
      assert.deepEqual(sorted(one.requests), sorted(a.requests));
      const creates = a.requests.filter(
        (r) => r.method === 'POST' && r.body?.startsWith('{') && !r.body.includes('conformance_unknown_member'),
      );
      assert.ok(creates.length > 10);
      for (const r of creates) assert.match(r.body ?? '', /CONF-TEST-MARK/, `${r.path} ${r.body?.slice(0, 80)}`);
    } finally {
      await server.close();
    }
  });
});
