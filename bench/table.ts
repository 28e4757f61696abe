/** The bench report as text: the load table, the proxy's cost, the regression line, the other measurements and the targets. */
import { type ConformanceTiming, killRate, type TimeToVerdictRun, VERDICT_CONCURRENCIES } from './conformance-run.js';
import { wrongOf } from './load.js';
import type { RecordsResult } from './records.js';
import { mib, num, ratio, type BenchReport, type LoadRow, type Measured, type PreviousRatios } from './report.js';
import type { RedisStoreResult, ScenarioRatios, StartupResult } from './report.js';
import { isRead, MOCK_OVER_BARE, PROXY_ADDED_P99_MS, PROXY_OVER_FLOOR } from './targets.js';

/** Lays out rows of cells in aligned columns (first row: the header); `alignRight[i]` for column i. */
export function columns(rows: string[][], alignRight: boolean[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string[] => cells.map((c, i) => (alignRight[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)));
  return rows.map((r) => line(r).join('  ').trimEnd()).join('\n');
}

const addedMs = (v: number | null | undefined): string => (v == null ? '—' : `${num(v, 2)} ms`);

/** The validating proxy's CPU a request beside the floor's and the bare server's, and what it judged; undefined without a proxy row. */
export function formatProxyCost({ load }: BenchReport): string | undefined {
  const rowOf = (scenario: string, server: string) => load.rows.find((r) => r.scenario === scenario && r.server === server);
  const cpu = (scenario: string, server: string): string => num(rowOf(scenario, server)?.serverCpuUsPerAnswer);
  const proxied = load.ratios.map((r) => r.scenario).filter((s) => rowOf(s, 'proxy'));
  if (proxied.length === 0) return undefined;
  const sum = (key: 'judged' | 'notJudged'): string => num(proxied.reduce((n, s) => n + (rowOf(s, 'proxy')?.judging?.[key] ?? 0), 0));
  const parts = proxied.map((s) => `${s} ${cpu(s, 'proxy')} µs (floor ${cpu(s, 'floor')} µs, bare ${cpu(s, 'bare')} µs)`);
  return `Validating proxy, CPU a request: ${parts.join(', ')}; exchanges judged ${sum('judged')}, forwarded unjudged ${sum('notJudged')}`;
}

/** The regression line: the goals' ratios per scenario, each beside the previous run's (the last `reports/bench.json`). */
export function formatRegression(ratios: readonly ScenarioRatios[], previous?: PreviousRatios): string {
  const parts = ratios.map((r) => {
    const before = previous?.ratios.find((p) => p.scenario === r.scenario);
    const cell = (name: string, key: keyof Omit<ScenarioRatios, 'scenario' | 'spread'>, goal: string, show = ratio): string =>
      `${name} ${show(r[key])}${before === undefined ? '' : ` (was ${show(before[key])})`} ${goal}`;
    const mock = cell('mock/bare', 'mockOverBare', `≥ ${isRead(r.scenario) ? MOCK_OVER_BARE.read : MOCK_OVER_BARE.create}`);
    const proxy = [
      cell('proxy/floor', 'proxyOverFloor', `≥ ${PROXY_OVER_FLOOR}`),
      cell('+p99', 'proxyAddedP99Ms', `≤ ${PROXY_ADDED_P99_MS} ms`, addedMs),
    ];
    return `${r.scenario}: ${[mock, ...(r.proxyOverFloor != null || r.proxyAddedP99Ms != null ? proxy : [])].join(', ')}`;
  });
  return `Regression line${previous ? ` (was: the run of ${previous.date})` : ''}: ${parts.join('; ')}`;
}

/** The load table's columns: header and cell of a row (`first`: the scenario's first row). */
const COLUMNS: [string, (row: LoadRow, r: ScenarioRatios, first: boolean) => string][] = [
  ['scenario', (row, _r, first) => (first ? row.scenario : '')],
  ['server', (row) => row.server],
  ['req/s', (row) => num(row.okPerSec)],
  ['p50 ms', (row) => num(row.p50Ms, 2)],
  ['p99 ms', (row) => num(row.p99Ms, 2)],
  ['peak RSS', (row) => mib(row.peakRss)],
  ['CPU µs/req', (row) => num(row.serverCpuUsPerAnswer)],
  ['cores srv/gen', (row) => `${num(row.serverCores, 2)}/${num(row.loadGenCores, 2)}`],
  ['wrong/failed', (row) => (wrongOf(row) === 0 ? '0' : `${wrongOf(row)} !`)],
  ['ratios', (row, r) => RATIO_CELLS[row.server]?.(r) ?? ''],
];
const RATIO_CELLS: Partial<Record<string, (r: ScenarioRatios) => string>> = {
  mock: (r) => `${ratio(r.mockOverBare)} bare, ${ratio(r.mockOverPrism)} prism`,
  floor: (r) => `${ratio(r.floorOverBare)} bare`,
  proxy: (r) => `${ratio(r.proxyOverFloor)} floor, +${addedMs(r.proxyAddedP99Ms)} p99`,
};

/** The time-to-verdict table: a row per latency, a column per concurrency; seconds, and the speed-up over the sequential run. */
export function formatTimeToVerdict(runs: readonly TimeToVerdictRun[]): string {
  const byDefault = runs.find((r) => r.asked === 'default')?.concurrency ?? '?';
  const rows = [['latency', ...VERDICT_CONCURRENCIES.map((c) => (c === undefined ? `default (${byDefault})` : `--concurrency ${c}`))]];
  for (const latencyMs of new Set(runs.map((r) => r.latencyMs))) {
    const at = (asked: number | undefined) => runs.find((r) => r.latencyMs === latencyMs && r.asked === (asked ?? 'default'));
    const cell = (asked: number | undefined): string => {
      const [run, sequential] = [at(asked), at(1)];
      const speedUp = sequential && run && asked !== 1 ? ` (${ratio(sequential.wallMs / run.wallMs)})` : '';
      return run ? `${num(run.wallMs / 1000, 1)} s${speedUp}${run.exitCode === 0 ? '' : ` exit ${run.exitCode ?? '?'} !`}` : '—';
    };
    const latency = latencyMs >= 1000 ? `${num(latencyMs / 1000, latencyMs % 1000 === 0 ? 0 : 1)} s` : `${latencyMs} ms`;
    rows.push([latency, ...VERDICT_CONCURRENCIES.map(cell)]);
  }
  return columns(rows, [false, true, true, true]);
}

/** The lines of a measurement, or why it is missing. */
const shown = <T>(name: string, m: Measured<T>, show: (v: T) => string[]): string[] =>
  m.status === 'measured' ? show(m.value) : [`${name}: ${m.status}: ${m.reason}`];

const startupLine = ({ runs, mock, npmStart, prism }: StartupResult): string[] => [
  `Start-up to first answer (median of ${runs}): mock ${num(mock.medianMs)} ms (goods-mock --port P --quiet, RSS ${mib(mock.rss)}), ` +
    `npm start ${npmStart ? `${num(npmStart.medianMs)} ms` : 'not measured'}, Prism ${num(prism.medianMs)} ms (RSS ${mib(prism.rss)})`,
];

function conformanceLine({ report, reportProblem, wallMs, exitCode }: ConformanceTiming): string[] {
  const { requests, checks, cases } = report ?? {};
  const sent =
    checks === undefined || cases === undefined
      ? `requests unknown (${reportProblem ?? 'no report'})`
      : `${requests == null ? 'an unknown number of' : num(requests)} requests for ${num(checks)} checks (${num(cases)} cases)`;
  return [`Strict conformance run against a running mock: ${num(wallMs)} ms wall, ${sent} (exit code ${exitCode})`];
}

const recordLines = (r: RecordsResult): string[] => [
  `Records: ${num(r.recorded)} transfers in ${num(r.seconds, 1)} s (${num(r.perSec)}/s with --state-file), journal ${mib(r.journalBytes)}; ` +
    `RSS ${mib(r.baseline.rss)} → ${mib(r.after.rss)} after GC = ${num(r.rssBytesPerRecord)} B/record (V8 heap ${num(r.heapBytesPerRecord)} B/record)`,
  `Replay of ${num(r.totalRecorded)} records: spawn → first answer ${num(r.replay.replayStartMs)} ms (empty journal: ${num(r.replay.emptyStartMs)} ms), ` +
    `RSS ${mib(r.replay.replayMemory.rss)} vs ${mib(r.replay.emptyMemory.rss)} empty = ${num(r.replay.rssBytesPerRecord)} B/record; ` +
    `next id ${r.replay.nextId ?? '—'} (${r.replay.recordsReplayed ? 'ids continue' : 'JOURNAL NOT REPLAYED'})`,
];

function redisLines({ memory, redis }: RedisStoreResult): string[] {
  const row = (n: string, r: LoadRow) => [n, num(r.okPerSec), num(r.p99Ms, 2), num(r.serverCpuUsPerAnswer), num(r.sideCpuUsPerAnswer)];
  const header = ['create-lot-transfer', 'req/s', 'p99 ms', 'mock CPU µs/create', 'Redis CPU µs/create'];
  const table = [header, row('mock, memory store', memory), row('mock, Redis store (appendfsync always)', redis)];
  const share = `Redis store ÷ memory store: ${ratio(redis.okPerSec / memory.okPerSec)} of the creates per second`;
  return ['', columns(table, [false, true, true, true, true]), share];
}

const VERDICT_TITLE =
  'Time to verdict: a strict run (process start included) against the mock behind a proxy delaying every answer, errors too; (×: speed-up over --concurrency 1)';

export function formatReport(report: BenchReport, previous?: PreviousRatios): string {
  const { settings: s, machine: m, load } = report;
  const rows = load.ratios.flatMap((r) =>
    load.rows.filter((row) => row.scenario === r.scenario).map((row, i) => COLUMNS.map(([, cell]) => cell(row, r, i === 0))),
  );
  const numeric = COLUMNS.map((_, i) => i > 1 && i < 9);
  const loadTable = columns([COLUMNS.map(([header]) => header), ...rows], numeric);
  const verdict = (met: boolean | null): string => (met === null ? 'n/a' : met ? 'met' : 'NOT MET');
  const targets = report.targets.map((t) => [t.target, t.measured, `${verdict(t.met)}${t.note ? ` (${t.note})` : ''}`]);
  return [
    `Bench ${report.date} — ${m.cpus} × ${m.cpuModel}, Node ${m.node}, loopback, load generator on the same cores`,
    `Load: ${s.connections} connections, pipelining 1, ${s.rounds} round(s) × ${s.durationMs / 1000} s per server, each after a ` +
      `${s.warmupMs / 1000}-s warm-up, servers in turn (forward, then back); median of rounds (a ratio: of its rounds' own).`,
    '',
    loadTable,
    '',
    ...[formatProxyCost(report)].filter((line) => line !== undefined),
    formatRegression(load.ratios, previous),
    '',
    ...shown('Start-up', report.startup, startupLine),
    ...shown('Strict conformance run', report.conformance, conformanceLine),
    ...shown('Self-test', report.selfTest, (t) => [
      `Self-test: killed ${killRate(t)} in ${num(t.seconds, 1)} s (${num(t.wallMs / 1000, 1)} s wall, exit code ${t.exitCode})`,
    ]),
    ...shown('Records and replay', report.records, recordLines),
    ...shown('Time to verdict', report.timeToVerdict, (runs) => ['', VERDICT_TITLE, formatTimeToVerdict(runs)]),
    ...shown('Redis store', report.redisStore, redisLines),
    '',
    columns([['target', 'measured', 'verdict'], ...targets], [false, true, false]),
    ...(report.problems.length > 0 ? ['', 'Problems:', ...report.problems.map((p) => `  - ${p}`)] : []),
    '',
    `Bench took ${num(report.elapsedMs / 1000, 1)} s.`,
  ].join('\n');
}
