import assert from 'node:assert/strict';
import type { LoadRow } from './report.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';
import { formatTimeToVerdict } from './table.js';
import { evaluateTargets, type TargetInputs } from './targets.js';
import type { TimeToVerdictResult, TimeToVerdictRun } from './time-to-verdict.js';

function row(scenario: ScenarioId, server: ServerId, okPerSec: number, p99Ms: number, unexpected = 0): LoadRow {
  return {
    scenario,
    server,
    okPerSec,
    p50Ms: 1,
    p99Ms,
    peakRss: 1,
    answers: 100,
    unexpected,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    serverCpuUsPerAnswer: 1,
    serverCores: 1,
    loadGenCores: 1,
    warmupProblems: 0,
    rounds: [],
  };
}

const skipped = { status: 'skipped' as const, reason: 'not measured here' };

function inputs(overrides: Partial<TargetInputs>): TargetInputs {
  return { rows: [], ratios: [], startup: skipped, conformance: skipped, records: skipped, replayRecords: 100_000, ...overrides };
}

describe('bench/targets: evaluateTargets', () => {
  it('judges `npm start` to first answer against 2 s, and says when it was not measured', () => {
    const startup = (npmStartMs: number[]) =>
      evaluateTargets(
        inputs({
          startup: {
            status: 'measured',
            value: {
              mockCommand: 'cli',
              mockMs: [200],
              mockMedianMs: 200,
              npmStartMs,
              npmStartMedianMs: npmStartMs[0] ?? Number.NaN,
              prismMs: [900],
              prismMedianMs: 900,
              mockRss: 1,
              prismRss: 1,
            },
          },
        }),
      ).find((r) => r.id === 'npm-start');
    assert.equal(startup([1500])?.met, true);
    assert.equal(startup([2500])?.met, false);
    assert.equal(startup([])?.met, null);
  });

  it('judges the GET ratios and p99 against the issue limits', () => {
    const results = evaluateTargets(
      inputs({
        rows: [row('get-order-info', 'mock', 7000, 6)],
        ratios: [{ scenario: 'get-order-info', mockOverBare: 0.8, mockOverPrism: 9.9 }],
      }),
    );
    const met = Object.fromEntries(results.map((r) => [r.id, r.met]));
    assert.equal(met['get-order-info/mock-over-bare'], true);
    const slower = evaluateTargets(inputs({ ratios: [{ scenario: 'get-order-info', mockOverBare: 0.79, mockOverPrism: 20 }] }));
    assert.equal(slower.find((r) => r.id === 'get-order-info/mock-over-bare')?.met, false);
    assert.equal(met['get-order-info/p99'], false);
    assert.equal(met['get-order-info/mock-over-prism'], false);
  });

  it('requires 0.6 for the POST ratio, with 0.65 as the goal on its own line', () => {
    const judged = (mockOverBare: number) => {
      const results = evaluateTargets(inputs({ ratios: [{ scenario: 'create-test-sample', mockOverBare, mockOverPrism: 20 }] }));
      const required = results.find((r) => r.id === 'create-test-sample/mock-over-bare');
      const goal = results.find((r) => r.id === 'create-test-sample/mock-over-bare-goal');
      return { required, goal };
    };
    assert.deepEqual([judged(0.65).required?.met, judged(0.65).goal?.met], [true, true]);
    assert.deepEqual([judged(0.64).required?.met, judged(0.64).goal?.met], [true, false]);
    assert.deepEqual([judged(0.6).required?.met, judged(0.59).required?.met], [true, false]);
    assert.match(judged(0.6).required?.target ?? '', /≥ 0\.6 × bare/);
    assert.match(judged(0.6).goal?.target ?? '', /≥ 0\.65 × bare node:http req\/s \(goal\)/);
  });

  it('a mock that answered errors cannot meet a speed target', () => {
    const results = evaluateTargets(
      inputs({
        rows: [row('create-lot-transfer', 'mock', 9000, 1, 3)],
        ratios: [{ scenario: 'create-lot-transfer', mockOverBare: 0.65, mockOverPrism: 50 }],
      }),
    );
    const bare = results.find((r) => r.id === 'create-lot-transfer/mock-over-bare');
    assert.equal(bare?.met, false);
    assert.match(bare?.note ?? '', /3 requests/);
    assert.equal(results.find((r) => r.id === 'create-lot-transfer/mock-over-prism')?.met, false);
  });

  it('answers n/a (met: null) with the reason when a measurement is missing', () => {
    const results = evaluateTargets(inputs({ ratios: [{ scenario: 'create-test-sample', mockOverBare: null, mockOverPrism: null }] }));
    for (const result of results) {
      assert.equal(result.met, null, result.id);
      assert.ok(result.note, result.id);
    }
  });

  it('judges the time to verdict at 1 s latency and the default concurrency against 60 s, next to the sequential run', () => {
    const run = (latencyMs: number, asked: TimeToVerdictRun['asked'], wallMs: number, exitCode = 0): TimeToVerdictRun => ({
      latencyMs,
      asked,
      concurrency: asked === 'default' ? 8 : asked,
      wallMs,
      exitCode,
    });
    const result = (runs: TimeToVerdictRun[]): TimeToVerdictResult => ({ runs, defaultConcurrency: 8 });
    const judged = (runs: TimeToVerdictRun[]) =>
      evaluateTargets(inputs({ timeToVerdict: { status: 'measured', value: result(runs) } })).find((r) => r.id === 'time-to-verdict');
    const met = judged([run(1000, 1, 270_000), run(1000, 'default', 41_000), run(1000, 16, 25_000)]);
    assert.equal(met?.met, true);
    assert.equal(met?.measured, '41.0 s');
    assert.match(met?.note ?? '', /0\.15 of the sequential run's 270\.0 s \(--concurrency 8\)/);
    assert.equal(judged([run(1000, 'default', 61_000)])?.met, false);
    assert.equal(judged([run(1000, 'default', 30_000, 1)])?.met, false, 'a run that did not pass');
    assert.equal(judged([run(100, 'default', 5_000)])?.met, null, 'no run at 1 s');
    assert.equal(evaluateTargets(inputs({})).find((r) => r.id === 'time-to-verdict')?.met, null);
    const table = formatTimeToVerdict(result([run(100, 1, 30_000), run(100, 'default', 5_000), run(100, 16, 4_000, 1)]));
    assert.match(table, /latency +--concurrency 1 +default \(8\) +--concurrency 16/);
    assert.match(table, /100 ms +30\.0 s +5\.0 s \(6\.00×\) +4\.0 s \(7\.50×\) exit 1 !/);
  });

  it('fails a fast conformance run that did not pass', () => {
    const results = evaluateTargets(inputs({ conformance: { status: 'measured', value: { wallMs: 1000, exitCode: 1, summary: '' } } }));
    const conformance = results.find((r) => r.id === 'conformance');
    assert.equal(conformance?.met, false);
    assert.match(conformance?.note ?? '', /exit code 1/);
  });
});
