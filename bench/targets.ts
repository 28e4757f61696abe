/**
 * The bench's targets, judged against the measured numbers: `met` is null when a target could not be
 * judged (a server or a measurement missing, or a run too small), with the reason in `note`. Every
 * speed target is a ratio against a reference measured in the same run (the machines are noisy).
 */
import { type ConformanceTiming, killRate, type SelfTestRun, type TimeToVerdictRun } from './conformance-run.js';
import { wrongOf } from './load.js';
import type { RecordsResult } from './records.js';
import type { LoadRow, Measured, ScenarioRatios, StartupResult, TargetResult } from './report.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';

export interface TargetInputs {
  /** The load's connections (the proxy's p99 target is stated at 50). */
  connections?: number;
  rows: readonly LoadRow[];
  ratios: readonly ScenarioRatios[];
  startup: Measured<StartupResult>;
  conformance: Measured<ConformanceTiming>;
  selfTest: Measured<SelfTestRun>;
  timeToVerdict: Measured<TimeToVerdictRun[]>;
  records: Measured<RecordsResult>;
  /** The number of journaled records the replay target is about. */
  replayRecords: number;
}

/** The mock's goals against the bare server (a read, a create); the validating proxy's against the floor, at 50 connections. */
export const MOCK_OVER_BARE = { read: 0.9, create: 0.7 } as const;
export const PROXY_OVER_FLOOR = 0.85;
export const PROXY_ADDED_P99_MS = 2;
const PROXY_CONNECTIONS = 50;

const TITLES: Record<ScenarioId, string> = {
  'get-order-info': 'GET order info',
  'create-lot-transfer': 'POST lot-transfer create',
  'create-test-sample': 'POST test-sample create',
};
export const isRead = (scenario: ScenarioId): boolean => scenario === 'get-order-info';

const missing = (id: string, target: string, note: string, measured = '—'): TargetResult => ({ id, target, measured, met: null, note });
const times = (v: number): string => `${v.toFixed(2)}×`;
const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const bytes = (v: number): string => `${Math.round(v)} B`;
const seconds = (v: number): string => `${(v / 1000).toFixed(1)} s`;

/** `value` against a bound (`>=` or `<=`), shown with `format`; n/a with `why` when there is no value. */
function judge(
  [id, target]: [string, string],
  value: number | null | undefined,
  [op, bound]: ['>=' | '<=', number],
  format: (v: number) => string,
  why = 'no value was measured',
): TargetResult {
  if (value === null || value === undefined || !Number.isFinite(value)) return missing(id, target, why);
  return { id, target, measured: format(value), met: op === '>=' ? value >= bound : value <= bound };
}

/** A row that answered wrongly cannot meet a speed target. */
function guardErrors(result: TargetResult, row: LoadRow | undefined, who = 'the mock'): TargetResult {
  const bad = row && result.met === true ? wrongOf(row) : 0;
  return bad > 0 ? { ...result, met: false, note: `${who} answered ${bad} requests wrongly or not at all` } : result;
}

/**
 * The proxy's CPU per request beside the floor's and the bare server's, and what it judged; a proxy
 * row with wrong answers, or one that forwarded exchanges unjudged (its judging queue full), cannot
 * meet a target: its speed is then not that of a validating proxy.
 */
function proxyNote(result: TargetResult, rowOf: (server: ServerId) => LoadRow | undefined): TargetResult {
  const proxy = rowOf('proxy');
  if (!proxy || result.met === null) return result;
  const cpu = (['proxy', 'floor', 'bare'] as const).flatMap((s) => {
    const row = rowOf(s);
    return row ? [`${s} ${Math.round(row.serverCpuUsPerAnswer)} µs`] : [];
  });
  const { judging } = proxy;
  const notes = [`CPU a request: ${cpu.join(', ')}`, ...(judging ? [`${judging.judged} exchanges judged, ${judging.notJudged} not`] : [])];
  const guarded = guardErrors(result, proxy, 'the proxy');
  if (guarded !== result) return { ...guarded, note: `${guarded.note ?? ''}; ${notes.join('; ')}` };
  if (result.met && judging && judging.notJudged > 0) {
    const note = `${judging.notJudged} exchanges forwarded unjudged (the judging queue was full); ${notes.join('; ')}`;
    return { ...result, met: false, note };
  }
  return { ...result, note: notes.join('; ') };
}

function loadTargets(inputs: TargetInputs, ratio: ScenarioRatios): TargetResult[] {
  const { scenario: s } = ratio;
  const title = TITLES[s] ?? s;
  const rowOf = (server: ServerId): LoadRow | undefined => inputs.rows.find((r) => r.scenario === s && r.server === server);
  const mock = rowOf('mock');
  const goal = isRead(s) ? MOCK_OVER_BARE.read : MOCK_OVER_BARE.create;
  const p99: [string, string] = [`${s}/p99`, 'GET order info: mock p99 ≤ 5 ms at the bench connections'];
  const mockResults = [
    judge(
      [`${s}/mock-over-bare`, `${title}: mock ≥ ${goal} × bare node:http req/s`],
      ratio.mockOverBare,
      ['>=', goal],
      times,
      'the mock or the bare server was not measured',
    ),
    ...(isRead(s) ? [judge(p99, mock?.p99Ms, ['<=', 5], ms, 'the mock was not measured')] : []),
    judge(
      [`${s}/mock-over-prism`, `${title}: mock ≥ 10 × Prism req/s`],
      ratio.mockOverPrism,
      ['>=', 10],
      times,
      'the mock or Prism was not measured',
    ),
  ].map((result) => guardErrors(result, mock));
  const why = 'the proxy or the floor was not measured';
  const floor: [string, string] = [
    `${s}/proxy-over-floor`,
    `${title}: validating proxy ≥ ${PROXY_OVER_FLOOR} × the floor's req/s (a minimal undici proxy)`,
  ];
  const added: [string, string] = [
    `${s}/proxy-added-p99`,
    `${title}: validating proxy adds ≤ ${PROXY_ADDED_P99_MS} ms to the floor's p99 at ${PROXY_CONNECTIONS} connections`,
  ];
  const addedMs = ratio.proxyAddedP99Ms;
  const addedResult =
    addedMs != null && inputs.connections !== PROXY_CONNECTIONS
      ? missing(...added, `measured at ${inputs.connections ?? 'an unknown number of'} connections`, ms(addedMs))
      : judge(added, addedMs, ['<=', PROXY_ADDED_P99_MS], ms, why);
  const floorResult = judge(floor, ratio.proxyOverFloor, ['>=', PROXY_OVER_FLOOR], times, why);
  return [...mockResults, proxyNote(floorResult, rowOf), proxyNote(addedResult, rowOf)];
}

function startupTargets({ startup }: TargetInputs): TargetResult[] {
  const mock: [string, string] = ['startup', 'Mock start-up to first answer ≤ 300 ms'];
  const npm: [string, string] = ['npm-start', '`npm start` to first answer ≤ 2 s (dist/ current)'];
  if (startup.status !== 'measured') return [missing(...mock, startup.reason), missing(...npm, startup.reason)];
  const { runs, npmStart, ...s } = startup.value;
  return [
    { ...judge(mock, s.mock.medianMs, ['<=', 300], ms), note: `median of ${runs}; Prism: ${ms(s.prism.medianMs)}` },
    npmStart ? { ...judge(npm, npmStart.medianMs, ['<=', 2000], ms), note: `median of ${runs}` } : missing(...npm, 'the CLI is not built'),
  ];
}

function recordTargets({ records, replayRecords }: TargetInputs): TargetResult[] {
  const rss = '≤ 1 KiB of RSS per recorded record';
  const replay: [string, string] = ['replay', `Replay of ${replayRecords.toLocaleString('en-US')} journaled records ≤ 1 s`];
  const live: [string, string] = ['rss-per-record', rss];
  const replayed: [string, string] = ['rss-per-record-replayed', `${rss}, after a restart from the journal`];
  if (records.status !== 'measured') return [replay, live, replayed].map((t) => missing(...t, records.reason));
  const r = records.value;
  const replayMs = r.replay.replayStartMs;
  return [
    r.totalRecorded < replayRecords
      ? missing(...replay, `only ${r.totalRecorded} records were journaled in this run`, ms(replayMs))
      : !r.replay.recordsReplayed
        ? {
            ...judge(replay, replayMs, ['<=', 1000], ms),
            met: false,
            note: 'the restarted mock did not continue the ids: the journal was not replayed',
          }
        : { ...judge(replay, replayMs, ['<=', 1000], ms), note: `spawn → first answer; empty start: ${ms(r.replay.emptyStartMs)}` },
    {
      ...judge(live, r.rssBytesPerRecord, ['<=', 1024], bytes),
      note: `recorded live, after a full GC; V8 heap: ${bytes(r.heapBytesPerRecord)}/record`,
    },
    { ...judge(replayed, r.replay.rssBytesPerRecord, ['<=', 1024], bytes), note: 'RSS after replay and a full GC, minus an empty start' },
  ];
}

/** The strict run against the mock: ≤ 5 s, and ≤ 2 s with its requests stated; a run that did not pass meets neither. */
function conformanceTargets({ conformance }: TargetInputs): TargetResult[] {
  const five: [string, string] = ['conformance', 'Strict conformance run against a running mock ≤ 5 s wall, including process start'];
  const two: [string, string] = ['conformance-2s', 'Strict run against the mock ≤ 2 s wall, including process start (requests stated)'];
  if (conformance.status !== 'measured') return [missing(...five, conformance.reason), missing(...two, conformance.reason)];
  const { report, reportProblem, wallMs, exitCode } = conformance.value;
  const failed = `the run did not pass (exit code ${exitCode})`;
  const requests =
    report === null
      ? `requests unknown: ${reportProblem ?? 'no report'}`
      : `${report.requests ?? 'an unknown number of'} requests, ${report.checks} checks, ${report.cases} cases; the suite's own run ${ms(report.durationMs)}`;
  const [fiveResult, twoResult] = [judge(five, wallMs, ['<=', 5000], ms), judge(two, wallMs, ['<=', 2000], ms)];
  if (exitCode === 0) return [fiveResult, { ...twoResult, note: requests }];
  return [
    { ...fiveResult, met: false, note: failed },
    { ...twoResult, met: false, note: `${failed}; ${requests}` },
  ];
}

function selfTestTarget({ selfTest }: TargetInputs): TargetResult {
  const [id, target] = ['self-test', 'Self-test kill rate = 100% (the reference server passing)'];
  if (selfTest.status !== 'measured') return missing(id, target, selfTest.reason);
  const s = selfTest.value;
  if (s.total === 0) return missing(id, target, 'the contract gave no fault to generate', killRate(s));
  const shown = s.survivors.slice(0, 3).join('; ');
  const note =
    s.killed < s.total
      ? `${s.total - s.killed} survived${shown ? `: ${shown}` : ''}${s.survivors.length > 3 ? '; …' : ''}`
      : s.exitCode !== 0
        ? `${s.referenceFailures.join('; ') || 'the self-test did not pass'} (exit code ${s.exitCode})`
        : `in ${s.seconds.toFixed(1)} s`;
  return { id, target, measured: killRate(s), met: s.killed === s.total && s.exitCode === 0, note };
}

/** A strict run against a server delaying every answer by 1 s ends within 60 s at the default --concurrency, beside the sequential run. */
function timeToVerdictTarget({ timeToVerdict: measured }: TargetInputs): TargetResult {
  const target: [string, string] = [
    'time-to-verdict',
    'Strict run against a server delaying every answer by 1 s ≤ 60 s at the default --concurrency',
  ];
  if (measured.status !== 'measured') return missing(...target, measured.reason);
  const at = (asked: TimeToVerdictRun['asked']) => measured.value.find((r) => r.latencyMs === 1000 && r.asked === asked);
  const [run, sequential] = [at('default'), at(1)];
  if (!run) return missing(...target, 'no run at 1 s latency (--verdict-latencies)');
  const result = judge(target, run.wallMs, ['<=', 60_000], seconds);
  if (run.exitCode !== 0) return { ...result, met: false, note: `the run did not pass (exit code ${run.exitCode ?? 'none'})` };
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
