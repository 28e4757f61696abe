/** What every bench run must hold, whatever its settings: asserted by the smoke run and the whole run (tests only). */
import assert from 'node:assert/strict';
import { wrongOf } from './load.js';
import { reportJson, type BenchReport, type BenchSettings } from './report.js';
import { SCENARIO_IDS } from './scenarios.js';
import type { ServerId } from './servers.js';
import { formatReport } from './table.js';

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
