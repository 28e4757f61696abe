/**
 * The suite's self-test, run as its users run it (`goods-conformance --self-test`), timed from spawn to
 * exit. Its last line (`killed K/N faults (P%) in S s`) gives the kill rate; the survivors and a failing
 * reference server are named on their own lines. Read as text: the bench does not import the suite.
 */
import { runToExit } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';

/** What the self-test's output says: the kill rate, its own duration (s), the survivors, the levels the reference server fails. */
export interface SelfTestLines {
  killed: number;
  total: number;
  seconds: number;
  survivors: string[];
  referenceFailures: string[];
}

export interface SelfTestRun extends SelfTestLines {
  /** Spawn to exit, ms; the exit code (0 at 100% with the reference server passing at both levels). */
  wallMs: number;
  exitCode: number | null;
}

const TOTAL_LINE = /^killed (\d+)\/(\d+) faults \((?:\d+(?:\.\d+)?)%\) in (\d+(?:\.\d+)?) s$/;

/** Reads the self-test's stdout; undefined when it has no total line (unindented, after the per-operation lines). Pure. */
export function parseSelfTestOutput(stdout: string): SelfTestLines | undefined {
  const lines = stdout.split('\n').map((l) => l.trimEnd());
  const match = lines
    .map((l) => TOTAL_LINE.exec(l))
    .filter((m) => m !== null)
    .at(-1);
  if (!match) return undefined;
  const [, killed, total, seconds] = match;
  return {
    killed: Number(killed),
    total: Number(total),
    seconds: Number(seconds),
    survivors: lines.filter((l) => /^\s+survived: /.test(l)).map((l) => l.trim().replace(/^survived: /, '')),
    referenceFailures: lines.filter((l) => /^\s+reference server at \w+: FAILS\b/.test(l)).map((l) => l.trim()),
  };
}

/** `K/N faults (P%)`, P with one decimal as the self-test prints it. */
export function killRate(run: Pick<SelfTestLines, 'killed' | 'total'>): string {
  return `${run.killed}/${run.total} faults (${run.total === 0 ? '—' : `${((100 * run.killed) / run.total).toFixed(1)}%`})`;
}

/** Runs the self-test of the bundled contract; throws when it does not end within `timeoutMs` or prints no total. */
export async function runSelfTestCli(timeoutMs = 300_000): Promise<SelfTestRun> {
  const startedAt = performance.now();
  const done = await runToExit('self-test', projectCli('conformance/cli', ['--self-test']), { timeoutMs });
  const wallMs = performance.now() - startedAt;
  if (done.timedOut) throw new Error(`the self-test did not end within ${timeoutMs} ms; its output:\n${done.output}`);
  const lines = parseSelfTestOutput(done.stdout);
  if (!lines) throw new Error(`the self-test (exit code ${done.code}) printed no "killed K/N faults" line; its output:\n${done.output}`);
  return { ...lines, wallMs, exitCode: done.code };
}
