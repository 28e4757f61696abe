/**
 * The bench: starts the servers, loads them in alternating rounds on every scenario, then measures
 * start-up, a strict conformance run (wall time and requests), the time to verdict against a slow
 * server, the suite's self-test (kill rate), memory per record and journal replay, and creates on the
 * Redis store against memory. Every child process it starts is stopped before it returns or
 * throws. Core code: no argv, no printing except through `log`.
 */
import { cpus, totalmem } from 'node:os';
import { isObject } from '../contract/json-value.js';
import { send } from '../support/http-probe.js';
import { treeCpuMs } from '../support/proc-cpu.js';
import { stopAll } from '../support/processes.js';
import { redisAvailable, startRedis } from '../support/redis.js';
import { projectCli } from '../support/project-cli.js';
import { messageOf } from '../util/errors.js';
import { parseJsonText } from '../util/json.js';
import { measureTimeToVerdict, runSelfTestCli, type Target, timeConformance } from './conformance-run.js';
import { median, rotate, runLoad, wrongOf } from './load.js';
import { measureRecords } from './records.js';
import type { BenchReport, BenchSettings, LoadRow, RedisStoreResult, RoundRun } from './report.js';
import type { ScenarioRatios, StartOf, StartupResult } from './report.js';
import { BENCH_TOKEN, benchFixture, buildScenarios, type Scenario } from './scenarios.js';
import { memoryOf, npmStartCommand, prismCommand, startAndTime, startServer, type RunningServer, type ServerId } from './servers.js';
import { evaluateTargets } from './targets.js';

/** The records the replay target is about. */
export const REPLAY_TARGET_RECORDS = 100_000;

export type Log = (line: string) => void;

/** The validating proxy's counts since it started: exchanges judged, and forwarded unjudged (its judging queue full). */
async function judgingOf(url: string): Promise<{ judged: number; notJudged: number }> {
  const answer = await send(`${url}/__mock/violations`, { method: 'GET', headers: {} });
  const parsed = parseJsonText(answer.body);
  const value = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  const { exchanges: judged, notJudged } = value;
  if (answer.status !== 200 || typeof judged !== 'number' || typeof notJudged !== 'number')
    throw new Error(`the proxy's /__mock/violations answered ${answer.status} without its counts: ${answer.body.slice(0, 200)}`);
  return { judged, notJudged };
}

/** One load run with the CPU time used by the server's process tree and by this process (the load generator). */
async function measuredRun(server: RunningServer, scenario: Scenario, settings: BenchSettings): Promise<RoundRun> {
  const cpu = (): number[] => [treeCpuMs(server.child.pid), server.sidePid ? treeCpuMs(server.sidePid) : 0];
  const [serverBefore = 0, sideBefore = 0] = cpu();
  const selfBefore = process.cpuUsage();
  const run = await runLoad(server.url, scenario, { connections: settings.connections, durationMs: settings.durationMs });
  const self = process.cpuUsage(selfBefore);
  const [serverAfter = 0, sideAfter = 0] = cpu();
  const side = server.sidePid ? { sideCpuMs: sideAfter - sideBefore } : {};
  return { ...run, serverCpuMs: serverAfter - serverBefore, loadGenCpuMs: (self.user + self.system) / 1000, ...side };
}

function rowOf(scenario: Scenario, server: RunningServer, rounds: RoundRun[]): LoadRow {
  const mid = (pick: (r: RoundRun) => number): number => median(rounds.map(pick));
  const sum = (key: 'answers' | 'unexpected' | 'errors' | 'timeouts'): number => rounds.reduce((n, r) => n + r[key], 0);
  const statusCodes: Record<string, number> = {};
  for (const run of rounds) for (const [code, n] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const perAnswer = (ms: number | undefined, r: RoundRun): number => ((ms ?? Number.NaN) * 1000) / r.answers;
  return {
    scenario: scenario.id,
    server: server.id,
    okPerSec: mid((r) => r.okPerSec),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    answers: sum('answers'),
    unexpected: sum('unexpected'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    statusCodes,
    peakRss: memoryOf(server.child).peakRss,
    serverCpuUsPerAnswer: mid((r) => perAnswer(r.serverCpuMs, r)),
    ...(server.sidePid ? { sideCpuUsPerAnswer: mid((r) => perAnswer(r.sideCpuMs, r)) } : {}),
    serverCores: mid((r) => r.serverCpuMs / 1000 / r.seconds),
    loadGenCores: mid((r) => r.loadGenCpuMs / 1000 / r.seconds),
    rounds,
  };
}

/** Warm-up, then `settings.rounds` rounds of `scenario` on every server in turn (each round starting with another); a row per server. */
async function loadScenario(servers: RunningServer[], scenario: Scenario, settings: BenchSettings): Promise<LoadRow[]> {
  for (const server of servers) await runLoad(server.url, scenario, { connections: settings.connections, durationMs: settings.warmupMs });
  const runs = new Map<RunningServer, RoundRun[]>(servers.map((s) => [s, []]));
  for (let round = 0; round < settings.rounds; round++)
    for (const server of rotate(servers, round)) {
      runs.get(server)?.push(await measuredRun(server, scenario, settings));
      if (server.child.hasExited()) throw new Error(`${server.id} exited during the load; its output:\n${server.child.output()}`);
    }
  return servers.map((server) => rowOf(scenario, server, runs.get(server) ?? []));
}

async function loadPhase(settings: BenchSettings, scenarios: Scenario[], log: Log): Promise<LoadRow[]> {
  const [probe] = scenarios;
  if (!probe) throw new Error('no scenarios');
  const servers: RunningServer[] = [];
  const rows: LoadRow[] = [];
  try {
    for (const id of settings.servers) {
      servers.push(await startServer(id, probe, servers.find((s) => s.id === 'bare')?.url));
      log(`started ${id} at ${servers.at(-1)?.url ?? '?'}`);
    }
    // warm the load generator itself (its JIT and buffers) once, so the first measured server is not penalized
    if (servers[0] && settings.warmupMs > 0)
      await runLoad(servers[0].url, probe, { connections: settings.connections, durationMs: settings.warmupMs });
    const proxy = servers.find((s) => s.id === 'proxy');
    for (const scenario of scenarios) {
      const before = proxy && (await judgingOf(proxy.url));
      const scenarioRows = await loadScenario(servers, scenario, settings);
      const after = proxy && (await judgingOf(proxy.url));
      const proxyRow = scenarioRows.find((r) => r.server === 'proxy');
      if (proxyRow && before && after)
        proxyRow.judging = { judged: after.judged - before.judged, notJudged: after.notJudged - before.notJudged };
      for (const row of scenarioRows)
        log(
          `${row.scenario} ${row.server}: ${Math.round(row.okPerSec)} req/s, p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms`,
        );
      rows.push(...scenarioRows);
    }
    return rows;
  } finally {
    await Promise.all(servers.map((s) => s.child.stop()));
  }
}

/** Lot-transfer creates of one mock in memory against the same mock on Redis (`appendfsync always`, its CPU measured too). */
async function redisPhase(settings: BenchSettings, transfer: Scenario): Promise<RedisStoreResult> {
  const redis = await startRedis({ appendfsync: 'always' });
  const servers: RunningServer[] = [];
  try {
    servers.push(await startServer('mock', transfer), {
      ...(await startServer('mock', transfer, undefined, ['--store', redis.url])),
      sidePid: redis.pid(),
    });
    const [memory, onRedis] = await loadScenario(servers, transfer, settings);
    if (!memory || !onRedis) throw new Error('no rows');
    return { memory, redis: onRedis };
  } finally {
    await Promise.all(servers.map((s) => s.child.stop()));
    await redis.dispose();
  }
}

function ratiosOf(rows: readonly LoadRow[], scenarios: readonly Scenario[]): ScenarioRatios[] {
  return scenarios.map((s) => {
    const row = (server: ServerId): LoadRow | undefined => rows.find((r) => r.scenario === s.id && r.server === server);
    const ratio = (a: ServerId, b: ServerId): number | null => {
      const [over, under] = [row(a), row(b)];
      return over === undefined || under === undefined || under.okPerSec <= 0 ? null : over.okPerSec / under.okPerSec;
    };
    const [proxy, floor] = [row('proxy'), row('floor')];
    return {
      scenario: s.id,
      mockOverBare: ratio('mock', 'bare'),
      mockOverPrism: ratio('mock', 'prism'),
      proxyOverFloor: ratio('proxy', 'floor'),
      proxyAddedP99Ms: proxy === undefined || floor === undefined ? null : proxy.p99Ms - floor.p99Ms,
      floorOverBare: ratio('floor', 'bare'),
    };
  });
}

async function startupPhase(runs: number, probe: Scenario): Promise<StartupResult> {
  const mockLine = (port: number) => projectCli('mock/cli', ['--port', String(port), '--quiet']);
  // npm start is what a frontend developer types: npm, the prestart check of dist/, then the CLI.
  const commands = { mock: mockLine, 'npm start': npmStartCommand, prism: prismCommand };
  const of = async (name: keyof typeof commands): Promise<StartOf> => {
    const starts: { ms: number; rss: number }[] = [];
    for (let run = 0; run < runs; run++) {
      const { child, ms } = await startAndTime(`${name} (start-up)`, commands[name], probe);
      starts.push({ ms, rss: memoryOf(child).rss });
      await child.stop();
    }
    return { medianMs: median(starts.map((s) => s.ms)), rss: median(starts.map((s) => s.rss)) };
  };
  return { runs, mock: await of('mock'), npmStart: await of('npm start'), prism: await of('prism') };
}

/** Runs the whole bench with `settings`; progress goes to `log`. */
export async function runBench(settings: BenchSettings, log: Log = () => undefined): Promise<BenchReport> {
  const startedAt = performance.now();
  const problems: string[] = [];
  /** Runs `measure` unless `skipped` says why not; a failure is a problem, not thrown; `check` names what a measured value shows wrong. */
  const phase = async <T>(what: string, skipped: string | false, measure: () => Promise<T>, check = (_: T): string[] => []) => {
    if (skipped) return { status: 'skipped', reason: skipped } as const;
    log(`measuring ${what} ...`);
    try {
      const value = await measure();
      problems.push(...check(value).map((p) => `${what}: ${p}`));
      return { status: 'measured', value } as const;
    } catch (error) {
      log(`${what} failed: ${messageOf(error)}`);
      problems.push(`${what}: ${messageOf(error)}`);
      return { status: 'failed', reason: messageOf(error) } as const;
    }
  };
  try {
    const fixture = benchFixture();
    const scenarios = buildScenarios(fixture);
    const [probe, transfer] = scenarios;
    if (!probe || !transfer) throw new Error('the scenarios are incomplete');
    const rows = await loadPhase(settings, scenarios, log);
    for (const row of rows.filter((r) => wrongOf(r) > 0))
      problems.push(
        `${row.server} answered ${wrongOf(row)} ${row.scenario} requests wrongly or not at all (${JSON.stringify(row.statusCodes)})`,
      );
    const ratios = ratiosOf(rows, scenarios);
    const startup = await phase('start-up times', settings.startupRuns < 1 && 'startup runs set to 0', () =>
      startupPhase(settings.startupRuns, probe),
    );
    const withMock = async <T>(use: (mock: Target) => Promise<T>): Promise<T> => {
      const mock = await startServer('mock', probe);
      try {
        return await use({ baseUrl: mock.url, token: BENCH_TOKEN, orderNumber: fixture.orderNumber });
      } finally {
        await mock.child.stop();
      }
    };
    const noConformance = !settings.conformance && 'conformance timing turned off';
    const conformance = await phase(
      'the strict conformance run',
      noConformance,
      () => withMock((mock) => timeConformance(mock)),
      (c) => [...(c.exitCode === 0 ? [] : [`exited ${c.exitCode}`]), ...(c.reportProblem ? [c.reportProblem] : [])],
    );
    const selfTest = await phase("the suite's self-test", !settings.selfTest && 'self-test turned off', () => runSelfTestCli());
    const noVerdict = noConformance || (settings.verdictLatenciesMs.length === 0 && 'no latencies (--verdict-latencies none)');
    const timeToVerdict = await phase(
      'time to verdict',
      noVerdict,
      () => withMock((mock) => measureTimeToVerdict(mock, settings.verdictLatenciesMs, log)),
      (runs) =>
        runs.filter((r) => r.exitCode !== 0).map((r) => `at ${r.latencyMs} ms, --concurrency ${r.asked}, exited ${r.exitCode ?? '?'}`),
    );
    const noMock = !settings.servers.includes('mock') && 'the mock is not benched';
    const warmup = Math.min(2000, Math.max(50, Math.round(settings.transfers / 50)));
    const records = await phase(
      `memory per record (${settings.transfers} transfers) and replay`,
      noMock || (settings.transfers < 1 && 'no transfers to record'),
      () => measureRecords(transfer, probe, { count: settings.transfers, warmup, connections: settings.connections, capMs: 45_000 }),
      (r) => (r.wrong > 0 ? [`${r.wrong} wrong answers or errors`] : []),
    );
    const redisStore = await phase(
      'creates on the Redis store against memory',
      noMock || (!redisAvailable() && 'redis-server is not installed (node scripts/prerequisites.mjs installs it)'),
      () => redisPhase(settings, transfer),
      ({ memory, redis }) =>
        wrongOf(memory) + wrongOf(redis) > 0 ? [`${wrongOf(memory)} wrong answers in memory, ${wrongOf(redis)} on Redis`] : [],
    );
    const [cpu] = cpus();
    const measured = { startup, conformance, selfTest, timeToVerdict, records };
    const platform = `${process.platform} ${process.arch}`;
    const machine = { cpus: cpus().length, cpuModel: cpu?.model ?? 'unknown', node: process.version, platform, memoryBytes: totalmem() };
    const targets = evaluateTargets({ connections: settings.connections, rows, ratios, ...measured, replayRecords: REPLAY_TARGET_RECORDS });
    const elapsedMs = performance.now() - startedAt;
    return {
      date: new Date().toISOString(),
      machine,
      settings,
      load: { rows, ratios },
      ...measured,
      redisStore,
      targets,
      problems,
      elapsedMs,
    };
  } finally {
    await stopAll();
  }
}
