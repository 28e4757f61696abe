/** What the bench measures, each kind as a type: the load rows, their ratios and the start-up; the targets judge them and the report (`report.ts`) carries them. */
import type { LoadRun } from './load.js';
import type { JudgingCount } from './proxy-judging.js';
import type { ScenarioId } from './scenarios.js';
import type { ServerId } from './servers.js';

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

/** mock ÷ bare and mock ÷ Prism of req/s (null when a server was not measured). */
export interface ScenarioRatios {
  scenario: ScenarioId;
  mockOverBare: number | null;
  mockOverPrism: number | null;
  /** The validating proxy in front of the bare server ÷ the bare server alone, req/s (absent in older reports). */
  proxyOverBare?: number | null;
  /** The proxy's p99 minus the bare server's, ms. */
  proxyAddedP99Ms?: number | null;
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
