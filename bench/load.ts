/**
 * The load generator: autocannon (programmatic API) in this process, against one server at a time,
 * pipelining off. Every answer's status is counted; only answers with the scenario's expected status
 * count as served (`okPerSec`), so a server that answers errors cannot look fast.
 */
import autocannon from 'autocannon';
import { LatencySamples } from './latency.js';
import type { Scenario } from './scenarios.js';

/** One load run against one server. */
export interface LoadRun {
  /** Answers received (any status); those with the expected status; those with another. */
  answers: number;
  ok: number;
  unexpected: number;
  /** Requests with no answer: connection errors, and timeouts. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  seconds: number;
  okPerSec: number;
  /** Latency percentiles of all answers, ms (full resolution: `latency.ts`). */
  p50Ms: number;
  p99Ms: number;
}

/** How to load: connections and either a duration or a fixed number of requests (stopped after `capMs`). */
export interface LoadPlan {
  connections: number;
  durationMs?: number;
  amount?: number;
  capMs?: number;
}

const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Loads `baseUrl` with `scenario` according to `plan`. */
export function runLoad(baseUrl: string, scenario: Scenario, plan: LoadPlan): Promise<LoadRun> {
  const latencies = new LatencySamples();
  return new Promise((resolve, reject) => {
    const options: autocannon.Options = {
      url: `${baseUrl}${scenario.path}`,
      method: scenario.method,
      headers: scenario.headers,
      connections: plan.connections,
      pipelining: 1,
      timeout: 10,
      sampleInt: 100,
      ...(scenario.body !== undefined ? { body: scenario.body } : {}),
      ...(plan.amount !== undefined ? { amount: plan.amount } : { duration: (plan.durationMs ?? 1000) / 1000 }),
    };
    let cap: NodeJS.Timeout | undefined;
    const instance = autocannon(options, (error: Error | null, result: autocannon.Result) => {
      clearTimeout(cap);
      if (error) return reject(error);
      const statusCodes: Record<string, number> = {};
      for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = finite(stat.count);
      const answers = Object.values(statusCodes).reduce((sum, n) => sum + n, 0);
      const ok = statusCodes[String(scenario.expectStatus)] ?? 0;
      const [p50Ms = Number.NaN, p99Ms = Number.NaN] = latencies.percentiles(50, 99);
      const seconds = Math.max(0.001, (result.finish.getTime() - result.start.getTime()) / 1000);
      const timeouts = finite(result.timeouts);
      resolve({
        answers,
        ok,
        unexpected: answers - ok,
        errors: finite(result.errors) - timeouts,
        timeouts,
        statusCodes,
        seconds,
        okPerSec: ok / seconds,
        p50Ms,
        p99Ms,
      });
    });
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.add(responseTime));
    if (plan.amount !== undefined && plan.capMs !== undefined) cap = setTimeout(() => instance.stop(), plan.capMs);
  });
}

/** The median of a list (NaN for an empty one): the bench reports the median of its rounds. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Rotates `items` left by `by`: round r starts with another server, so drift hits all alike. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Answers with another status, errors and timeouts: what a correct server never has. */
export function wrongOf(run: Pick<LoadRun, 'unexpected' | 'errors' | 'timeouts'>): number {
  return run.unexpected + run.errors + run.timeouts;
}
