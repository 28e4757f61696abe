/** The bench's report: what `npm run bench` prints and writes to `reports/bench.json`. */
import { isObject, type JsonObject } from '../contract/json-value.js';
import { parseJsonText } from '../util/json.js';
import type { ConformanceTiming } from './conformance-run.js';
import type { LoadRun } from './load.js';
import type { JudgingCount } from './proxy-judging.js';
import type { RecordsResult } from './records.js';
import type { RedisStoreResult } from './redis-store.js';
import type { ScenarioId } from './scenarios.js';
import type { SelfTestRun } from './self-test-run.js';
import type { ServerId } from './servers.js';
import type { TimeToVerdictResult } from './time-to-verdict.js';

/** One target, judged. */
export interface TargetResult {
  id: string;
  /** The target, as docs/performance.md ("Targets, honestly") states it. */
  target: string;
  /** The measured value, formatted with its unit. */
  measured: string;
  met: boolean | null;
  note?: string;
}

/** A measurement that may not have been possible. */
export type Measured<T> = { status: 'measured'; value: T } | { status: 'not available' | 'failed' | 'skipped'; reason: string };

/** One scenario against one server: the median of the measured rounds, and totals. */
export interface LoadRow {
  scenario: ScenarioId;
  server: ServerId;
  /** Answers with the expected status per second (median of rounds). */
  okPerSec: number;
  /** Latency percentiles, ms (median of rounds). */
  p50Ms: number;
  p99Ms: number;
  /** Peak RSS of the server's process tree (VmHWM) after this scenario, bytes. */
  peakRss: number;
  /** Totals over the measured rounds. */
  answers: number;
  unexpected: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Server CPU time (user + system, whole process tree) per answer, µs (median of rounds). */
  serverCpuUsPerAnswer: number;
  /** Cores the server kept busy during the rounds (1 = one core fully busy; median of rounds). */
  serverCores: number;
  /** Cores the load generator (this process) kept busy (median of rounds). */
  loadGenCores: number;
  /** Wrong answers or errors during the warm-up (not measured, but reported). */
  warmupProblems: number;
  /** The validating proxy only: exchanges it judged and forwarded unjudged during this scenario (warm-up included). */
  judging?: JudgingCount;
  rounds: RoundRun[];
}

/** One measured round: the load run and the CPU time each side used during it. */
export interface RoundRun extends LoadRun {
  serverCpuMs: number;
  loadGenCpuMs: number;
}

/** The ratios of req/s of one scenario (null when a server was not measured). */
export interface ScenarioRatios {
  scenario: ScenarioId;
  mockOverBare: number | null;
  mockOverPrism: number | null;
  /** The validating proxy ÷ the floor (a minimal undici reverse proxy), both in front of the bare server. */
  proxyOverFloor?: number | null;
  /** The proxy's p99 minus the floor's, ms. */
  proxyAddedP99Ms?: number | null;
  /** The floor ÷ the bare server alone: what a second HTTP hop costs on this machine. */
  floorOverBare?: number | null;
}

export interface StartupResult {
  /** What was spawned for the mock (its CLI). */
  mockCommand: string;
  mockMs: number[];
  prismMs: number[];
  mockMedianMs: number;
  /** `npm start` (prestart included) to the first answer. */
  npmStartMs: number[];
  npmStartMedianMs: number;
  prismMedianMs: number;
  mockRss: number;
  prismRss: number;
}

export interface BenchSettings {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  transfers: number;
  startupRuns: number;
  servers: ServerId[];
  conformance: boolean;
  /** Run the suite's self-test (`goods-conformance --self-test`) for its kill rate. */
  selfTest: boolean;
  /** Latencies of the time-to-verdict table, ms (empty: not measured; also skipped without `conformance`). */
  verdictLatenciesMs: number[];
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string; memoryBytes: number };
  settings: BenchSettings;
  load: { rows: LoadRow[]; ratios: ScenarioRatios[]; peakRss: Partial<Record<ServerId, number>> };
  startup: Measured<StartupResult>;
  conformance: Measured<ConformanceTiming>;
  /** The suite's self-test: the kill rate of its generated faults and its duration. */
  selfTest: Measured<SelfTestRun>;
  /** Strict runs against the mock behind a delaying proxy, at --concurrency 1, the default and 16. */
  timeToVerdict: Measured<TimeToVerdictResult>;
  records: Measured<RecordsResult>;
  /** Creates of one mock on Redis against the same mock in memory. */
  redisStore: Measured<RedisStoreResult>;
  targets: TargetResult[];
  /** True when some measurement failed or some server answered errors under load. */
  problems: string[];
  elapsedMs: number;
}

/** The ratios of an earlier run, for the regression line. */
export interface PreviousRatios {
  date: string;
  ratios: ScenarioRatios[];
}

/** The date and ratios of an earlier report's JSON text; undefined when it has none (absent, unreadable, another shape). */
export function previousRatios(text: string | undefined): PreviousRatios | undefined {
  const parsed = text === undefined ? undefined : parseJsonText(text);
  const report = parsed?.ok ? parsed.value : undefined;
  const load = isObject(report) ? report['load'] : undefined;
  const list = isObject(load) ? load['ratios'] : undefined;
  if (!isObject(report) || typeof report['date'] !== 'string' || !Array.isArray(list)) return undefined;
  const value = (o: JsonObject, key: string): number | null => (typeof o[key] === 'number' ? o[key] : null);
  const ratios = list.filter(isObject).map((o) => ({
    scenario: typeof o['scenario'] === 'string' ? o['scenario'] : '',
    mockOverBare: value(o, 'mockOverBare'),
    mockOverPrism: value(o, 'mockOverPrism'),
    proxyOverFloor: value(o, 'proxyOverFloor'),
    proxyAddedP99Ms: value(o, 'proxyOverFloor') === null ? null : value(o, 'proxyAddedP99Ms'),
    floorOverBare: value(o, 'floorOverBare'),
  }));
  return { date: report['date'], ratios };
}

/** The report as JSON text (NaN and Infinity become null). */
export function reportJson(report: BenchReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value), 2)}\n`;
}
