/**
 * The whole bench (every server, Prism included, every phase) with tiny load: structure and finiteness
 * only, no timing assertions. Not part of `npm test` (about 40 s of process starts on 2 cores): run it
 * with `npm run bench:check` after changing the bench; `bench/harness.test.ts` is the smoke run in `npm test`.
 */
import assert from 'node:assert/strict';
import { runBench } from './harness.js';
import { wrongOf } from './load.js';
import { runningCount } from '../support/processes.js';
import type { BenchReport } from './report.js';
import { assertLoadRows, assertPrintedAndSerialized, TINY_LOAD } from './report-shape.js';
import { SERVER_IDS } from './servers.js';
import { formatReport } from './table.js';

describe('bench/harness: the whole runBench with tiny load', function () {
  this.timeout(120_000);
  let report: BenchReport;

  before(async () => {
    report = await runBench({ ...TINY_LOAD, warmupMs: 100, transfers: 200, startupRuns: 1, servers: [...SERVER_IDS] });
  });

  it('has a row for every scenario and server, with correct answers and finite numbers', () => {
    assertLoadRows(report, SERVER_IDS);
    for (const ratio of report.load.ratios) {
      assert.ok(Number.isFinite(ratio.mockOverBare), `mock/bare for ${ratio.scenario}`);
      assert.ok(Number.isFinite(ratio.mockOverPrism), `mock/prism for ${ratio.scenario}`);
      assert.ok(Number.isFinite(ratio.proxyOverFloor), `proxy/floor for ${ratio.scenario}`);
      assert.ok(Number.isFinite(ratio.floorOverBare), `floor/bare for ${ratio.scenario}`);
      assert.ok(Number.isFinite(ratio.proxyAddedP99Ms), `proxy added p99 for ${ratio.scenario}`);
    }
  });

  it('measures start-up, records and replay, and skips the conformance timing and the self-test it was told to skip', () => {
    assert.equal(report.startup.status, 'measured', JSON.stringify(report.startup));
    if (report.startup.status === 'measured') assert.ok(report.startup.value.mock.medianMs > 0 && report.startup.value.prism.medianMs > 0);
    assert.equal(report.records.status, 'measured', JSON.stringify(report.records));
    if (report.records.status === 'measured') {
      const r = report.records.value;
      assert.equal(r.recorded, 200);
      assert.ok(r.journalBytes > 0, 'the journal is empty');
      assert.ok(Number.isFinite(r.rssBytesPerRecord) && Number.isFinite(r.replay.replayStartMs));
      assert.equal(r.replay.nextId, r.totalRecorded + 1, 'ids do not continue after the replayed journal');
      assert.equal(r.replay.recordsReplayed, true);
    }
    assert.equal(report.conformance.status, 'skipped');
    assert.equal(report.selfTest.status, 'skipped');
  });

  it('compares creates of the mock on Redis with the same mock in memory', () => {
    assert.equal(report.redisStore.status, 'measured', JSON.stringify(report.redisStore));
    if (report.redisStore.status !== 'measured') return;
    const r = report.redisStore.value;
    for (const run of [r.memory, r.redis]) {
      assert.ok(run.answers > 0 && wrongOf(run) === 0, JSON.stringify(run));
      for (const value of [run.okPerSec, run.p99Ms, run.serverCpuUsPerAnswer])
        assert.ok(Number.isFinite(value) && value > 0, String(value));
    }
    assert.ok((r.redis.sideCpuUsPerAnswer ?? 0) > 0, 'Redis did work for the creates');
    assert.equal(r.memory.sideCpuUsPerAnswer, undefined, 'the memory store has no Redis');
    assert.match(formatReport(report), /Redis store ÷ memory store/);
  });

  it('evaluates every target, prints a table and serializes to JSON', () => {
    const ids = report.targets.map((t) => t.id);
    for (const id of [
      'get-order-info/mock-over-bare',
      'get-order-info/p99',
      'create-lot-transfer/mock-over-prism',
      'create-test-sample/mock-over-bare',
      'create-test-sample/proxy-over-floor',
      'startup',
      'npm-start',
      'replay',
      'rss-per-record',
      'conformance',
      'conformance-2s',
      'self-test',
    ])
      assert.ok(ids.includes(id), `no target ${id}`);
    const replay = report.targets.find((t) => t.id === 'replay');
    assert.equal(replay?.met, null, 'a 200-record run cannot judge the 100,000-record replay target');
    assertPrintedAndSerialized(report, SERVER_IDS);
  });

  it('leaves no child process running', () => {
    assert.equal(runningCount(), 0);
  });
});
