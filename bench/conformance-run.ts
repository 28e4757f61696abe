/**
 * Wall time of a `strict` conformance run against an already running server: spawns the suite's CLI
 * (`conformance/cli`, compiled when the bench is compiled) with `--base-url URL --token T --order-number N --level strict`
 * (and `--concurrency N` when asked) and times it from spawn to exit, so the time includes the process start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToExit } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';

export interface ConformanceTiming {
  wallMs: number;
  exitCode: number | null;
  /** The last lines the suite printed (its summary). */
  summary: string;
  /** The --concurrency the run used (from its first line). */
  concurrency?: number;
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
    return { wallMs, exitCode: done.code, summary, ...(used !== undefined ? { concurrency: Number(used) } : {}) };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}
