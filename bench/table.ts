/** The bench report as text: the load table, the ratios, the other measurements and the targets. */
import { wrongOf } from './load.js';
import type { LoadRow } from './measurements.js';
import type { BenchReport } from './report.js';
import { killRate } from './self-test-run.js';
import { sequentialOf, VERDICT_CONCURRENCIES, type TimeToVerdictResult } from './time-to-verdict.js';

const MiB = 1024 * 1024;

function pad(cells: string[], widths: number[], alignRight: boolean[]): string {
  return cells
    .map((cell, i) => (alignRight[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
    .join('  ')
    .trimEnd();
}

/** Lays out rows of cells in aligned columns (first row: the header). */
export function columns(rows: string[][], alignRight: boolean[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => pad(r, widths, alignRight)).join('\n');
}

const num = (v: number, digits = 0): string =>
  Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';
const mib = (bytes: number): string => (Number.isFinite(bytes) && bytes > 0 ? `${(bytes / MiB).toFixed(1)} MiB` : '—');
const ratio = (v: number | null): string => (v === null ? '—' : `${v.toFixed(2)}×`);
const verdict = (met: boolean | null): string => (met === null ? 'n/a' : met ? 'met' : 'NOT MET');

/** The time-to-verdict table: a row per latency, a column per concurrency; seconds, and the speed-up over the sequential run. */
export function formatTimeToVerdict(result: TimeToVerdictResult): string {
  const label = (asked: number | undefined): string =>
    asked === undefined ? `default (${result.defaultConcurrency ?? '?'})` : `--concurrency ${asked}`;
  const rows: string[][] = [['latency', ...VERDICT_CONCURRENCIES.map(label)]];
  for (const latencyMs of [...new Set(result.runs.map((r) => r.latencyMs))]) {
    const sequential = sequentialOf(result, latencyMs);
    rows.push([
      latencyMs >= 1000 ? `${num(latencyMs / 1000, latencyMs % 1000 === 0 ? 0 : 1)} s` : `${latencyMs} ms`,
      ...VERDICT_CONCURRENCIES.map((asked) => {
        const run = result.runs.find((r) => r.latencyMs === latencyMs && r.asked === (asked ?? 'default'));
        if (!run) return '—';
        const speedUp = sequential && asked !== 1 ? ` (${ratio(sequential.wallMs / run.wallMs)})` : '';
        return `${num(run.wallMs / 1000, 1)} s${speedUp}${run.exitCode === 0 ? '' : ` exit ${run.exitCode ?? '?'} !`}`;
      }),
    ]);
  }
  return columns(rows, [false, true, true, true]);
}

function wrong(row: LoadRow): string {
  const bad = wrongOf(row);
  return bad === 0 ? '0' : `${bad} !`;
}

/**
 * The validating proxy's cost, one line: its CPU per request next to the bare server's for each
 * scenario, and how many exchanges it judged (and forwarded unjudged); undefined without a proxy row.
 */
export function formatProxyCost(report: BenchReport): string | undefined {
  const parts: string[] = [];
  let judged = 0;
  let notJudged = 0;
  for (const { scenario } of report.load.ratios) {
    const proxy = report.load.rows.find((r) => r.scenario === scenario && r.server === 'proxy');
    if (!proxy) continue;
    const bare = report.load.rows.find((r) => r.scenario === scenario && r.server === 'bare');
    const times = bare && bare.serverCpuUsPerAnswer > 0 ? `, ${ratio(proxy.serverCpuUsPerAnswer / bare.serverCpuUsPerAnswer)}` : '';
    parts.push(`${scenario} ${num(proxy.serverCpuUsPerAnswer)} µs (bare ${bare ? num(bare.serverCpuUsPerAnswer) : '—'} µs${times})`);
    judged += proxy.judging?.judged ?? 0;
    notJudged += proxy.judging?.notJudged ?? 0;
  }
  if (parts.length === 0) return undefined;
  return `Validating proxy, CPU a request: ${parts.join(', ')}; exchanges judged ${num(judged)}, forwarded unjudged ${num(notJudged)}`;
}

export function formatReport(report: BenchReport): string {
  const s = report.settings;
  const out: string[] = [];
  out.push(
    `Bench ${report.date} — ${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}, loopback, load generator on the same cores`,
    `Load: ${s.connections} connections, pipelining 1, warm-up ${s.warmupMs / 1000} s, then ${s.rounds} round(s) × ${s.durationMs / 1000} s per server, servers alternating; median of rounds.`,
    '',
  );
  const header = [
    'scenario',
    'server',
    'req/s',
    'p50 ms',
    'p99 ms',
    'peak RSS',
    'CPU µs/req',
    'srv cores',
    'gen cores',
    'wrong/failed',
    'mock/bare',
    'mock/prism',
    'proxy/bare',
    'proxy +p99',
  ];
  const rows: string[][] = [header];
  for (const ratioRow of report.load.ratios) {
    const scenarioRows = report.load.rows.filter((r) => r.scenario === ratioRow.scenario);
    scenarioRows.forEach((row, i) => {
      rows.push([
        i === 0 ? row.scenario : '',
        row.server,
        num(row.okPerSec),
        num(row.p50Ms, 2),
        num(row.p99Ms, 2),
        mib(row.peakRss),
        num(row.serverCpuUsPerAnswer),
        num(row.serverCores, 2),
        num(row.loadGenCores, 2),
        wrong(row),
        row.server === 'mock' ? ratio(ratioRow.mockOverBare) : '',
        row.server === 'mock' ? ratio(ratioRow.mockOverPrism) : '',
        row.server === 'proxy' ? ratio(ratioRow.proxyOverBare ?? null) : '',
        row.server === 'proxy' && ratioRow.proxyAddedP99Ms != null ? `${num(ratioRow.proxyAddedP99Ms, 2)} ms` : '',
      ]);
    });
  }
  out.push(columns(rows, [false, false, true, true, true, true, true, true, true, true, true, true, true, true]), '');
  const proxyLine = formatProxyCost(report);
  if (proxyLine !== undefined) out.push(proxyLine, '');

  if (report.startup.status === 'measured') {
    const st = report.startup.value;
    out.push(
      `Start-up to first answer (median of ${st.mockMs.length}): mock ${num(st.mockMedianMs)} ms (${st.mockCommand}, RSS ${mib(st.mockRss)}), npm start ${st.npmStartMs.length > 0 ? `${num(st.npmStartMedianMs)} ms` : 'not measured'}, Prism ${num(st.prismMedianMs)} ms (RSS ${mib(st.prismRss)})`,
    );
  } else out.push(`Start-up: ${report.startup.status}: ${report.startup.reason}`);
  if (report.conformance.status === 'measured') {
    const c = report.conformance.value;
    const sent =
      c.report === null
        ? `requests unknown (${c.reportProblem ?? 'no report'})`
        : `${c.report.requests === null ? 'an unknown number of' : num(c.report.requests)} requests for ${num(c.report.checks)} checks (${num(c.report.cases)} cases)`;
    out.push(`Strict conformance run against a running mock: ${num(c.wallMs)} ms wall, ${sent} (exit code ${c.exitCode})`);
  } else out.push(`Strict conformance run: ${report.conformance.status}: ${report.conformance.reason}`);
  if (report.selfTest.status === 'measured') {
    const t = report.selfTest.value;
    out.push(`Self-test: killed ${killRate(t)} in ${num(t.seconds, 1)} s (${num(t.wallMs / 1000, 1)} s wall, exit code ${t.exitCode})`);
  } else out.push(`Self-test: ${report.selfTest.status}: ${report.selfTest.reason}`);
  if (report.timeToVerdict.status === 'measured')
    out.push(
      '',
      'Time to verdict: a strict run (process start included) against the mock behind a proxy delaying every answer, errors too; (×: speed-up over --concurrency 1)',
      formatTimeToVerdict(report.timeToVerdict.value),
      '',
    );
  else out.push(`Time to verdict: ${report.timeToVerdict.status}: ${report.timeToVerdict.reason}`);
  if (report.records.status === 'measured') {
    const r = report.records.value;
    out.push(
      `Records: ${num(r.recorded)} transfers in ${num(r.seconds, 1)} s (${num(r.perSec)}/s with --state-file), journal ${mib(r.journalBytes)}; ` +
        `RSS ${mib(r.baseline.rss)} → ${mib(r.after.rss)} after GC = ${num(r.rssBytesPerRecord)} B/record (V8 heap ${num(r.heapBytesPerRecord)} B/record)`,
      `Replay of ${num(r.totalRecorded)} records: spawn → first answer ${num(r.replay.replayStartMs)} ms (empty journal: ${num(r.replay.emptyStartMs)} ms), ` +
        `RSS ${mib(r.replay.replayMemory.rss)} vs ${mib(r.replay.emptyMemory.rss)} empty = ${num(r.replay.rssBytesPerRecord)} B/record; ` +
        `next id ${r.replay.nextId ?? '—'} (${r.replay.recordsReplayed ? 'ids continue' : 'JOURNAL NOT REPLAYED'})`,
    );
  } else out.push(`Records and replay: ${report.records.status}: ${report.records.reason}`);
  if (report.redisStore.status === 'measured') {
    const r = report.redisStore.value;
    const storeRows = [
      ['create-lot-transfer', 'req/s', 'p99 ms', 'mock CPU µs/create', 'Redis CPU µs/create'],
      ['mock, memory store', num(r.memory.okPerSec), num(r.memory.p99Ms, 2), num(r.memory.mockCpuUsPerCreate), '—'],
      [
        `mock, Redis store (appendfsync ${r.appendfsync})`,
        num(r.redis.okPerSec),
        num(r.redis.p99Ms, 2),
        num(r.redis.mockCpuUsPerCreate),
        num(r.redis.redisCpuUsPerCreate),
      ],
    ];
    out.push(
      '',
      columns(storeRows, [false, true, true, true, true]),
      `Redis store ÷ memory store: ${ratio(r.ratio)} of the creates per second`,
    );
  } else out.push(`Redis store: ${report.redisStore.status}: ${report.redisStore.reason}`);
  out.push('');

  const targetRows = [['target', 'measured', 'verdict']];
  for (const t of report.targets) targetRows.push([t.target, t.measured, `${verdict(t.met)}${t.note ? ` (${t.note})` : ''}`]);
  out.push(columns(targetRows, [false, true, false]));
  if (report.problems.length > 0) out.push('', 'Problems:', ...report.problems.map((p) => `  - ${p}`));
  out.push('', `Bench took ${num(report.elapsedMs / 1000, 1)} s.`);
  return out.join('\n');
}
