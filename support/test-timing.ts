/**
 * A mocha plugin (`--require ./support/test-timing.ts`) that measures each test file's wall time and
 * CPU time and prints the slowest files when the run ends, so the time of a run can be found where
 * it goes.
 *
 * A file's span runs from the moment its process finished the file before (or began its tests) to
 * the end of its last `after()` hook: its hooks and tests, not the loading of its imports. Its CPU
 * time is its process's over that span, with the child processes it waited for (the CLIs it ran).
 * It works in a serial run and under `--parallel` (each worker measures the files it runs and
 * appends one line each to a file the main process reads at the end).
 *
 * Environment:
 *   GOODS_SLOWEST=N            how many files to print (default 12; 0 prints none)
 *   GOODS_TEST_TIMES=FILE      also append every file's times to FILE, one JSON line a file (`{ file, seconds, cpuSeconds }`;
 *                              `npm test`'s two mocha runs append to the same file; `fileTimes` adds them up)
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Context, Suite } from 'mocha';
import { PROJECT_ROOT } from '../contract/paths.js';
import { selfAndReapedCpuMs } from './proc-cpu.js';

/** The folder the processes of one run append their lines to (set by the main process, inherited by workers). */
const FOLDER_VARIABLE = 'GOODS_TEST_TIMING_DIR';
const LINES = 'times.jsonl';

export interface FileTime {
  /** The test file, relative to the project root. */
  file: string;
  /** Wall time. */
  seconds: number;
  /** CPU time of its process and the children it waited for. */
  cpuSeconds: number;
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Adds up the lines of one run per file (a file with several top-level suites has one line each), slowest first. */
export function fileTimes(lines: readonly string[]): FileTime[] {
  const totals = new Map<string, FileTime>();
  for (const line of lines) {
    if (line.trim() === '') continue;
    const { file, seconds, cpuSeconds } = JSON.parse(line) as FileTime;
    const total = totals.get(file) ?? { file, seconds: 0, cpuSeconds: 0 };
    totals.set(file, { file, seconds: total.seconds + seconds, cpuSeconds: total.cpuSeconds + cpuSeconds });
  }
  return [...totals.values()]
    .map((time) => ({ file: time.file, seconds: round(time.seconds), cpuSeconds: round(time.cpuSeconds) }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
}

/** The printed table: the `count` slowest files, and what share of all files' wall time they take. */
export function slowestText(times: readonly FileTime[], count: number): string {
  const sum = (list: readonly FileTime[], key: 'seconds' | 'cpuSeconds'): number => list.reduce((total, time) => total + time[key], 0);
  const shown = times.slice(0, count);
  const total = sum(times, 'seconds');
  const share = total === 0 ? 0 : Math.round((sum(shown, 'seconds') / total) * 100);
  const wall = shown.map((time) => `${time.seconds.toFixed(1)} s`);
  const cpu = shown.map((time) => `${time.cpuSeconds.toFixed(1)} s`);
  const wallWidth = Math.max(4, ...wall.map((text) => text.length));
  const cpuWidth = Math.max(3, ...cpu.map((text) => text.length));
  return [
    `slowest ${shown.length} of ${times.length} test files (${share}% of the ${total.toFixed(0)} s wall, ${sum(times, 'cpuSeconds').toFixed(0)} s CPU all files took):`,
    `  ${'wall'.padStart(wallWidth)}  ${'cpu'.padStart(cpuWidth)}  file`,
    ...shown.map((time, i) => `  ${(wall[i] ?? '').padStart(wallWidth)}  ${(cpu[i] ?? '').padStart(cpuWidth)}  ${time.file}`),
  ].join('\n');
}

function linesFile(): string | undefined {
  const folder = process.env[FOLDER_VARIABLE];
  return folder === undefined || folder === '' ? undefined : join(folder, LINES);
}

/** When the current span began (wall ms, CPU ms): the start of this process's tests, then the end of each file. */
let since = { wall: 0, cpu: 0 };

function record(suite: Suite): void {
  const now = { wall: performance.now(), cpu: selfAndReapedCpuMs() };
  const target = linesFile();
  const file = suite.file === undefined ? suite.fullTitle() : relative(PROJECT_ROOT, suite.file);
  if (target !== undefined)
    appendFileSync(
      target,
      `${JSON.stringify({ file, seconds: (now.wall - since.wall) / 1000, cpuSeconds: (now.cpu - since.cpu) / 1000 })}\n`,
    );
  since = now;
}

export const mochaHooks = {
  beforeAll(this: Context): void {
    since = { wall: performance.now(), cpu: selfAndReapedCpuMs() };
    // Each top-level suite's last after() hook closes its span: added when the run begins, so that it
    // comes after the suite's own after() hooks.
    for (const suite of this.test?.parent?.suites ?? []) suite.afterAll('test-timing: the file ends', () => record(suite));
  },
};

/** The main process: one folder for this run's lines (workers inherit it). */
export function mochaGlobalSetup(): void {
  process.env[FOLDER_VARIABLE] = mkdtempSync(join(tmpdir(), 'goods-test-timing-'));
}

/** The main process, after the run: prints the slowest files, writes them all when asked. */
export function mochaGlobalTeardown(): void {
  const target = linesFile();
  if (target === undefined) return;
  delete process.env[FOLDER_VARIABLE];
  let text = '';
  try {
    text = readFileSync(target, 'utf8');
  } catch {
    // No file ran a test.
  }
  rmSync(join(target, '..'), { recursive: true, force: true });
  const times = fileTimes(text.split('\n'));
  const count = Number(process.env['GOODS_SLOWEST'] ?? '12');
  if (times.length > 0 && Number.isInteger(count) && count > 0) console.log(`\n${slowestText(times, count)}`);
  const out = process.env['GOODS_TEST_TIMES'];
  if (out !== undefined && out !== '') appendFileSync(out, times.map((time) => `${JSON.stringify(time)}\n`).join(''));
}
