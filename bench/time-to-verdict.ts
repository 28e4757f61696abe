/**
 * Time to verdict against a slow server: strict runs of the suite's CLI against the mock behind a
 * proxy that delays every answer (errors too) by 0, 100 ms and 1 s (`delaying-proxy.ts`), each at
 * --concurrency 1 (one request after another), the suite's default and 16. The speed-up of a row is
 * its sequential run's time divided by the run's.
 */
import { timeConformance, type ConformanceTiming } from './conformance-run.js';
import { startDelayingProxy } from './delaying-proxy.js';

/** The concurrencies of the table: `undefined` is the suite's default (the CLI without --concurrency). */
export const VERDICT_CONCURRENCIES: readonly (number | undefined)[] = [1, undefined, 16];
export const VERDICT_LATENCIES_MS: readonly number[] = [0, 100, 1000];

export interface TimeToVerdictRun {
  latencyMs: number;
  /** What was asked (`default`: no --concurrency) and what the run used. */
  asked: number | 'default';
  concurrency: number | null;
  wallMs: number;
  exitCode: number | null;
}

export interface TimeToVerdictResult {
  runs: TimeToVerdictRun[];
  /** The suite's default --concurrency, as its runs printed it. */
  defaultConcurrency: number | null;
}

/** A generous bound of one run: about 270 requests one after another, plus start-up. */
const runLimitMs = (latencyMs: number): number => 120_000 + 400 * latencyMs;

export async function measureTimeToVerdict(
  mockUrl: string,
  target: { token: string; orderNumber: string },
  latenciesMs: readonly number[],
  log: (line: string) => void,
): Promise<TimeToVerdictResult> {
  const runs: TimeToVerdictRun[] = [];
  for (const latencyMs of latenciesMs) {
    const proxy = await startDelayingProxy(mockUrl, latencyMs);
    try {
      for (const concurrency of VERDICT_CONCURRENCIES) {
        const timing: ConformanceTiming = await timeConformance({ baseUrl: proxy.url, ...target }, runLimitMs(latencyMs), concurrency);
        runs.push({
          latencyMs,
          asked: concurrency ?? 'default',
          concurrency: timing.concurrency ?? null,
          wallMs: timing.wallMs,
          exitCode: timing.exitCode,
        });
        log(
          `time to verdict at ${latencyMs} ms latency, --concurrency ${concurrency ?? `default (${timing.concurrency ?? '?'})`}: ` +
            `${(timing.wallMs / 1000).toFixed(1)} s (exit code ${timing.exitCode ?? 'none'})`,
        );
      }
    } finally {
      await proxy.close();
    }
  }
  return { runs, defaultConcurrency: runs.find((r) => r.asked === 'default')?.concurrency ?? null };
}

/** The sequential run of the same latency. */
export function sequentialOf(result: TimeToVerdictResult, latencyMs: number): TimeToVerdictRun | undefined {
  return result.runs.find((r) => r.latencyMs === latencyMs && r.asked === 1);
}
