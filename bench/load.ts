/**
 * The load generator: autocannon in this process, one server at a time, pipelining off. Only answers
 * with the expected status count as served (`okPerSec`): a server answering errors cannot look fast.
 * Latencies at full resolution (autocannon's histogram rounds to whole ms: "0 ms" for any faster answer):
 * an HdrHistogram of µs with 4 significant digits, each percentile exact to 0.01 %.
 */
import autocannon from 'autocannon';
import { Int32Histogram } from 'hdr-histogram-js';
import type { Scenario } from './scenarios.js';

export class LatencySamples {
  private readonly histogram = Object.assign(new Int32Histogram(1, 2, 4), { autoResize: true });

  /** Adds one latency, in milliseconds. */
  add(ms: number): void {
    this.histogram.recordValue(Math.max(0, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The given percentiles (0 < p ≤ 100) in milliseconds; NaN for each when there are no samples. */
  percentiles(...ps: number[]): number[] {
    return ps.map((p) => (this.count === 0 ? NaN : this.histogram.lowestEquivalentValue(this.histogram.getValueAtPercentile(p)) / 1000));
  }
}

/** One load run: answers (any status, `ok` with the expected one), requests with no answer (`errors`, `timeouts`), ms. */
type Count = 'answers' | 'ok' | 'unexpected' | 'errors' | 'timeouts' | 'seconds' | 'okPerSec' | 'p50Ms' | 'p99Ms';
export type LoadRun = Record<Count, number> & { statusCodes: Record<string, number> };
/** How to load: connections and either a duration or a fixed number of requests (stopped after `capMs`). */
export type LoadPlan = { connections: number; durationMs?: number; amount?: number; capMs?: number };
const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function runLoad(baseUrl: string, scenario: Scenario, plan: LoadPlan): Promise<LoadRun> {
  const latencies = new LatencySamples();
  const { method, headers, body, path, expectStatus } = scenario;
  const length = plan.amount !== undefined ? { amount: plan.amount } : { duration: (plan.durationMs ?? 1000) / 1000 };
  const load = { connections: plan.connections, pipelining: 1, timeout: 10, sampleInt: 100, ...length };
  return new Promise((resolve, reject) => {
    let cap: NodeJS.Timeout | undefined;
    const instance = autocannon(
      { url: `${baseUrl}${path}`, method, headers, ...load, ...(body !== undefined ? { body } : {}) },
      (error: Error | null, result: autocannon.Result) => {
        clearTimeout(cap);
        if (error) return reject(error);
        const statusCodes: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = finite(stat.count);
        const answers = Object.values(statusCodes).reduce((sum, n) => sum + n, 0);
        const ok = statusCodes[String(expectStatus)] ?? 0;
        const [p50Ms = Number.NaN, p99Ms = Number.NaN] = latencies.percentiles(50, 99);
        const seconds = Math.max(0.001, (result.finish.getTime() - result.start.getTime()) / 1000);
        const timeouts = finite(result.timeouts);
        const errors = finite(result.errors) - timeouts;
        resolve({ answers, ok, unexpected: answers - ok, errors, timeouts, statusCodes, seconds, okPerSec: ok / seconds, p50Ms, p99Ms });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.add(responseTime));
    if (plan.amount !== undefined && plan.capMs !== undefined) cap = setTimeout(() => instance.stop(), plan.capMs);
  });
}

/** The median of a list (NaN for an empty one): the bench reports the median of its rounds. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** The order of round `round`: `items` forward, then backward; neighbours run back to back, and a drift over a round tilts the next one the other way. */
export const roundOrder = <T>(items: readonly T[], round: number): T[] => (round % 2 === 0 ? [...items] : [...items].reverse());

/** Answers with another status, errors and timeouts: what a correct server never has. */
export const wrongOf = (run: Pick<LoadRun, 'unexpected' | 'errors' | 'timeouts'>): number => run.unexpected + run.errors + run.timeouts;
