/**
 * A mocha plugin (`--require ./support/test-timing.ts`) that measures each test file's wall time and
 * prints the slowest files when the run ends, so the time of a run can be found where it goes.
 *
 * A file's time runs from the moment its process finished the file before (or began its tests) to
 * the end of its last `after()` hook: its hooks and tests, not the loading of its imports. It works
 * in a serial run and in `--parallel` (each worker process measures the files it runs and appends one
 * line each to a file the main process reads at the end).
 *
 * Environment:
 *   GOODS_SLOWEST=N            how many files to print (default 12; 0 prints none)
 *   GOODS_TEST_TIMES=FILE      also write every file's time as JSON to FILE (`{ files: [{ file, seconds }] }`)
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Context, Suite } from 'mocha';
import { PROJECT_ROOT } from '../contract/paths.js';

/** The folder the processes of one run append their lines to (set by the main process, inherited by workers). */
const FOLDER_VARIABLE = 'GOODS_TEST_TIMING_DIR';
const LINES = 'times.jsonl';

export interface FileTime {
  /** The test file, relative to the project root. */
  file: string;
  seconds: number;
}

/** Adds up the lines of one run per file (a file with several top-level suites has one line each). */
export function fileTimes(lines: readonly string[]): FileTime[] {
  const totals = new Map<string, number>();
  for (const line of lines) {
    if (line.trim() === '') continue;
    const { file, seconds } = JSON.parse(line) as FileTime;
    totals.set(file, (totals.get(file) ?? 0) + seconds);
  }
  return [...totals]
    .map(([file, seconds]) => ({ file, seconds: Math.round(seconds * 100) / 100 }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
}

/** The printed table: the `count` slowest files and what share of all files' time they take. */
export function slowestText(times: readonly FileTime[], count: number): string {
  const total = times.reduce((sum, time) => sum + time.seconds, 0);
  const shown = times.slice(0, count);
  const width = Math.max(...shown.map((time) => time.seconds.toFixed(1).length));
  const share = total === 0 ? 0 : Math.round((shown.reduce((sum, time) => sum + time.seconds, 0) / total) * 100);
  return [
    `slowest ${shown.length} of ${times.length} test files (wall time each, ${share}% of the ${total.toFixed(0)} s all files took together):`,
    ...shown.map((time) => `  ${time.seconds.toFixed(1).padStart(width)} s  ${time.file}`),
  ].join('\n');
}

function linesFile(): string | undefined {
  const folder = process.env[FOLDER_VARIABLE];
  return folder === undefined || folder === '' ? undefined : join(folder, LINES);
}

/** When the current span began: the start of this process's tests, then the end of each file. */
let since = 0;

export const mochaHooks = {
  beforeAll(this: Context): void {
    since = performance.now();
    const root = this.test?.parent;
    if (!root) return;
    // Each top-level suite's last after() hook closes its span. Added when the run begins, so that it
    // comes after the suite's own after() hooks.
    for (const suite of root.suites) {
      suite.afterAll('test-timing: the file ends', function (this: Context) {
        record(suite);
      });
    }
  },
};

function record(suite: Suite): void {
  const now = performance.now();
  const target = linesFile();
  const file = suite.file === undefined ? suite.fullTitle() : relative(PROJECT_ROOT, suite.file);
  if (target !== undefined) appendFileSync(target, `${JSON.stringify({ file, seconds: (now - since) / 1000 })}\n`);
  since = now;
}

/** The main process: one folder for this run's lines (workers inherit it). */
export function mochaGlobalSetup(): void {
  process.env[FOLDER_VARIABLE] = mkdtempSync(join(tmpdir(), 'goods-test-timing-'));
}

/** The main process, after the run: prints the slowest files, writes them all when asked. */
export function mochaGlobalTeardown(): void {
  const target = linesFile();
  if (target === undefined) return;
  let text = '';
  try {
    text = readFileSync(target, 'utf8');
  } catch {
    // No file ran a test.
  }
  rmSync(join(target, '..'), { recursive: true, force: true });
  delete process.env[FOLDER_VARIABLE];
  const times = fileTimes(text.split('\n'));
  const count = Number(process.env['GOODS_SLOWEST'] ?? '12');
  if (times.length > 0 && Number.isInteger(count) && count > 0) console.log(`\n${slowestText(times, count)}`);
  const out = process.env['GOODS_TEST_TIMES'];
  if (out !== undefined && out !== '') writeFileSync(out, `${JSON.stringify({ files: times }, null, 2)}\n`);
}
