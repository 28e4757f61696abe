/**
 * Wall time of a `strict` conformance run against an already running server: spawns the suite's CLI
 * (`conformance/cli`, compiled when the bench is compiled) with `--base-url URL --token T --order-number N --level strict
 * --reporter json` (and `--concurrency N` when asked) and times it from spawn to exit, so the time includes the
 * process start. The run's `conformance.json` gives the checks, cases and requests it sent (read as JSON: the
 * bench does not import the suite).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../contract/document.js';
import { parseJsonText } from '../util/json.js';
import { runToExit } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';

/** What the bench reads of a run's `conformance.json` (schema: `report/conformance.schema.json`). */
export interface RunReport {
  /** `counts.total`: the checks of the run. */
  checks: number;
  /** `counts.cases`: the cases that ran. */
  cases: number;
  /** The requests the run sent; null when the report does not say (a suite from before the count). */
  requests: number | null;
  /** The suite's own duration (`durationMs`), without the process start. */
  durationMs: number;
}

export interface ConformanceTiming {
  wallMs: number;
  exitCode: number | null;
  /** The last lines the suite printed (its summary). */
  summary: string;
  /** The --concurrency the run used (from its first line). */
  concurrency?: number;
  /** From the run's `conformance.json`; null when it wrote none (it could not start), with the reason in `reportProblem`. */
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

/**
 * Times one strict run of the suite's CLI against `target` (`--concurrency N` when `concurrency` is
 * given, else the suite's default); throws when it does not end within `timeoutMs`.
 */
export async function timeConformance(
  target: { baseUrl: string; token: string; orderNumber: string },
  timeoutMs = 90000,
  concurrency?: number,
): Promise<ConformanceTiming> {
  const output = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const line = projectCli('conformance/cli', [
    '--base-url',
    target.baseUrl,
    '--token',
    target.token,
    '--order-number',
    target.orderNumber,
    '--level',
    'strict',
    '--reporter',
    'json',
    '--output',
    output,
    ...(concurrency !== undefined ? ['--concurrency', String(concurrency)] : []),
  ]);
  const startedAt = performance.now();
  try {
    const done = await runToExit('conformance', line, { timeoutMs });
    const wallMs = performance.now() - startedAt;
    if (done.timedOut) throw new Error(`the conformance run did not end within ${timeoutMs} ms; its output:\n${done.output}`);
    const summary = done.output
      .trimEnd()
      .split('\n')
      .slice(-6)
      .map((l) => l.trimEnd())
      .join('\n');
    const used = /--concurrency (\d+)/.exec(done.output)?.[1];
    const concurrency = used !== undefined ? { concurrency: Number(used) } : {};
    const file = join(output, 'conformance.json');
    const report = existsSync(file) ? readRunReport(readFileSync(file, 'utf8')) : 'the run wrote no conformance.json';
    return typeof report === 'string'
      ? { wallMs, exitCode: done.code, summary, report: null, reportProblem: report, ...concurrency }
      : { wallMs, exitCode: done.code, summary, report, ...concurrency };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}
