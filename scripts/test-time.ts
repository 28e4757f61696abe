/**
 * CLI (`npm run test:time`): runs the whole `npm test` and records how long it took, for the
 * figure README.md states.
 *
 *     tsx scripts/test-time.ts [--record FILE]     (default docs/generated/test-time.json)
 *
 * The record is what one passing run measured on a clean clone (`git clone`, `npm ci`, then this):
 * the wall time, the tests mocha counted, the commit, the machine's cores and load averages before
 * and after (these machines are shared: the load says how busy it was), and each test file's wall
 * and CPU time (from support/test-timing.ts; scripts/mocharc.cjs starts the slowest files first by
 * them). A failing run, or one in a working tree with changes, prints its time and writes nothing.
 * Exits with `npm test`'s code.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../contract/paths.js';
import { argvFault, argvFaultText } from '../util/argv.js';
import { fileTimes } from '../support/test-timing.js';

const OPTIONS = { record: { type: 'string', default: join(PROJECT_ROOT, 'docs', 'generated', 'test-time.json') } } as const;

/**
 * mocha's closing counts ("  1298 passing (4m)", "  2 failing", "  1 pending"), added up over the
 * mocha runs of `npm test` (the files counted by the coverage and those run beside it: each prints its own).
 */
export function mochaCounts(output: string): { passing: number; failing: number; pending: number } {
  const sum = (word: string): number =>
    [...output.matchAll(new RegExp(`^ +(\\d+) ${word}\\b`, 'gm'))].reduce((total, match) => total + Number(match[1] ?? 0), 0);
  return { passing: sum('passing'), failing: sum('failing'), pending: sum('pending') };
}

const loads = (): number[] => loadavg().map((load) => Math.round(load * 100) / 100);

function git(args: string[]): string {
  const run = spawnSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : '';
}

/** Runs `npm test`, its output passed through and kept; answers its exit code and output. */
function npmTest(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn('npm', ['test'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      chunks.push(chunk.toString('utf8'));
    });
    child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 1, output: chunks.join('') }));
  });
}

async function main(args: string[]): Promise<number> {
  let recordPath: string;
  try {
    recordPath = resolve(parseArgs({ args, options: OPTIONS, strict: true }).values.record);
  } catch (error) {
    const fault = argvFault(error, args, OPTIONS);
    if (!fault) throw error;
    console.error(`test-time: ${argvFaultText(fault)}; options: --record FILE`);
    return 2;
  }
  const changes = git(['status', '--porcelain']);
  const commit = git(['rev-parse', 'HEAD']);
  const scratch = mkdtempSync(join(tmpdir(), 'goods-test-time-'));
  const filesPath = join(scratch, 'files.json');
  const loadBefore = loads();
  const started = performance.now();
  const { code, output } = await npmTest({ ...process.env, GOODS_TEST_TIMES: filesPath });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const loadAfter = loads();
  const files = existsSync(filesPath) ? fileTimes(readFileSync(filesPath, 'utf8').split('\n')) : [];
  rmSync(scratch, { recursive: true, force: true });
  const tests = mochaCounts(output);
  console.log(
    `\ntest-time: npm test took ${seconds} s (exit ${code}; ${tests.passing} passing, ${tests.failing} failing; load average ${loadBefore.join(', ')} before, ${loadAfter.join(', ')} after)`,
  );
  const shown = relative(PROJECT_ROOT, recordPath);
  if (code !== 0 || tests.failing > 0) console.log(`test-time: the run failed, ${shown} is left as it was`);
  else if (changes !== '' || commit === '')
    console.log(`test-time: not a clean clone (changed files, or no git), ${shown} is left as it was:\n${changes}`);
  else {
    const record = {
      about:
        'Written by `npm run test:time` (scripts/test-time.ts): one whole `npm test` on a clean clone of the commit named. README.md states its time and tests; scripts/mocharc.cjs starts the slowest files first by these times.',
      commit,
      measured: new Date().toISOString().slice(0, 10),
      seconds,
      tests,
      machine: { cpus: cpus().length, node: process.version, loadBefore, loadAfter },
      files,
    };
    mkdirSync(dirname(recordPath), { recursive: true });
    writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`test-time: wrote ${shown}; update the figures README.md states`);
  }
  return code;
}

process.exitCode = await main(process.argv.slice(2));
