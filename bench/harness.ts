/**
 * The bench: loads the servers in alternating rounds on every scenario, then runs each other measurement
 * as a phase; every child process it starts is stopped before it returns or throws. No argv, no printing but `log`.
 */
import { cpus, totalmem } from 'node:os';
import { isObject } from '../contract/json-value.js';
import { RESET_HEADER } from '../mock/index.js';
import { send } from '../support/http-probe.js';
import { treeCpuMs } from '../support/proc-cpu.js';
import { stopAll } from '../support/processes.js';
import { redisAvailable, startRedis } from '../support/redis.js';
import { projectCli } from '../support/project-cli.js';
import { messageOf } from '../util/errors.js';
import { parseJsonText } from '../util/json.js';
import { measureTimeToVerdict, runSelfTestCli, timeConformance, type ConformanceTiming } from './conformance-run.js';
import type { Target, TimeToVerdictRun } from './conformance-run.js';
import { median, roundOrder, runLoad, wrongOf } from './load.js';
import { measureRecords, type RecordsResult } from './records.js';
import type { BenchReport, BenchSettings, LoadRow, RedisStoreResult, RoundRun, ScenarioRatios, StartupResult } from './report.js';
import type { GoalRatio } from './report.js';
import { BENCH_TOKEN, benchFixture, buildScenarios, type Scenario } from './scenarios.js';
import { memoryOf, npmStartCommand, prismCommand, startAndTime, startServer, withServer, withServers } from './servers.js';
import type { RunningServer, ServerId, Starter } from './servers.js';
import { evaluateTargets } from './targets.js';

export const REPLAY_TARGET_RECORDS = 100_000;
export type Log = (line: string) => void;

/** The validating proxy's counts since it started: exchanges judged, and forwarded unjudged (its judging queue full). */
async function judgingOf(url: string): Promise<{ judged: number; notJudged: number }> {
  const answer = await send(`${url}/__mock/violations`, { method: 'GET', headers: {} });
  const parsed = parseJsonText(answer.body);
  const { exchanges: judged, notJudged } = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  if (answer.status !== 200 || typeof judged !== 'number' || typeof notJudged !== 'number')
    throw new Error(`the proxy's /__mock/violations answered ${answer.status} without its counts: ${answer.body.slice(0, 200)}`);
  return { judged, notJudged };
}

/** Empties a mock's session before a round of creates: the round measures creates, not the collector's work on every earlier round's records. */
async function emptied(server: RunningServer, scenario: Scenario): Promise<void> {
  if (server.id !== 'mock' || scenario.method !== 'POST') return;
  const answer = await send(`${server.url}/__mock/reset`, { method: 'POST', headers: { [RESET_HEADER]: '1' } });
  if (answer.status >= 300) throw new Error(`the mock's reset answered ${answer.status}: ${answer.body.slice(0, 200)}`);
}

const warmUp = ({ url }: RunningServer, scenario: Scenario, { connections, warmupMs }: BenchSettings) =>
  runLoad(url, scenario, { connections, durationMs: warmupMs });
/** One load run after an unmeasured warm-up (the round order idles servers unequally, a run after a long idle starts slow; the first also warms this process, the load generator), with the CPU time of the server's tree and of this process. */
async function measuredRun(server: RunningServer, scenario: Scenario, settings: BenchSettings): Promise<RoundRun> {
  await emptied(server, scenario);
  const warm = settings.warmupMs > 0 ? { warmupAnswers: (await warmUp(server, scenario, settings)).answers } : {};
  const cpu = (): number[] => [treeCpuMs(server.child.pid), server.sidePid ? treeCpuMs(server.sidePid) : 0];
  const [serverBefore = 0, sideBefore = 0] = cpu();
  const selfBefore = process.cpuUsage();
  const run = await runLoad(server.url, scenario, { connections: settings.connections, durationMs: settings.durationMs });
  const self = process.cpuUsage(selfBefore);
  const [serverAfter = 0, sideAfter = 0] = cpu();
  const side = server.sidePid ? { sideCpuMs: sideAfter - sideBefore } : {};
  return { ...run, serverCpuMs: serverAfter - serverBefore, loadGenCpuMs: (self.user + self.system) / 1000, ...side, ...warm };
}

function rowOf(scenario: Scenario, server: RunningServer, rounds: RoundRun[]): LoadRow {
  const mid = (pick: (r: RoundRun) => number): number => median(rounds.map(pick));
  const sum = (key: 'answers' | 'unexpected' | 'errors' | 'timeouts'): number => rounds.reduce((n, r) => n + r[key], 0);
  const statusCodes: Record<string, number> = {};
  for (const run of rounds) for (const [code, n] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const perAnswer = (pick: (r: RoundRun) => number | undefined) => mid((r) => ((pick(r) ?? Number.NaN) * 1000) / r.answers);
  const side = server.sidePid ? { sideCpuUsPerAnswer: perAnswer((r) => r.sideCpuMs) } : {};
  const medians = { okPerSec: mid((r) => r.okPerSec), p50Ms: mid((r) => r.p50Ms), p99Ms: mid((r) => r.p99Ms) };
  const counts = { answers: sum('answers'), unexpected: sum('unexpected'), errors: sum('errors'), timeouts: sum('timeouts'), statusCodes };
  const cpu = { peakRss: memoryOf(server.child).peakRss, serverCpuUsPerAnswer: perAnswer((r) => r.serverCpuMs), ...side };
  const cores = { serverCores: mid((r) => r.serverCpuMs / 1000 / r.seconds), loadGenCores: mid((r) => r.loadGenCpuMs / 1000 / r.seconds) };
  return { scenario: scenario.id, server: server.id, ...medians, ...counts, ...cpu, ...cores, rounds };
}

/** Per scenario `settings.rounds` rounds on every server (`roundOrder`: the servers a ratio pairs, back to back), each run warmed up: a row per server. */
function loadPhase(starts: Starter<RunningServer>[], scenarios: Scenario[], settings: BenchSettings, log: Log): Promise<LoadRow[]> {
  return withServers(starts, async (servers) => {
    const proxy = servers.find((s) => s.id === 'proxy');
    const rows: LoadRow[] = [];
    for (const scenario of scenarios) {
      const before = proxy && (await judgingOf(proxy.url));
      const runs = new Map<RunningServer, RoundRun[]>(servers.map((s) => [s, []]));
      for (let round = 0; round < settings.rounds; round++)
        for (const server of roundOrder(servers, round)) {
          runs.get(server)?.push(await measuredRun(server, scenario, settings));
          if (server.child.hasExited()) throw new Error(`${server.id} exited during the load; its output:\n${server.child.output()}`);
        }
      const after = proxy && (await judgingOf(proxy.url));
      for (const server of servers) {
        const row = rowOf(scenario, server, runs.get(server) ?? []);
        if (server === proxy && before && after)
          row.judging = { judged: after.judged - before.judged, notJudged: after.notJudged - before.notJudged };
        const { okPerSec, p50Ms, p99Ms } = row;
        log(`${scenario.id} ${server.id}: ${Math.round(okPerSec)} req/s, p50 ${p50Ms.toFixed(2)} ms, p99 ${p99Ms.toFixed(2)} ms`);
        rows.push(row);
      }
    }
    return rows;
  });
}

/** Lot-transfer creates of one mock in memory against the same mock on Redis (`appendfsync always`, its CPU measured too). */
async function redisPhase(settings: BenchSettings, transfer: Scenario, log: Log): Promise<RedisStoreResult> {
  const redis = await startRedis({ appendfsync: 'always' });
  try {
    const onRedis = async () => ({ ...(await startServer('mock', transfer, undefined, ['--store', redis.url])), sidePid: redis.pid() });
    const [memory, onRedisRow] = await loadPhase([() => startServer('mock', transfer), onRedis], [transfer], settings, log);
    if (!memory || !onRedisRow) throw new Error('no rows');
    return { memory, redis: onRedisRow };
  } finally {
    await redis.dispose();
  }
}

/** Each ratio: the median of its rounds' own (the machine's speed swings between rounds); a goal's also its lowest and highest (`spread`). */
export function ratiosOf(rows: readonly LoadRow[], scenarios: readonly Scenario[]): ScenarioRatios[] {
  const rps = (x: RoundRun, y: RoundRun): number | null => (y.okPerSec > 0 ? x.okPerSec / y.okPerSec : null);
  return scenarios.map(({ id: scenario }) => {
    const row = (server: ServerId): LoadRow | undefined => rows.find((r) => r.scenario === scenario && r.server === server);
    const spread: NonNullable<ScenarioRatios['spread']> = {};
    const paired = (a: ServerId, b: ServerId, of: (x: RoundRun, y: RoundRun) => number | null, goal?: GoalRatio): number | null => {
      const [over, under] = [row(a)?.rounds ?? [], row(b)?.rounds ?? []];
      const each = over.flatMap((x, i) => (under[i] === undefined ? [] : [of(x, under[i])])).filter((v) => v !== null);
      if (goal && each.length > 1) spread[goal] = [Math.min(...each), Math.max(...each)];
      return each.length === 0 ? null : median(each);
    };
    const [mockOverBare, proxyOverFloor] = [paired('mock', 'bare', rps, 'mockOverBare'), paired('proxy', 'floor', rps, 'proxyOverFloor')];
    const proxyAddedP99Ms = paired('proxy', 'floor', (x, y) => x.p99Ms - y.p99Ms, 'proxyAddedP99Ms');
    const [mockOverPrism, floorOverBare] = [paired('mock', 'prism', rps), paired('floor', 'bare', rps)];
    return { scenario, mockOverBare, mockOverPrism, proxyOverFloor, proxyAddedP99Ms, floorOverBare, spread };
  });
}

const wrongly = (r: LoadRow): string =>
  `${r.server} answered ${wrongOf(r)} ${r.scenario} requests wrongly or not at all (${JSON.stringify(r.statusCodes)})`;
/** What a measured value shows wrong: problems of the run. */
const CHECKS = {
  conformance: (c: ConformanceTiming) => [c.exitCode === 0 ? '' : `exited ${c.exitCode}`, c.reportProblem ?? ''].filter(Boolean),
  timeToVerdict: (runs: TimeToVerdictRun[]) =>
    runs.filter((r) => r.exitCode !== 0).map((r) => `at ${r.latencyMs} ms, --concurrency ${r.asked}, exited ${r.exitCode ?? '?'}`),
  records: (r: RecordsResult) => (r.wrong > 0 ? [`${r.wrong} wrong answers or errors`] : []),
  redisStore: ({ memory, redis }: RedisStoreResult) =>
    wrongOf(memory) + wrongOf(redis) > 0 ? [`${wrongOf(memory)} wrong answers in memory, ${wrongOf(redis)} on Redis`] : [],
  load: (rows: LoadRow[]) => rows.filter((r) => wrongOf(r) > 0).map(wrongly),
};

/** Spawn to first answer of the mock's CLI, `npm start` (what a frontend developer types: npm, its prestart check, the CLI) and Prism. */
async function startupPhase(runs: number, probe: Scenario): Promise<StartupResult> {
  const mock = (port: number) => projectCli('mock/cli', ['--port', String(port), '--quiet']);
  const commands = { mock, 'npm start': npmStartCommand, prism: prismCommand };
  const of = async (name: keyof typeof commands) => {
    const starts: { ms: number; rss: number }[] = [];
    const timed = () => startAndTime(`${name} (start-up)`, commands[name], probe);
    for (let run = 0; run < runs; run++)
      starts.push(await withServer(timed, ({ child, ms }) => Promise.resolve({ ms, rss: memoryOf(child).rss })));
    return { medianMs: median(starts.map((s) => s.ms)), rss: median(starts.map((s) => s.rss)) };
  };
  return { runs, mock: await of('mock'), npmStart: await of('npm start'), prism: await of('prism') };
}

/** Runs the whole bench with `settings`; progress goes to `log`. */
export async function runBench(settings: BenchSettings, log: Log = () => undefined): Promise<BenchReport> {
  const startedAt = performance.now();
  const problems: string[] = [];
  /** Runs `measure` unless `skipped` says why not; a failure is a problem, not thrown, and so is what `check` finds in its value. */
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
    const starts = settings.servers.map((id): Starter<RunningServer> => async (before) => {
      const server = await startServer(id, probe, before.find((s) => s.id === 'bare')?.url);
      log(`started ${id} at ${server.url}`);
      return server;
    });
    const rows = await loadPhase(starts, scenarios, settings, log);
    problems.push(...CHECKS.load(rows));
    const ratios = ratiosOf(rows, scenarios);
    const s = settings;
    const startup = await phase('start-up times', s.startupRuns < 1 && 'startup runs set to 0', () => startupPhase(s.startupRuns, probe));
    const startMock = () => startServer('mock', probe);
    const withMock = <T>(use: (target: Target) => Promise<T>): Promise<T> =>
      withServer(startMock, ({ url }) => use({ baseUrl: url, token: BENCH_TOKEN, orderNumber: fixture.orderNumber }));
    const noConformance = !s.conformance && 'conformance timing turned off';
    const conformance = await phase('the strict conformance run', noConformance, () => withMock(timeConformance), CHECKS.conformance);
    const selfTest = await phase("the suite's self-test", !s.selfTest && 'self-test turned off', () => runSelfTestCli());
    const noVerdict = noConformance || (s.verdictLatenciesMs.length === 0 && 'no latencies (--verdict-latencies none)');
    const verdict = (target: Target) => measureTimeToVerdict(target, s.verdictLatenciesMs, log);
    const timeToVerdict = await phase('time to verdict', noVerdict, () => withMock(verdict), CHECKS.timeToVerdict);
    const noMock = !s.servers.includes('mock') && 'the mock is not benched';
    const noTransfers = noMock || (s.transfers < 1 && 'no transfers to record');
    const plan = { count: s.transfers, warmup: Math.min(2000, Math.max(50, Math.round(s.transfers / 50))), connections: s.connections };
    const recordsOf = () => measureRecords(transfer, probe, { ...plan, capMs: 45_000 });
    const records = await phase(`memory per record (${s.transfers} transfers) and replay`, noTransfers, recordsOf, CHECKS.records);
    const noRedis = noMock || (!redisAvailable() && 'redis-server is not installed (node scripts/prerequisites.mjs installs it)');
    const redisOf = () => redisPhase(settings, transfer, log);
    const redisStore = await phase('creates on the Redis store against memory', noRedis, redisOf, CHECKS.redisStore);
    const measured = { startup, conformance, selfTest, timeToVerdict, records };
    const [cpu, platform] = [cpus()[0], `${process.platform} ${process.arch}`];
    const machine = { cpus: cpus().length, cpuModel: cpu?.model ?? 'unknown', node: process.version, platform, memoryBytes: totalmem() };
    const targets = evaluateTargets({ connections: s.connections, rows, ratios, ...measured, replayRecords: REPLAY_TARGET_RECORDS });
    const [date, elapsedMs] = [new Date().toISOString(), performance.now() - startedAt];
    return { date, machine, settings, load: { rows, ratios }, ...measured, redisStore, targets, problems, elapsedMs };
  } finally {
    await stopAll();
  }
}
