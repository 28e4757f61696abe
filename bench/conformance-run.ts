/**
 * Wall time of a `strict` conformance run against a running server: the suite's CLI with `--base-url URL
 * --token T --order-number N --level strict --reporter json` (and `--concurrency N` when asked), timed
 * from spawn to exit (the process start included). Its `conformance.json` gives the checks, cases and
 * requests it sent (read as JSON: the bench does not import the suite). Time to verdict: the same run
 * against the mock behind a proxy delaying every answer (`delaying-proxy.ts`), at --concurrency 1, the
 * suite's default and 16.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../contract/json-value.js';
import { runToExit } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';
import { parseJsonText } from '../util/json.js';
import { startDelayingProxy } from './delaying-proxy.js';

/** What the bench reads of a run's `conformance.json` (`report/conformance.schema.json`). */
export interface RunReport {
  /** `counts.total` and `counts.cases`. */
  checks: number;
  cases: number;
  /** The requests the run sent; null when the report does not say (a suite from before the count). */
  requests: number | null;
  /** The suite's own duration, without the process start. */
  durationMs: number;
}

export interface ConformanceTiming {
  wallMs: number;
  exitCode: number | null;
  /** The --concurrency the run used (from its first line). */
  concurrency?: number;
  /** Null when the run wrote no readable `conformance.json`, with the reason in `reportProblem`. */
  report: RunReport | null;
  reportProblem?: string;
}

const count = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** The numbers the bench needs from `conformance.json`'s text, or why they cannot be read. Pure. */
export function readRunReport(text: string): RunReport | string {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return `conformance.json is not JSON: ${parsed.reason}`;
  const verdict = parsed.value;
  if (!isObject(verdict) || !isObject(verdict['counts'])) return 'conformance.json has no counts';
  const { total, cases } = verdict['counts'];
  const { requests, durationMs } = verdict;
  if (!count(total) || !count(cases)) return 'conformance.json: counts.total or counts.cases is not a count';
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs)) return 'conformance.json: durationMs is not a number';
  if (requests !== undefined && !count(requests)) return 'conformance.json: requests is not a count';
  return { checks: total, cases, requests: requests ?? null, durationMs };
}

export type Target = { baseUrl: string; token: string; orderNumber: string };

/** Times one strict run of the suite's CLI against `target`; throws when it does not end within `timeoutMs`. */
export async function timeConformance(target: Target, timeoutMs = 90_000, concurrency?: number): Promise<ConformanceTiming> {
  const output = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const options = {
    'base-url': target.baseUrl,
    token: target.token,
    'order-number': target.orderNumber,
    level: 'strict',
    reporter: 'json',
    output,
  };
  const args = [
    ...Object.entries(options).flatMap(([k, v]) => [`--${k}`, v]),
    ...(concurrency ? ['--concurrency', String(concurrency)] : []),
  ];
  const startedAt = performance.now();
  try {
    const done = await runToExit('conformance', projectCli('conformance/cli', args), { timeoutMs });
    const wallMs = performance.now() - startedAt;
    if (done.timedOut) throw new Error(`the conformance run did not end within ${timeoutMs} ms; its output:\n${done.output}`);
    const used = /--concurrency (\d+)/.exec(done.output)?.[1];
    const file = join(output, 'conformance.json');
    const report = existsSync(file) ? readRunReport(readFileSync(file, 'utf8')) : 'the run wrote no conformance.json';
    const timing = { wallMs, exitCode: done.code, ...(used ? { concurrency: Number(used) } : {}) };
    return typeof report === 'string' ? { ...timing, report: null, reportProblem: report } : { ...timing, report };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

/** The concurrencies of the time-to-verdict table: `undefined` is the suite's default (no --concurrency). */
export const VERDICT_CONCURRENCIES: readonly (number | undefined)[] = [1, undefined, 16];

export interface TimeToVerdictRun {
  latencyMs: number;
  /** What was asked (`default`: no --concurrency) and what the run used. */
  asked: number | 'default';
  concurrency: number | null;
  wallMs: number;
  exitCode: number | null;
}

/** Strict runs against the mock at `mockUrl` behind a proxy delaying every answer by each of `latenciesMs`. */
export async function measureTimeToVerdict(
  mock: Target,
  latenciesMs: readonly number[],
  log: (line: string) => void,
): Promise<TimeToVerdictRun[]> {
  const runs: TimeToVerdictRun[] = [];
  for (const latencyMs of latenciesMs) {
    const proxy = await startDelayingProxy(mock.baseUrl, latencyMs);
    try {
      for (const asked of VERDICT_CONCURRENCIES) {
        // a generous bound: about 300 requests one after another, plus start-up
        const {
          wallMs,
          exitCode,
          concurrency = null,
        } = await timeConformance({ ...mock, baseUrl: proxy.url }, 120_000 + 400 * latencyMs, asked);
        runs.push({ latencyMs, asked: asked ?? 'default', concurrency, wallMs, exitCode });
        log(
          `time to verdict at ${latencyMs} ms, --concurrency ${asked ?? `default (${concurrency ?? '?'})`}: ${(wallMs / 1000).toFixed(1)} s (exit code ${exitCode ?? 'none'})`,
        );
      }
    } finally {
      await proxy.close();
    }
  }
  return runs;
}
