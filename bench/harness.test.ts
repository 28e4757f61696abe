/**
 * The bench's harness with tiny load, structure and finiteness only (no timing assertions): the smoke
 * run in `npm test` starts the node servers in their process groups, loads every scenario, evaluates
 * the targets, prints and serializes, and stops every child; the whole run (every server, Prism
 * included, every phase) runs only with GOODS_BENCH_FULL=1 (`npm run bench:check`, after changing the bench).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runningCount } from '../support/processes.js';
import { ratiosOf, runBench } from './harness.js';
import { wrongOf } from './load.js';
import { reportJson, type BenchReport, type BenchSettings, type LoadRow, type RoundRun } from './report.js';
import { benchFixture, buildScenarios } from './scenarios.js';
import { SERVER_IDS, type ServerId } from './servers.js';
import { formatReport } from './table.js';

const SCENARIO_IDS = buildScenarios(benchFixture()).map((s) => s.id);

/** A row for every scenario and each of `servers`, with correct answers, finite numbers and one round. */
export function assertLoadRows(report: BenchReport, servers: readonly ServerId[]): void {
  for (const scenario of SCENARIO_IDS)
    for (const server of servers) {
      const row = report.load.rows.find((r) => r.scenario === scenario && r.server === server);
      assert.ok(row, `no row for ${scenario} × ${server}`);
      assert.ok(row.answers > 0, `${server} answered no ${scenario} request`);
      assert.equal(wrongOf(row), 0, `${server} ${scenario}: ${JSON.stringify(row.statusCodes)}`);
      for (const value of [row.okPerSec, row.p50Ms, row.p99Ms, row.peakRss])
        assert.ok(Number.isFinite(value) && value > 0, `${scenario} × ${server}: ${value}`);
      assert.equal(row.rounds.length, 1);
      const warmedUp = row.rounds.every((round) => typeof round.warmupAnswers === 'number');
      assert.ok(warmedUp, `${scenario} × ${server}: a round without its warm-up right before it`);
    }
}

/** The printed table names every scenario; the JSON report holds a load row for each scenario and each of `servers`. */
export function assertPrintedAndSerialized(report: BenchReport, servers: readonly ServerId[]): void {
  const text = formatReport(report);
  for (const scenario of SCENARIO_IDS) assert.match(text, new RegExp(scenario));
  const parsed = JSON.parse(reportJson(report)) as { load: { rows: unknown[] } };
  assert.equal(parsed.load.rows.length, SCENARIO_IDS.length * servers.length);
}

/** The load of the test runs: 2 connections, one round of 300 ms, no conformance timing, no self-test. */
export const TINY_LOAD = {
  connections: 2,
  durationMs: 300,
  rounds: 1,
  conformance: false,
  selfTest: false,
  verdictLatenciesMs: [],
} as const satisfies Partial<BenchSettings>;

const SERVERS: ServerId[] = ['mock', 'bare', 'floor', 'proxy'];

describe('bench/harness: the ratios', () => {
  const round = (okPerSec: number, p99Ms: number): RoundRun => ({
    ...{ answers: okPerSec, ok: okPerSec, unexpected: 0, errors: 0, timeouts: 0, seconds: 1, okPerSec, p50Ms: p99Ms / 2, p99Ms },
    ...{ statusCodes: { 200: okPerSec }, serverCpuMs: 1, loadGenCpuMs: 1 },
  });
  const row = (server: ServerId, rounds: RoundRun[]): LoadRow => ({
    ...{ scenario: 'get-order-info', server, answers: 1, unexpected: 0, errors: 0, timeouts: 0, statusCodes: {} },
    ...{ okPerSec: 0, p50Ms: 0, p99Ms: 0, peakRss: 0, serverCpuUsPerAnswer: 0, serverCores: 0, loadGenCores: 0, rounds },
  });

  it("takes each ratio as the median of the rounds' own ratios, not the ratio of the rows' medians", () => {
    // The machine slowed down fourfold in the third round; in each round the proxy ran beside its floor.
    const rows = [
      row('floor', [round(10_000, 10), round(12_000, 8), round(3_000, 30)]),
      row('proxy', [round(11_000, 10.5), round(10_800, 9), round(2_700, 32)]),
    ];
    const [scenario] = buildScenarios(benchFixture());
    assert.ok(scenario);
    const [ratios] = ratiosOf(rows, [scenario]);
    assert.equal(ratios?.proxyOverFloor?.toFixed(3), '0.900', 'rounds 1.1, 0.9, 0.9 (the medians would say 10,800 / 10,000)');
    assert.equal(ratios?.proxyAddedP99Ms?.toFixed(2), '1.00', 'rounds +0.5, +1, +2 ms (the medians would say +0.5)');
    assert.equal(ratios?.mockOverBare, null, 'neither the mock nor bare was loaded');
    assert.deepEqual(ratios?.spread, { proxyOverFloor: [0.9, 1.1], proxyAddedP99Ms: [0.5, 2] }, 'the lowest and highest round of each');
  });

  it('the servers a ratio compares are neighbours in the order the rounds run them', () => {
    const pairs = [
      ['mock', 'bare'],
      ['mock', 'prism'],
      ['floor', 'bare'],
      ['proxy', 'floor'],
    ] as const;
    for (const [a, b] of pairs) assert.equal(Math.abs(SERVER_IDS.indexOf(a) - SERVER_IDS.indexOf(b)), 1, `${a} and ${b}`);
  });
});

describe('bench/harness: runBench smoke run (node servers, tiny load)', function () {
  this.timeout(120_000);
  let report: BenchReport;
  const proxyDirs = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('goods-bench-proxy-')));
  let dirsBefore: Set<string>;

  before(async () => {
    dirsBefore = proxyDirs();
    report = await runBench({ ...TINY_LOAD, warmupMs: 100, transfers: 0, startupRuns: 0, servers: SERVERS });
  });

  it("removes the proxy's report directory when the proxy stops", () => {
    assert.ok(SERVERS.includes('proxy'));
    assert.deepEqual(
      [...proxyDirs()].filter((name) => !dirsBefore.has(name)),
      [],
    );
  });

  it('has a row for every scenario and benched server, with correct answers and finite numbers', () => {
    assertLoadRows(report, SERVERS);
    for (const ratio of report.load.ratios) {
      assert.ok(Number.isFinite(ratio.mockOverBare), `mock/bare for ${ratio.scenario}`);
      assert.equal(ratio.mockOverPrism, null, 'Prism was not benched: no ratio');
      assert.ok(Number.isFinite(ratio.proxyOverFloor), `proxy/floor for ${ratio.scenario}`);
      assert.ok(Number.isFinite(ratio.floorOverBare), `floor/bare for ${ratio.scenario}`);
    }
    assert.deepEqual(report.problems, []);
  });

  it('skips the phases it was told to skip, saying why', () => {
    for (const phase of [report.startup, report.records, report.conformance, report.selfTest])
      assert.equal(phase.status, 'skipped', JSON.stringify(phase));
  });

  it('evaluates the targets, n/a where nothing was measured, prints a table and serializes to JSON', () => {
    assert.equal(report.targets.find((t) => t.id === 'get-order-info/mock-over-bare')?.met === null, false);
    assert.equal(report.targets.find((t) => t.id === 'startup')?.met, null);
    for (const id of ['conformance-2s', 'self-test']) assert.equal(report.targets.find((t) => t.id === id)?.met, null, id);
    assertPrintedAndSerialized(report, SERVERS);
  });

  it('judges the validating proxy on every scenario: its targets evaluated, every exchange judged, its CPU a request printed', () => {
    for (const ratio of report.load.ratios) {
      const proxy = report.load.rows.find((r) => r.scenario === ratio.scenario && r.server === 'proxy');
      assert.ok(proxy?.judging && proxy.judging.judged > 0, `${ratio.scenario}: ${JSON.stringify(proxy?.judging)}`);
      assert.equal(proxy.judging.notJudged, 0, `${ratio.scenario}: the proxy kept up with judging a tiny load`);
      assert.notEqual(report.targets.find((t) => t.id === `${ratio.scenario}/proxy-over-floor`)?.met, null, ratio.scenario);
      const p99 = report.targets.find((t) => t.id === `${ratio.scenario}/proxy-added-p99`);
      assert.equal(p99?.met, null, 'a 2-connection run cannot judge the 50-connection p99 target');
    }
    assert.match(formatReport(report), /Validating proxy, CPU a request: get-order-info [\d,]+ µs \(floor [\d,]+ µs, bare [\d,]+ µs/);
    assert.match(formatReport(report), /Regression line: get-order-info: mock\/bare [\d.]+× ≥ 0\.9, proxy\/floor [\d.]+× ≥ 0\.85/);
  });

  it('leaves no child process running', () => {
    assert.equal(runningCount(), 0);
  });
});

// The whole run: `npm run bench:check` (GOODS_BENCH_FULL=1); about 40 s of process starts on 2 cores, so not in `npm test`.
if (process.env['GOODS_BENCH_FULL'] === '1')
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
      if (report.startup.status === 'measured')
        assert.ok(report.startup.value.mock.medianMs > 0 && report.startup.value.prism.medianMs > 0);
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
