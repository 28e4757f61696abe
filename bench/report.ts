/** The bench's report: what `npm run bench` prints and writes to `reports/bench.json`, and the formats its numbers are shown in. */
import { isObject } from '../contract/json-value.js';
import { parseJsonText } from '../util/json.js';
import type { ConformanceTiming, SelfTestRun, TimeToVerdictRun } from './conformance-run.js';
import type { LoadRun } from './load.js';
import type { RecordsResult } from './records.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';

/** One target, judged: `met` is null when it could not be (the reason in `note`); `measured` has its unit. */
export type TargetResult = { id: string; target: string; measured: string; met: boolean | null; note?: string };
export type Measured<T> = { status: 'measured'; value: T } | { status: 'not available' | 'failed' | 'skipped'; reason: string };
/** One measured round, with the CPU time (ms) of the server's process tree, of a process it depends on (Redis), of this process; the answers of its warm-up. */
export type RoundRun = LoadRun & { serverCpuMs: number; sideCpuMs?: number; loadGenCpuMs: number; warmupAnswers?: number };

/**
 * One scenario against one server: medians of the rounds (answers, errors and codes: totals), peak RSS (VmHWM),
 * CPU per answer in µs, the cores it and the load generator kept busy; for the proxy, what it judged.
 */
export type LoadRow = Omit<LoadRun, 'ok' | 'seconds'> &
  Record<'peakRss' | 'serverCpuUsPerAnswer' | 'serverCores' | 'loadGenCores', number> & {
    scenario: ScenarioId;
    server: ServerId;
    sideCpuUsPerAnswer?: number;
    judging?: { judged: number; notJudged: number };
    rounds: RoundRun[];
  };

/** A scenario's req/s ratios (null: a server not measured), the proxy's added p99 (ms); a goal's lowest and highest round. */
export type GoalRatio = 'mockOverBare' | 'proxyOverFloor' | 'proxyAddedP99Ms';
export type ScenarioRatios = { scenario: ScenarioId; mockOverBare: number | null; mockOverPrism: number | null } & Partial<
  Record<'proxyOverFloor' | 'proxyAddedP99Ms' | 'floorOverBare', number | null>
> & { spread?: Partial<Record<GoalRatio, [number, number]>> };
/** Spawn to first answer (median) and resident memory then, of the mock's CLI, `npm start` (null: not measured) and Prism. */
export type StartOf = { medianMs: number; rss: number };
export type StartupResult = { runs: number; mock: StartOf; npmStart: StartOf | null; prism: StartOf };

/** `verdictLatenciesMs`: the time-to-verdict table's latencies (empty: not measured; also skipped without `conformance`). */
type Counts = Record<'connections' | 'durationMs' | 'warmupMs' | 'rounds' | 'transfers' | 'startupRuns', number>;
export type BenchSettings = Counts & { servers: ServerId[]; conformance: boolean; selfTest: boolean; verdictLatenciesMs: number[] };

/** Lot-transfer creates of one mock in memory and of the same mock on Redis (`appendfsync always`), in alternating rounds. */
export type RedisStoreResult = Record<'memory' | 'redis', LoadRow>;
/** The phases measured after the load, each possibly not (`Measured`). */
type Runs = { startup: StartupResult; conformance: ConformanceTiming; selfTest: SelfTestRun };
type Phases = Runs & { timeToVerdict: TimeToVerdictRun[]; records: RecordsResult; redisStore: RedisStoreResult };
type Machine = { cpus: number; cpuModel: string; node: string; platform: string; memoryBytes: number };
type Run = { date: string; machine: Machine; settings: BenchSettings; load: { rows: LoadRow[]; ratios: ScenarioRatios[] } };
/** `problems`: measurements that failed and servers that answered wrongly under load. */
type Outcome = { targets: TargetResult[]; problems: string[]; elapsedMs: number };
export type BenchReport = Run & { [K in keyof Phases]: Measured<Phases[K]> } & Outcome;

/** The ratios of an earlier run, for the regression line. */
export type PreviousRatios = { date: string; ratios: ScenarioRatios[] };

/** The date and ratios of an earlier report's JSON text; undefined when it has none (absent, unreadable, another shape). */
export function previousRatios(text: string | undefined): PreviousRatios | undefined {
  const parsed = text === undefined ? undefined : parseJsonText(text);
  const report = parsed?.ok && isObject(parsed.value) ? parsed.value : undefined;
  const list = isObject(report?.['load']) ? report['load']['ratios'] : undefined;
  if (typeof report?.['date'] !== 'string' || !Array.isArray(list)) return undefined;
  const ratios = list.filter(isObject).map((o): ScenarioRatios => {
    const n = (key: string): number | null => (typeof o[key] === 'number' ? o[key] : null);
    const scenario = typeof o['scenario'] === 'string' ? o['scenario'] : '';
    const mock = { mockOverBare: n('mockOverBare'), mockOverPrism: n('mockOverPrism'), floorOverBare: n('floorOverBare') };
    // an older report measured the proxy against the bare server: its added p99 is not comparable
    const proxy = { proxyOverFloor: n('proxyOverFloor'), proxyAddedP99Ms: n('proxyOverFloor') === null ? null : n('proxyAddedP99Ms') };
    return { scenario, ...mock, ...proxy };
  });
  return { date: report['date'], ratios };
}

/** The report as JSON text (NaN and Infinity become null). */
export function reportJson(report: BenchReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value), 2)}\n`;
}

/** The formats of the printed numbers; `—` for a number not measured. */
type Maybe = number | null | undefined;
const orDash = (v: Maybe, show: (n: number) => string): string => (v == null || !Number.isFinite(v) ? '—' : show(v));
export const num = (v: Maybe, digits = 0): string =>
  orDash(v, (n) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
export const ratio = (v: Maybe): string => orDash(v, (n) => `${n.toFixed(2)}×`);
export const mib = (v: Maybe): string => orDash(v, (n) => (n > 0 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : '—'));
