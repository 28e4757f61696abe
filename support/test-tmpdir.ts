/**
 * A mocha plugin (`--require ./support/test-tmpdir.ts`, in `scripts/mocharc.cjs` and `.mocharc.json`)
 * that gives a run one temporary folder and removes it when the run ends. The main process creates it
 * and points `TMPDIR` at it before any worker starts: `os.tmpdir()` reads `TMPDIR` on every call, so every
 * temporary folder a test makes (its contracts, reports, state files, a browser's profile, the
 * CLIs it runs, which inherit the environment) lands inside, and a test that forgets to remove its
 * own leaves nothing behind on the developer's machine.
 *
 * A run stopped before its end (Ctrl-C twice) leaves that one folder, named `goods-tests-*` in the
 * system's temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The run's folder (set in the main process; its workers and children inherit `TMPDIR`). */
let runFolder: string | undefined;
let before: string | undefined;

/** The main process, before the workers start: the run's temporary folder. */
export function mochaGlobalSetup(): void {
  before = process.env['TMPDIR'];
  runFolder = mkdtempSync(join(tmpdir(), 'goods-tests-'));
  process.env['TMPDIR'] = runFolder;
}

/** The main process, after the run: the folder goes, with whatever the tests left in it. */
export function mochaGlobalTeardown(): void {
  if (runFolder === undefined) return;
  if (before === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = before;
  rmSync(runFolder, { recursive: true, force: true, maxRetries: 3 });
  runFolder = undefined;
}
