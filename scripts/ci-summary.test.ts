/**
 * scripts/ci-summary.mjs, the last lines of .ci/run: on a log like npm test's (two mocha runs, colour
 * codes, box-drawing bytes), it adds up both runs' counts and repeats the failures without stack frames.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'ci-summary.mjs');

function summarize(log: string): { status: number | null; lines: string[] } {
  const folder = mkdtempSync(join(tmpdir(), 'ci-summary-'));
  try {
    const file = join(folder, 'npm-test.log');
    writeFileSync(file, log);
    const run = spawnSync(process.execPath, [SCRIPT, file], { encoding: 'utf8' });
    return { status: run.status, lines: run.stdout.trimEnd().split('\n') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const PASSING_RUN = ['  \x1b[32m✔\x1b[39m a test (12ms)', '', '  152 passing (2m)', ''].join('\n');
const FAILING_RUN = [
  '  1592 passing (6m)',
  '  3 pending',
  '  1 failing',
  '',
  '  1) mock floods',
  '       keeps answering a normal client:',
  '     Error: other side closed',
  '      at Socket.onHttpSocketEnd (node_modules/undici/lib/dispatcher/client-h1.js:1:1)',
  '      at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  '',
  '--> │ name │ duration │',
].join('\n');

describe('scripts/ci-summary.mjs (the end of .ci/run)', () => {
  it('adds up both mocha runs and repeats the failures without stack frames', () => {
    const { status, lines } = summarize(`${PASSING_RUN}\n${FAILING_RUN}\n`);
    assert.equal(status, 0);
    assert.equal(lines.at(-1), 'mocha: 1744 passed, 1 failed, 3 skipped');
    assert.ok(lines.includes('       keeps answering a normal client:'), lines.join('\n'));
    assert.ok(lines.includes('     Error: other side closed'), lines.join('\n'));
    assert.ok(!lines.some((line) => /^ +at /.test(line)), 'no stack frame is repeated');
  });

  it('prints only the summary when nothing failed, and 0 for a word no run printed', () => {
    const { lines } = summarize(PASSING_RUN);
    assert.deepEqual(lines, ['mocha: 152 passed, 0 failed, 0 skipped']);
  });

  it('is what .ci/run calls last, on the log of npm test', () => {
    const run = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    assert.match(run, /npm test 2>&1 \| tee "\$log"[\s\S]*node scripts\/ci-summary\.mjs "\$log"\nrm -f "\$log"\nexit "\$status"\n$/);
  });
});
