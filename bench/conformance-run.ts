/**
 * The suite's CLI run as its users run it, timed from spawn to exit and read as text and JSON (the bench
 * does not import the suite): a strict run, the same behind `delaying-proxy.ts` (time to verdict), the self-test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../contract/json-value.js';
import { runToExit } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';
import { parseJsonText } from '../util/json.js';
import { startDelayingProxy } from './delaying-proxy.js';

/** Runs the suite's CLI with `args` to its end, timed; throws when it does not end within `timeoutMs`. */
async function suite(what: string, args: string[], timeoutMs: number) {
  const startedAt = performance.now();
  const done = await runToExit(what, projectCli('conformance/cli', args), { timeoutMs });
  if (done.timedOut) throw new Error(`the ${what} did not end within ${timeoutMs} ms; its output:\n${done.output}`);
  return { ...done, wallMs: performance.now() - startedAt };
}

/** What the bench reads of a run's `conformance.json`: `counts.total` and `.cases`, the requests sent (null: not said), its own duration. */
export type RunReport = { checks: number; cases: number; requests: number | null; durationMs: number };
/** A run of the CLI: spawn to exit, ms, and its exit code. */
type Timed = { wallMs: number; exitCode: number | null };
/** One timed run: its `--concurrency` (from its first line); its report, or why there is none. */
export type ConformanceTiming = Timed & { concurrency?: number; report: RunReport | null; reportProblem?: string };
const count = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** The numbers the bench needs from `conformance.json`'s text, or why they cannot be read. Pure. */
export function readRunReport(text: string): RunReport | string {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return `conformance.json is not JSON: ${parsed.reason}`;
  const { counts, requests, durationMs } = isObject(parsed.value) ? parsed.value : {};
  if (!isObject(counts)) return 'conformance.json has no counts';
  const { total, cases } = counts;
  if (!count(total) || !count(cases)) return 'conformance.json: counts.total or counts.cases is not a count';
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs)) return 'conformance.json: durationMs is not a number';
  if (requests !== undefined && !count(requests)) return 'conformance.json: requests is not a count';
  return { checks: total, cases, requests: requests ?? null, durationMs };
}

export type Target = { baseUrl: string; token: string; orderNumber: string };

export async function timeConformance({ baseUrl, token, orderNumber }: Target, timeoutMs = 90_000, concurrency?: number) {
  const output = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const args = [`--base-url=${baseUrl}`, `--token=${token}`, `--order-number=${orderNumber}`, `--output=${output}`, '--level=strict'];
  try {
    const extra = ['--reporter=json', ...(concurrency ? [`--concurrency=${concurrency}`] : [])];
    const run = await suite('conformance run', [...args, ...extra], timeoutMs);
    const used = /--concurrency (\d+)/.exec(run.output)?.[1];
    const file = join(output, 'conformance.json');
    const report = existsSync(file) ? readRunReport(readFileSync(file, 'utf8')) : 'the run wrote no conformance.json';
    const timing = { wallMs: run.wallMs, exitCode: run.code, ...(used ? { concurrency: Number(used) } : {}) };
    return typeof report === 'string' ? { ...timing, report: null, reportProblem: report } : { ...timing, report };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

/** The concurrencies of the time-to-verdict table: `undefined` is the suite's default (no --concurrency). */
export const VERDICT_CONCURRENCIES: readonly (number | undefined)[] = [1, undefined, 16];
/** One run of the table: its latency, the --concurrency asked (`default`: none) and the one it used. */
export type TimeToVerdictRun = Timed & { latencyMs: number; asked: number | 'default'; concurrency: number | null };

/** Strict runs against `mock` behind a proxy delaying every answer by each of `latenciesMs`. */
export async function measureTimeToVerdict(mock: Target, latenciesMs: readonly number[], log: (line: string) => void) {
  const runs: TimeToVerdictRun[] = [];
  for (const latencyMs of latenciesMs) {
    const proxy = await startDelayingProxy(mock.baseUrl, latencyMs);
    try {
      for (const asked of VERDICT_CONCURRENCIES) {
        // a generous bound: about 300 requests one after another, plus start-up
        const timed = await timeConformance({ ...mock, baseUrl: proxy.url }, 120_000 + 400 * latencyMs, asked);
        const { wallMs, exitCode, concurrency = null } = timed;
        runs.push({ latencyMs, asked: asked ?? 'default', concurrency, wallMs, exitCode });
        const at = `at ${latencyMs} ms, --concurrency ${asked ?? 'default'} (${concurrency ?? '?'})`;
        log(`time to verdict ${at}: ${(wallMs / 1000).toFixed(1)} s`);
      }
    } finally {
      await proxy.close();
    }
  }
  return runs;
}

/** What the self-test's output says: the kill rate, its own duration (s), the survivors, the levels the reference server fails. */
export type SelfTestLines = { killed: number; total: number; seconds: number; survivors: string[]; referenceFailures: string[] };
/** Exit code 0: 100% with the reference server passing at both levels. */
export type SelfTestRun = SelfTestLines & Timed;
const TOTAL_LINE = /^killed (\d+)\/(\d+) faults \((?:\d+(?:\.\d+)?)%\) in (\d+(?:\.\d+)?) s$/;

/** Reads the self-test's stdout; undefined when it has no total line (unindented, after the per-operation lines). Pure. */
export function parseSelfTestOutput(stdout: string): SelfTestLines | undefined {
  const lines = stdout.split('\n').map((l) => l.trimEnd());
  const [, killed, total, seconds] = lines.map((l) => TOTAL_LINE.exec(l)).findLast((m) => m !== null) ?? [];
  if (seconds === undefined) return undefined;
  const survivors = lines.filter((l) => /^\s+survived: /.test(l)).map((l) => l.trim().replace(/^survived: /, ''));
  const referenceFailures = lines.filter((l) => /^\s+reference server at \w+: FAILS\b/.test(l)).map((l) => l.trim());
  return { killed: Number(killed), total: Number(total), seconds: Number(seconds), survivors, referenceFailures };
}

/** `K/N faults (P%)`, P with one decimal as the self-test prints it. */
export const killRate = ({ killed, total }: Pick<SelfTestLines, 'killed' | 'total'>): string =>
  `${killed}/${total} faults (${total === 0 ? '—' : `${((100 * killed) / total).toFixed(1)}%`})`;

/** Runs the self-test of the bundled contract; throws when it prints no total. */
export async function runSelfTestCli(timeoutMs = 300_000): Promise<SelfTestRun> {
  const run = await suite('self-test', ['--self-test'], timeoutMs);
  const lines = parseSelfTestOutput(run.stdout);
  if (!lines) throw new Error(`the self-test (exit code ${run.code}) printed no "killed K/N faults" line; its output:\n${run.output}`);
  return { ...lines, wallMs: run.wallMs, exitCode: run.code };
}
