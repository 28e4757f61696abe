/**
 * Smoke run of the bench in `npm test`: the harness starts the node servers in their process groups,
 * loads every scenario, evaluates the targets, prints and serializes, and stops every child. The run
 * with every server and phase (Prism, start-up, records, replay) is `npm run bench:check`
 * (`full-run.check.ts`) and `npm run bench` itself. Structure and finiteness only, no timing assertions.
 */
import assert from 'node:assert/strict';
import { runBench } from './harness.js';
import { runningCount } from '../support/processes.js';
import type { BenchReport } from './report.js';
import { assertLoadRows, assertPrintedAndSerialized, TINY_LOAD } from './report-shape.js';
import type { ServerId } from './servers.js';
import { formatReport } from './table.js';

const SERVERS: ServerId[] = ['mock', 'bare', 'floor', 'proxy'];

describe('bench/harness: runBench smoke run (node servers, tiny load)', function () {
  this.timeout(120_000);
  let report: BenchReport;

  before(async () => {
    report = await runBench({ ...TINY_LOAD, warmupMs: 0, transfers: 0, startupRuns: 0, servers: SERVERS });
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
