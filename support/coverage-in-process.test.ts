/**
 * support/coverage-in-process.ts: with it loaded, a process given NODE_V8_COVERAGE still writes its
 * own coverage, and a Node child it starts writes none; without it, the child writes its own too.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { isParallelMain } from './coverage-in-process.js';
import { runToExit } from './processes.js';

describe('support/coverage-in-process', function () {
  this.timeout(60_000);
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'coverage-scope-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  /** Runs a parent script that starts a child script; answers which of the two scripts coverage files name. */
  async function run(scoped: boolean): Promise<{ childSaw: string; parent: boolean; child: boolean }> {
    const coverage = join(folder, 'coverage');
    await mkdir(coverage);
    const child = join(folder, 'child-script.cjs');
    const parent = join(folder, 'parent-script.cjs');
    await writeFile(child, 'process.stdout.write(String(process.env.NODE_V8_COVERAGE !== undefined));\n');
    await writeFile(
      parent,
      `process.stdout.write(require('node:child_process').execFileSync(process.execPath, [${JSON.stringify(child)}]));\n`,
    );
    const imports = scoped ? ['--import', 'tsx', '--import', join(PROJECT_ROOT, 'support', 'coverage-in-process.ts')] : [];
    const finished = await runToExit(
      'coverage-scope',
      { command: process.execPath, args: [...imports, parent] },
      { env: { ...process.env, NODE_V8_COVERAGE: coverage } },
    );
    assert.equal(finished.code, 0, finished.output);
    const texts = await Promise.all((await readdir(coverage)).map((name) => readFile(join(coverage, name), 'utf8')));
    return {
      childSaw: finished.stdout,
      parent: texts.some((text) => text.includes('parent-script.cjs')),
      child: texts.some((text) => text.includes('child-script.cjs')),
    };
  }

  it('measures this process only: it writes its coverage, its children no longer inherit NODE_V8_COVERAGE', async () => {
    assert.deepEqual(await run(true), { childSaw: 'false', parent: true, child: false });
  });

  it('without it, the child inherits NODE_V8_COVERAGE and writes coverage of its own', async () => {
    assert.deepEqual(await run(false), { childSaw: 'true', parent: true, child: true });
  });

  it('keeps the variable only in the main process of mocha --parallel, which runs no test and forks the measured workers', () => {
    assert.equal(isParallelMain(['--config', 'scripts/mocharc.cjs', '--parallel'], {}), true);
    assert.equal(isParallelMain(['-p'], {}), true);
    assert.equal(isParallelMain(['--parallel'], { MOCHA_WORKER_ID: '0' }), false, 'a worker');
    assert.equal(isParallelMain(['--config', 'scripts/mocharc.cjs'], {}), false, 'a serial run');
  });
});
