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
  /** Answers received (any status). */
  answers: number;
  /** Answers with the expected status. */
  ok: number;
  /** Answers with another status (non-2xx or the wrong 2xx). */
  unexpected: number;
  /** Connection errors and timeouts (requests with no answer). */
  errors: number;
  timeouts: number;
  /** Answers per status code. */
  statusCodes: Record<string, number>;
  /** Wall time of the run, seconds. */
  seconds: number;
  /** Answers with the expected status per second. */
  okPerSec: number;
  /** Latency percentiles of all answers, milliseconds (full resolution). */
  p50Ms: number;
  p99Ms: number;
}

/** How to load: connections and either a duration or a fixed number of requests (with a time cap). */
export interface LoadPlan {
  connections: number;
  durationMs?: number;
  amount?: number;
  /** Stops a fixed-amount run after this long. */
  capMs?: number;
}

/** Loads `baseUrl` with `scenario` according to `plan`. */
export function runLoad(baseUrl: string, scenario: Scenario, plan: LoadPlan): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const options: autocannon.Options = {
      url: `${baseUrl}${scenario.path}`,
      method: scenario.method,
      headers: scenario.headers,
      connections: plan.connections,
      pipelining: 1,
      timeout: 10,
      sampleInt: 100,
    };
    if (scenario.body !== undefined) options.body = scenario.body;
    if (plan.amount !== undefined) options.amount = plan.amount;
    else options.duration = (plan.durationMs ?? 1000) / 1000;
    let cap: NodeJS.Timeout | undefined;
    const latencies = new LatencySamples();
    const instance = autocannon(options, (error: Error | null, result: autocannon.Result) => {
      clearTimeout(cap);
      if (error) {
        reject(error);
        return;
      }
      resolve(summarize(result, scenario.expectStatus, latencies));
    });
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.add(responseTime));
    if (plan.amount !== undefined && plan.capMs !== undefined) cap = setTimeout(() => instance.stop(), plan.capMs);
  });
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Turns autocannon's result into a LoadRun. */
export function summarize(result: autocannon.Result, expectStatus: number, latencies: LatencySamples): LoadRun {
  const statusCodes: Record<string, number> = {};
  let answers = 0;
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    const count = finite(stat.count);
    statusCodes[code] = count;
    answers += count;
  }
  const ok = statusCodes[String(expectStatus)] ?? 0;
  const [p50Ms = Number.NaN, p99Ms = Number.NaN] = latencies.percentiles(50, 99);
  const seconds = Math.max(0.001, (result.finish.getTime() - result.start.getTime()) / 1000);
  return {
    answers,
    ok,
    unexpected: answers - ok,
    errors: finite(result.errors) - finite(result.timeouts),
    timeouts: finite(result.timeouts),
    statusCodes,
    seconds,
    okPerSec: ok / seconds,
    p50Ms,
    p99Ms,
  };
}

/** The median of a list (NaN for an empty one): the bench reports the median of its rounds. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The sum of `pick` over `items`. */
export function total<T>(items: readonly T[], pick: (item: T) => number): number {
  return items.reduce((sum, item) => sum + pick(item), 0);
}

/** Rotates `items` left by `by`: round r starts with another server, so drift hits all alike. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Answers with another status, errors and timeouts: what a correct server never has. */
export function wrongOf(run: Pick<LoadRun, 'unexpected' | 'errors' | 'timeouts'>): number {
  return run.unexpected + run.errors + run.timeouts;
}
