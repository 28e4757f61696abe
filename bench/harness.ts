/**
 * The bench: starts the three servers, loads them in alternating rounds on every scenario, then
 * measures start-up, a strict conformance run (wall time and requests), the time to verdict against a
 * slow server, the suite's self-test (kill rate), memory per record and journal replay. Every child
 * process it starts is stopped before it returns or throws. Core code: no argv, no printing except
 * through `log`.
 */
import { cpus, totalmem } from 'node:os';
import { timeConformance } from './conformance-run.js';
import { median, rotate, runLoad, total, wrongOf, type LoadPlan, type LoadRun } from './load.js';
import { treeCpuMs } from '../support/proc-cpu.js';
import { stopAll } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';
import { memoryOf, npmStartCommand, prismCommand } from './processes.js';
import { judgingBetween, judgingOf } from './proxy-judging.js';
import { measureRecords } from './records.js';
import { measureRedisStore } from './redis-store.js';
import { runSelfTestCli, type SelfTestRun } from './self-test-run.js';
import type { LoadRow, Measured, RoundRun, ScenarioRatios, StartupResult } from './measurements.js';
import type { BenchReport, BenchSettings } from './report.js';
import { BENCH_TOKEN, benchFixture, buildScenarios, type Scenario } from './scenarios.js';
import { startServer, timeStart, type RunningServer, type ServerId } from './servers.js';
import { evaluateTargets } from './targets.js';
import { measureTimeToVerdict, VERDICT_LATENCIES_MS } from './time-to-verdict.js';
import { messageOf } from '../util/errors.js';

export const DEFAULT_SETTINGS: BenchSettings = {
  connections: 50,
  durationMs: 3000,
  warmupMs: 1000,
  rounds: 3,
  transfers: 100_000,
  startupRuns: 3,
  servers: ['mock', 'prism', 'bare', 'proxy'],
  conformance: true,
  selfTest: true,
  verdictLatenciesMs: [...VERDICT_LATENCIES_MS],
};

/** Smaller settings for a quick look (`--quick`): about 35 s, plus about 15 s of self-test. */
export const QUICK_SETTINGS: BenchSettings = {
  ...DEFAULT_SETTINGS,
  durationMs: 1000,
  warmupMs: 300,
  rounds: 1,
  transfers: 20_000,
  startupRuns: 1,
  // The self-test stays in the quick run (kept if under 30 s): one process (its servers in-process, one
  // event loop), 16-18 s of CPU for the bundled contract's 237 faults, so about 15 s on the quiet 2-core
  // machine; measured 2026-11-24 at a load average of 8-12 from other work: 38-50 s wall, the same CPU.
  verdictLatenciesMs: [0, 100],
};

/** The records the replay target is about. */
export const REPLAY_TARGET_RECORDS = 100_000;

export type Log = (line: string) => void;

function mergeCodes(runs: readonly LoadRun[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statusCodes)) codes[code] = (codes[code] ?? 0) + count;
  return codes;
}

/** One load run with the CPU time used by the server's process tree and by this process (the load generator). */
async function measuredRun(server: RunningServer, scenario: Scenario, plan: LoadPlan): Promise<RoundRun> {
  const serverBefore = treeCpuMs(server.child.pid);
  const selfBefore = process.cpuUsage();
  const run = await runLoad(server.url, scenario, plan);
  const self = process.cpuUsage(selfBefore);
  return { ...run, serverCpuMs: treeCpuMs(server.child.pid) - serverBefore, loadGenCpuMs: (self.user + self.system) / 1000 };
}

async function loadPhase(
  settings: BenchSettings,
  scenarios: Scenario[],
  log: Log,
): Promise<{ rows: LoadRow[]; peakRss: Partial<Record<ServerId, number>> }> {
  const probe = scenarios[0];
  if (!probe) throw new Error('no scenarios');
  const servers: RunningServer[] = [];
  const rows: LoadRow[] = [];
  const peakRss: Partial<Record<ServerId, number>> = {};
  try {
    for (const id of settings.servers) {
      const server = await startServer(id, probe, { upstream: servers.find((s) => s.id === 'bare')?.url });
      servers.push(server);
      log(`started ${id} at ${server.url} (pid ${server.child.pid})`);
    }
    // warm the load generator itself (its JIT and buffers) once, so the first measured server is not penalized
    const first = servers[0];
    if (first && settings.warmupMs > 0)
      await runLoad(first.url, probe, { connections: settings.connections, durationMs: settings.warmupMs });
    const proxy = servers.find((s) => s.id === 'proxy');
    for (const scenario of scenarios) {
      const judgedBefore = proxy ? await judgingOf(proxy.url) : undefined;
      const warmupProblems = new Map<ServerId, number>();
      for (const server of servers) {
        const warm = await runLoad(server.url, scenario, { connections: settings.connections, durationMs: settings.warmupMs });
        warmupProblems.set(server.id, wrongOf(warm));
      }
      const runs = new Map<ServerId, RoundRun[]>(servers.map((s) => [s.id, []]));
      for (let round = 0; round < settings.rounds; round++) {
        for (const server of rotate(servers, round)) {
          const run = await measuredRun(server, scenario, { connections: settings.connections, durationMs: settings.durationMs });
          runs.get(server.id)?.push(run);
          if (server.child.hasExited()) throw new Error(`${server.id} exited during the load; its output:\n${server.child.output()}`);
        }
      }
      const judging = proxy && judgedBefore ? judgingBetween(judgedBefore, await judgingOf(proxy.url)) : undefined;
      for (const server of servers) {
        const measured = runs.get(server.id) ?? [];
        const row: LoadRow = {
          scenario: scenario.id,
          server: server.id,
          okPerSec: median(measured.map((r) => r.okPerSec)),
          p50Ms: median(measured.map((r) => r.p50Ms)),
          p99Ms: median(measured.map((r) => r.p99Ms)),
          peakRss: memoryOf(server.child).peakRss,
          answers: total(measured, (r) => r.answers),
          unexpected: total(measured, (r) => r.unexpected),
          errors: total(measured, (r) => r.errors),
          timeouts: total(measured, (r) => r.timeouts),
          statusCodes: mergeCodes(measured),
          serverCpuUsPerAnswer: median(measured.map((r) => (r.answers > 0 ? (r.serverCpuMs * 1000) / r.answers : Number.NaN))),
          serverCores: median(measured.map((r) => r.serverCpuMs / 1000 / r.seconds)),
          loadGenCores: median(measured.map((r) => r.loadGenCpuMs / 1000 / r.seconds)),
          warmupProblems: warmupProblems.get(server.id) ?? 0,
          ...(server.id === 'proxy' && judging ? { judging } : {}),
          rounds: measured,
        };
        rows.push(row);
        log(
          `${scenario.id} ${server.id}: ${Math.round(row.okPerSec)} req/s, p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms`,
        );
      }
    }
    for (const server of servers) peakRss[server.id] = memoryOf(server.child).peakRss;
    return { rows, peakRss };
  } finally {
    await Promise.all(servers.map((s) => s.child.stop()));
  }
}

function ratiosOf(rows: readonly LoadRow[], scenarios: readonly Scenario[]): ScenarioRatios[] {
  return scenarios.map((s) => {
    const [mock, bare, prism, proxy] = (['mock', 'bare', 'prism', 'proxy'] as const).map((server) =>
      rows.find((r) => r.scenario === s.id && r.server === server),
    );
    const ratio = (a: LoadRow | undefined, b: LoadRow | undefined): number | null =>
      a === undefined || b === undefined || b.okPerSec <= 0 ? null : a.okPerSec / b.okPerSec;
    return {
      scenario: s.id,
      mockOverBare: ratio(mock, bare),
      mockOverPrism: ratio(mock, prism),
      proxyOverBare: ratio(proxy, bare),
      proxyAddedP99Ms: proxy === undefined || bare === undefined ? null : proxy.p99Ms - bare.p99Ms,
    };
  });
}

async function startupPhase(settings: BenchSettings, probe: Scenario): Promise<Measured<StartupResult>> {
  if (settings.startupRuns < 1) return { status: 'skipped', reason: 'startup runs set to 0' };
  const mockLine = (port: number) => projectCli('mock/cli', ['--port', String(port), '--quiet']);
  const mock: { ms: number; rss: number }[] = [];
  const npmStart: { ms: number; rss: number }[] = [];
  const prism: { ms: number; rss: number }[] = [];
  for (let run = 0; run < settings.startupRuns; run++) {
    mock.push(await timeStart('mock (start-up)', mockLine, probe));
    // What a frontend developer types: npm, the prestart check of dist/, then the CLI.
    npmStart.push(await timeStart('npm start (start-up)', npmStartCommand, probe));
    prism.push(await timeStart('prism (start-up)', prismCommand, probe));
  }
  return {
    status: 'measured',
    value: {
      mockCommand: 'mock CLI (goods-mock --port P --quiet)',
      mockMs: mock.map((s) => s.ms),
      prismMs: prism.map((s) => s.ms),
      mockMedianMs: median(mock.map((s) => s.ms)),
      npmStartMs: npmStart.map((s) => s.ms),
      npmStartMedianMs: median(npmStart.map((s) => s.ms)),
      prismMedianMs: median(prism.map((s) => s.ms)),
      mockRss: median(mock.map((s) => s.rss)),
      prismRss: median(prism.map((s) => s.rss)),
    },
  };
}

async function conformancePhase(settings: BenchSettings, probe: Scenario, orderNumber: string): Promise<BenchReport['conformance']> {
  if (!settings.conformance) return { status: 'skipped', reason: 'conformance timing turned off' };
  const mock = await startServer('mock', probe);
  try {
    return { status: 'measured', value: await timeConformance({ baseUrl: mock.url, token: BENCH_TOKEN, orderNumber }) };
  } finally {
    await mock.child.stop();
  }
}

async function selfTestPhase(settings: BenchSettings): Promise<Measured<SelfTestRun>> {
  if (!settings.selfTest) return { status: 'skipped', reason: 'self-test turned off' };
  return { status: 'measured', value: await runSelfTestCli() };
}

async function timeToVerdictPhase(
  settings: BenchSettings,
  probe: Scenario,
  orderNumber: string,
  log: Log,
): Promise<BenchReport['timeToVerdict']> {
  if (!settings.conformance) return { status: 'skipped', reason: 'conformance timing turned off' };
  if (settings.verdictLatenciesMs.length === 0) return { status: 'skipped', reason: 'no latencies (--verdict-latencies none)' };
  const mock = await startServer('mock', probe);
  try {
    return {
      status: 'measured',
      value: await measureTimeToVerdict(mock.url, { token: BENCH_TOKEN, orderNumber }, settings.verdictLatenciesMs, log),
    };
  } finally {
    await mock.child.stop();
  }
}

async function attempt<T>(what: string, log: Log, run: () => Promise<Measured<T>>): Promise<Measured<T>> {
  log(`measuring ${what} ...`);
  try {
    return await run();
  } catch (error) {
    const reason = messageOf(error);
    log(`${what} failed: ${reason}`);
    return { status: 'failed', reason };
  }
}

/** Runs the whole bench with `settings`; progress goes to `log`. */
export async function runBench(settings: BenchSettings, log: Log = () => undefined): Promise<BenchReport> {
  const startedAt = performance.now();
  try {
    const fixture = benchFixture();
    const scenarios = buildScenarios(fixture);
    const [probe, transfer] = scenarios;
    if (!probe || !transfer) throw new Error('the scenarios are incomplete');
    const load = await loadPhase(settings, scenarios, log);
    const ratios = ratiosOf(load.rows, scenarios);
    const startup = await attempt('start-up times', log, () => startupPhase(settings, probe));
    const conformance = await attempt('a strict conformance run', log, () => conformancePhase(settings, probe, fixture.orderNumber));
    const selfTest = await attempt("the suite's self-test (kill rate)", log, () => selfTestPhase(settings));
    const timeToVerdict = await attempt('time to verdict against a slow server', log, () =>
      timeToVerdictPhase(settings, probe, fixture.orderNumber, log),
    );
    const records = await attempt(`memory per record (${settings.transfers} transfers) and replay`, log, async () =>
      settings.transfers < 1 || !settings.servers.includes('mock')
        ? { status: 'skipped' as const, reason: 'no transfers to record (or the mock is not benched)' }
        : {
            status: 'measured' as const,
            value: await measureRecords(transfer, probe, {
              count: settings.transfers,
              warmup: Math.min(2000, Math.max(50, Math.round(settings.transfers / 50))),
              connections: settings.connections,
              capMs: 45_000,
            }),
          },
    );
    const redisStore = await attempt('creates on the Redis store against memory', log, async () => {
      if (!settings.servers.includes('mock')) return { status: 'skipped' as const, reason: 'the mock is not benched' };
      const value = await measureRedisStore(transfer, settings);
      return value
        ? { status: 'measured' as const, value }
        : {
            status: 'not available' as const,
            reason: 'redis-server is not installed (not on PATH; node scripts/prerequisites.mjs installs it)',
          };
    });
    const problems: string[] = [];
    for (const row of load.rows) {
      const bad = wrongOf(row);
      if (bad > 0)
        problems.push(
          `${row.server} answered ${bad} of ${row.answers + row.errors + row.timeouts} ${row.scenario} requests wrongly or not at all (${JSON.stringify(row.statusCodes)}, ${row.errors} errors, ${row.timeouts} timeouts)`,
        );
    }
    for (const [name, m] of [
      ['start-up', startup],
      ['conformance', conformance],
      ['self-test', selfTest],
      ['time to verdict', timeToVerdict],
      ['records', records],
      ['redis store', redisStore],
    ] as const)
      if (m.status === 'failed') problems.push(`${name}: ${m.reason}`);
    if (conformance.status === 'measured' && conformance.value.exitCode !== 0)
      problems.push(`the strict conformance run exited ${conformance.value.exitCode}`);
    if (conformance.status === 'measured' && conformance.value.report === null)
      problems.push(`the strict conformance run: ${conformance.value.reportProblem ?? 'no report'}`);
    if (timeToVerdict.status === 'measured')
      for (const run of timeToVerdict.value.runs.filter((r) => r.exitCode !== 0))
        problems.push(
          `the strict run at ${run.latencyMs} ms latency, --concurrency ${run.asked}, exited ${run.exitCode ?? 'without a code'}`,
        );
    if (redisStore.status === 'measured' && redisStore.value.memory.wrong + redisStore.value.redis.wrong > 0)
      problems.push(`store comparison: ${redisStore.value.memory.wrong} wrong answers in memory, ${redisStore.value.redis.wrong} on Redis`);
    if (records.status === 'measured' && records.value.unexpected + records.value.errors > 0)
      problems.push(`recording transfers: ${records.value.unexpected} wrong answers, ${records.value.errors} errors`);
    const cpuList = cpus();
    return {
      date: new Date().toISOString(),
      machine: {
        cpus: cpuList.length,
        cpuModel: cpuList[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        memoryBytes: totalmem(),
      },
      settings,
      load: { rows: load.rows, ratios, peakRss: load.peakRss },
      startup,
      conformance,
      selfTest,
      timeToVerdict,
      records,
      redisStore,
      targets: evaluateTargets({
        connections: settings.connections,
        rows: load.rows,
        ratios,
        startup,
        conformance,
        selfTest,
        timeToVerdict,
        records,
        replayRecords: REPLAY_TARGET_RECORDS,
      }),
      problems,
      elapsedMs: performance.now() - startedAt,
    };
  } finally {
    await stopAll();
  }
}
