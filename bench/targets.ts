/** The bench's targets, judged (`met` null: not measurable; why in `note`); each speed target is a ratio in one run (noisy machines). */
import { killRate, type TimeToVerdictRun } from './conformance-run.js';
import { wrongOf } from './load.js';
import { ratio as times, type BenchReport, type LoadRow, type ScenarioRatios, type TargetResult } from './report.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';

/** `connections`: the load's (the proxy's p99 target is stated at 50); `replayRecords`: the journal the replay target is about. */
export type TargetInputs = Pick<BenchReport, 'startup' | 'conformance' | 'selfTest' | 'timeToVerdict' | 'records'> &
  Pick<BenchReport['load'], 'rows' | 'ratios'> & { connections?: number; replayRecords: number };

/** The mock's goals against the bare server (a read, a create); the validating proxy's against the floor, at 50 connections. */
export const MOCK_OVER_BARE = { read: 0.9, create: 0.7 } as const;
export const PROXY_OVER_FLOOR = 0.85;
export const PROXY_ADDED_P99_MS = 2;
const PROXY_CONNECTIONS = 50;

/** `GET order info`, `POST lot-transfer create`: a scenario's title. */
const titleOf = (s: ScenarioId): string =>
  s.startsWith('create-') ? `POST ${s.slice(7)} create` : `GET ${s.replace(/^get-/, '').replaceAll('-', ' ')}`;
export const isRead = (scenario: ScenarioId): boolean => scenario === 'get-order-info';
type Goal = { id: string; target: string };
const missing = (goal: Goal, note: string, measured = '—'): TargetResult => ({ ...goal, measured, met: null, note });
const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const bytes = (v: number): string => `${Math.round(v)} B`;
const seconds = (v: number): string => `${(v / 1000).toFixed(1)} s`;
const unmeasured = (who: string): string => `${who} not measured`;
const notMet = (result: TargetResult, note: string): TargetResult => ({ ...result, met: false, note });

type Bound = ['>=' | '<=', number];
const meets = (value: number, [op, bound]: Bound): boolean => (op === '>=' ? value >= bound : value <= bound);
const SPLIT = ', on both sides of the goal: this run alone does not settle it';

/** `value` against a bound, shown with `format` (and its digits when it prints as the bound: "0.85× (0.8493)"); n/a with `why` without a value; a ratio's lowest and highest round (`spread`) noted. */
function judge(goal: Goal, value: number | null | undefined, bound: Bound, format: (v: number) => string, why = '', spread?: number[]) {
  if (value == null || !Number.isFinite(value)) return missing(goal, why || 'no value was measured');
  const [low = value, high = value] = spread ?? [];
  const shown = (v: number) => (format(v) !== format(bound[1]) || v === bound[1] ? format(v) : `${format(v)} (${v.toPrecision(4)})`);
  const note = spread && { note: `rounds ${shown(low)} to ${shown(high)}${meets(low, bound) === meets(high, bound) ? '' : SPLIT}` };
  return { ...goal, measured: shown(value), met: meets(value, bound), ...note };
}

/** A row that answered wrongly cannot meet a speed target. */
function guardErrors(result: TargetResult, row: LoadRow | undefined, who = 'the mock'): TargetResult {
  const bad = row && result.met === true ? wrongOf(row) : 0;
  return bad > 0 ? notMet(result, `${who} answered ${bad} requests wrongly or not at all`) : result;
}

/** The CPU a request of the proxy, the floor and bare, and what it judged; a proxy that left some unjudged meets no target. */
function proxyNote(result: TargetResult, rowOf: (server: ServerId) => LoadRow | undefined): TargetResult {
  const proxy = rowOf('proxy');
  if (!proxy || result.met === null) return result;
  const [servers, { judging }] = [(['proxy', 'floor', 'bare'] as const).filter((s) => rowOf(s)), proxy];
  const cpu = `CPU a request: ${servers.map((s) => `${s} ${Math.round(rowOf(s)?.serverCpuUsPerAnswer ?? NaN)} µs`).join(', ')}`;
  const notes = [result.note, cpu, judging && `${judging.judged} exchanges judged, ${judging.notJudged} not`].filter(Boolean).join('; ');
  const guarded = guardErrors(result, proxy, 'the proxy');
  if (guarded !== result) return { ...guarded, note: `${guarded.note ?? ''}; ${notes}` };
  if (result.met && judging && judging.notJudged > 0)
    return notMet(result, `${judging.notJudged} exchanges forwarded unjudged (the judging queue was full); ${notes}`);
  return { ...result, note: notes };
}

function loadTargets(inputs: TargetInputs, ratio: ScenarioRatios): TargetResult[] {
  const { scenario: s, spread } = ratio;
  const title = titleOf(s);
  const rowOf = (server: ServerId): LoadRow | undefined => inputs.rows.find((r) => r.scenario === s && r.server === server);
  const goal = isRead(s) ? MOCK_OVER_BARE.read : MOCK_OVER_BARE.create;
  const overBare = { id: `${s}/mock-over-bare`, target: `${title}: mock ≥ ${goal} × bare node:http req/s` };
  const p99 = { id: `${s}/p99`, target: 'GET order info: mock p99 ≤ 5 ms at the bench connections' };
  const overPrism = { id: `${s}/mock-over-prism`, target: `${title}: mock ≥ 10 × Prism req/s` };
  const mock = [
    judge(overBare, ratio.mockOverBare, ['>=', goal], times, unmeasured('the mock or the bare server was'), spread?.mockOverBare),
    ...(isRead(s) ? [judge(p99, rowOf('mock')?.p99Ms, ['<=', 5], ms, unmeasured('the mock was'))] : []),
    judge(overPrism, ratio.mockOverPrism, ['>=', 10], times, unmeasured('the mock or Prism was')),
  ].map((result) => guardErrors(result, rowOf('mock')));
  const why = unmeasured('the proxy or the floor was');
  const proxyIs = `${title}: validating proxy`;
  const floor = { id: `${s}/proxy-over-floor`, target: `${proxyIs} ≥ ${PROXY_OVER_FLOOR} × the floor's req/s (a minimal undici proxy)` };
  const p99Target = `${proxyIs} adds ≤ ${PROXY_ADDED_P99_MS} ms to the floor's p99 at ${PROXY_CONNECTIONS} connections`;
  const added = { id: `${s}/proxy-added-p99`, target: p99Target };
  const addedMs = ratio.proxyAddedP99Ms;
  const addedResult =
    addedMs != null && inputs.connections !== PROXY_CONNECTIONS
      ? missing(added, `measured at ${inputs.connections ?? 'an unknown number of'} connections`, ms(addedMs))
      : judge(added, addedMs, ['<=', PROXY_ADDED_P99_MS], ms, why, spread?.proxyAddedP99Ms);
  const floorResult = judge(floor, ratio.proxyOverFloor, ['>=', PROXY_OVER_FLOOR], times, why, spread?.proxyOverFloor);
  return [...mock, proxyNote(floorResult, rowOf), proxyNote(addedResult, rowOf)];
}

function startupTargets({ startup }: TargetInputs): TargetResult[] {
  const mock = { id: 'startup', target: 'Mock start-up to first answer ≤ 300 ms' };
  const npm = { id: 'npm-start', target: '`npm start` to first answer ≤ 2 s (dist/ current)' };
  if (startup.status !== 'measured') return [missing(mock, startup.reason), missing(npm, startup.reason)];
  const { runs, npmStart, ...s } = startup.value;
  return [
    { ...judge(mock, s.mock.medianMs, ['<=', 300], ms), note: `median of ${runs}; Prism: ${ms(s.prism.medianMs)}` },
    npmStart ? { ...judge(npm, npmStart.medianMs, ['<=', 2000], ms), note: `median of ${runs}` } : missing(npm, 'the CLI is not built'),
  ];
}

function recordTargets({ records, replayRecords }: TargetInputs): TargetResult[] {
  const rss = '≤ 1 KiB of RSS per recorded record';
  const replay = { id: 'replay', target: `Replay of ${replayRecords.toLocaleString('en-US')} journaled records ≤ 1 s` };
  const live = { id: 'rss-per-record', target: rss };
  const replayed = { id: 'rss-per-record-replayed', target: `${rss}, after a restart from the journal` };
  if (records.status !== 'measured') return [replay, live, replayed].map((t) => missing(t, records.reason));
  const r = records.value;
  const [replayResult, heap] = [judge(replay, r.replay.replayStartMs, ['<=', 1000], ms), bytes(r.heapBytesPerRecord)];
  return [
    r.totalRecorded < replayRecords
      ? missing(replay, `only ${r.totalRecorded} records were journaled in this run`, ms(r.replay.replayStartMs))
      : r.replay.recordsReplayed
        ? { ...replayResult, note: `spawn → first answer; empty start: ${ms(r.replay.emptyStartMs)}` }
        : notMet(replayResult, 'the restarted mock did not continue the ids: the journal was not replayed'),
    { ...judge(live, r.rssBytesPerRecord, ['<=', 1024], bytes), note: `recorded live, after a full GC; V8 heap: ${heap}/record` },
    { ...judge(replayed, r.replay.rssBytesPerRecord, ['<=', 1024], bytes), note: 'RSS after replay and a full GC, minus an empty start' },
  ];
}

/** The strict run against the mock: ≤ 5 s, and ≤ 2 s with its requests stated; a run that did not pass meets neither. */
function conformanceTargets({ conformance }: TargetInputs): TargetResult[] {
  const five = { id: 'conformance', target: 'Strict conformance run against a running mock ≤ 5 s wall, including process start' };
  const two = { id: 'conformance-2s', target: 'Strict run against the mock ≤ 2 s wall, including process start (requests stated)' };
  if (conformance.status !== 'measured') return [missing(five, conformance.reason), missing(two, conformance.reason)];
  const { report, reportProblem, wallMs, exitCode } = conformance.value;
  const failed = exitCode === 0 ? undefined : `the run did not pass (exit code ${exitCode})`;
  const requests =
    report === null
      ? `requests unknown: ${reportProblem ?? 'no report'}`
      : `${report.requests ?? 'an unknown number of'} requests, ${report.checks} checks, ${report.cases} cases; the suite's own run ${ms(report.durationMs)}`;
  const [fiveResult, twoResult] = [judge(five, wallMs, ['<=', 5000], ms), judge(two, wallMs, ['<=', 2000], ms)];
  if (failed === undefined) return [fiveResult, { ...twoResult, note: requests }];
  return [notMet(fiveResult, failed), notMet(twoResult, `${failed}; ${requests}`)];
}

function selfTestTarget({ selfTest }: TargetInputs): TargetResult {
  const goal = { id: 'self-test', target: 'Self-test kill rate = 100% (the reference server passing)' };
  if (selfTest.status !== 'measured') return missing(goal, selfTest.reason);
  const s = selfTest.value;
  if (s.total === 0) return missing(goal, 'the contract gave no fault to generate', killRate(s));
  const shown = s.survivors.slice(0, 3).join('; ');
  const note =
    s.killed < s.total
      ? `${s.total - s.killed} survived${shown ? `: ${shown}` : ''}${s.survivors.length > 3 ? '; …' : ''}`
      : s.exitCode !== 0
        ? `${s.referenceFailures.join('; ') || 'the self-test did not pass'} (exit code ${s.exitCode})`
        : `in ${s.seconds.toFixed(1)} s`;
  return { ...goal, measured: killRate(s), met: s.killed === s.total && s.exitCode === 0, note };
}

/** A strict run against a server delaying every answer by 1 s ends within 60 s at the default --concurrency, beside the sequential run. */
function timeToVerdictTarget({ timeToVerdict: measured }: TargetInputs): TargetResult {
  const target = 'Strict run against a server delaying every answer by 1 s ≤ 60 s at the default --concurrency';
  const goal = { id: 'time-to-verdict', target };
  if (measured.status !== 'measured') return missing(goal, measured.reason);
  const at = (asked: TimeToVerdictRun['asked']) => measured.value.find((r) => r.latencyMs === 1000 && r.asked === asked);
  const [run, sequential] = [at('default'), at(1)];
  if (!run) return missing(goal, 'no run at 1 s latency (--verdict-latencies)');
  const result = judge(goal, run.wallMs, ['<=', 60_000], seconds);
  if (run.exitCode !== 0) return notMet(result, `the run did not pass (exit code ${run.exitCode ?? 'none'})`);
  const share = sequential ? `${(run.wallMs / sequential.wallMs).toFixed(2)} of the sequential run's ${seconds(sequential.wallMs)} ` : '';
  return { ...result, note: `${share}(--concurrency ${run.concurrency ?? '?'})` };
}

export function evaluateTargets(inputs: TargetInputs): TargetResult[] {
  return [
    ...inputs.ratios.flatMap((ratio) => loadTargets(inputs, ratio)),
    ...startupTargets(inputs),
    ...recordTargets(inputs),
    ...conformanceTargets(inputs),
    selfTestTarget(inputs),
    timeToVerdictTarget(inputs),
  ];
}
