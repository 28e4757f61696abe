/** The bench's report: what `npm run bench` prints and writes to `reports/bench.json`. */
import { isObject } from '../contract/json-value.js';
import { parseJsonText } from '../util/json.js';
import type { ConformanceTiming, SelfTestRun, TimeToVerdictRun } from './conformance-run.js';
import type { LoadRun } from './load.js';
import type { RecordsResult } from './records.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';

/** One target, judged: `met` is null when it could not be (the reason in `note`); `measured` has its unit. */
export interface TargetResult {
  id: string;
  target: string;
  measured: string;
  met: boolean | null;
  note?: string;
}

/** A measurement that may not have been possible. */
export type Measured<T> = { status: 'measured'; value: T } | { status: 'not available' | 'failed' | 'skipped'; reason: string };

/** One measured round, with the CPU time (ms) of the server's process tree, of a process it depends on (Redis), of this process. */
export interface RoundRun extends LoadRun {
  serverCpuMs: number;
  sideCpuMs?: number;
  loadGenCpuMs: number;
}

/**
 * One scenario against one server: medians of the measured rounds (answers, errors and codes: totals);
 * peak RSS of its process tree (VmHWM) after the scenario; CPU per answer in µs; the cores it and the
 * load generator kept busy; for the proxy, the exchanges it judged and forwarded unjudged.
 */
export interface LoadRow extends Omit<LoadRun, 'ok' | 'seconds'> {
  scenario: ScenarioId;
  server: ServerId;
  peakRss: number;
  serverCpuUsPerAnswer: number;
  sideCpuUsPerAnswer?: number;
  serverCores: number;
  loadGenCores: number;
  judging?: { judged: number; notJudged: number };
  rounds: RoundRun[];
}

/** The req/s ratios of one scenario (null when a server was not measured); the proxy's added p99 over the floor's, ms. */
export interface ScenarioRatios {
  scenario: ScenarioId;
  mockOverBare: number | null;
  mockOverPrism: number | null;
  proxyOverFloor?: number | null;
  proxyAddedP99Ms?: number | null;
  floorOverBare?: number | null;
}

/** Spawn to first answer (median) and resident memory then, of the mock's CLI, `npm start` (null: not measured) and Prism. */
export interface StartupResult {
  runs: number;
  mock: StartOf;
  npmStart: StartOf | null;
  prism: StartOf;
}
export type StartOf = { medianMs: number; rss: number };

export interface BenchSettings {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  transfers: number;
  startupRuns: number;
  servers: ServerId[];
  conformance: boolean;
  selfTest: boolean;
  /** Latencies of the time-to-verdict table, ms (empty: not measured; also skipped without `conformance`). */
  verdictLatenciesMs: number[];
}

/** Lot-transfer creates of one mock in memory and of the same mock on Redis (`appendfsync always`), in alternating rounds. */
export type RedisStoreResult = Record<'memory' | 'redis', LoadRow>;

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string; memoryBytes: number };
  settings: BenchSettings;
  load: { rows: LoadRow[]; ratios: ScenarioRatios[] };
  startup: Measured<StartupResult>;
  conformance: Measured<ConformanceTiming>;
  selfTest: Measured<SelfTestRun>;
  timeToVerdict: Measured<TimeToVerdictRun[]>;
  records: Measured<RecordsResult>;
  redisStore: Measured<RedisStoreResult>;
  targets: TargetResult[];
  /** Measurements that failed and servers that answered wrongly under load. */
  problems: string[];
  elapsedMs: number;
}

/** The ratios of an earlier run, for the regression line. */
export type PreviousRatios = { date: string; ratios: ScenarioRatios[] };

/** The date and ratios of an earlier report's JSON text; undefined when it has none (absent, unreadable, another shape). */
export function previousRatios(text: string | undefined): PreviousRatios | undefined {
  const parsed = text === undefined ? undefined : parseJsonText(text);
  const report = parsed?.ok && isObject(parsed.value) ? parsed.value : undefined;
  const list = isObject(report?.['load']) ? report['load']['ratios'] : undefined;
  if (typeof report?.['date'] !== 'string' || !Array.isArray(list)) return undefined;
  const ratios = list.filter(isObject).map((o) => {
    const n = (key: string): number | null => (typeof o[key] === 'number' ? o[key] : null);
    const scenario = typeof o['scenario'] === 'string' ? o['scenario'] : '';
    // an older report measured the proxy against the bare server: its added p99 is not comparable
    const proxyAddedP99Ms = n('proxyOverFloor') === null ? null : n('proxyAddedP99Ms');
    return {
      scenario,
      mockOverBare: n('mockOverBare'),
      mockOverPrism: n('mockOverPrism'),
      proxyOverFloor: n('proxyOverFloor'),
      proxyAddedP99Ms,
      floorOverBare: n('floorOverBare'),
    };
  });
  return { date: report['date'], ratios };
}

/** The report as JSON text (NaN and Infinity become null). */
export function reportJson(report: BenchReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value), 2)}\n`;
}
