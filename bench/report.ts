/** The bench's report: what `npm run bench` prints and writes to `reports/bench.json`. */
import type { ConformanceTiming } from './conformance-run.js';
import type { LoadRow, Measured, ScenarioRatios, StartupResult } from './measurements.js';
import type { RecordsResult } from './records.js';
import type { RedisStoreResult } from './redis-store.js';
import type { SelfTestRun } from './self-test-run.js';
import type { ServerId } from './servers.js';
import type { TargetResult } from './targets.js';
import type { TimeToVerdictResult } from './time-to-verdict.js';

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

/** The report as JSON text (NaN and Infinity become null). */
export function reportJson(report: BenchReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value), 2)}\n`;
}
