/**
 * support/test-tmpdir.ts: a mocha run with the plugin gives its workers and their child processes one
 * temporary folder and removes it, with what the tests left in it, at the end.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { runToExit } from './processes.js';

describe('support/test-tmpdir', function () {
  this.timeout(60_000);
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'tmpdir-plugin-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('puts every temporary folder of a parallel run, its child processes included, in one folder it removes at the end', async () => {
    // A test that leaves a folder behind, and a child process that does the same; each says where.
    const spec = join(folder, 'leaves-folders.spec.cjs');
    await writeFile(
      spec,
      [
        "const { mkdtempSync } = require('node:fs');",
        "const { tmpdir } = require('node:os');",
        "const { join } = require('node:path');",
        "const { execFileSync } = require('node:child_process');",
        "it('leaves folders', () => {",
        "  const own = mkdtempSync(join(tmpdir(), 'left-'));",
        "  const script = \"process.stdout.write(require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'child-')))\";",
        "  const child = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });",
        "  console.log('LEFT ' + JSON.stringify([own, child]));",
        '});',
        '',
      ].join('\n'),
    );
    const mocha = join(PROJECT_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const args = [mocha, '--no-config', '--parallel', '--jobs', '2', '--node-option', 'import=tsx'];
    const finished = await runToExit(
      'mocha-tmpdir',
      { command: process.execPath, args: [...args, '--require', join(PROJECT_ROOT, 'support', 'test-tmpdir.ts'), spec] },
      { env: { ...process.env, TMPDIR: folder } },
    );
    assert.equal(finished.code, 0, finished.output);
    const line = /LEFT (\[.*\])/.exec(finished.stdout)?.[1];
    assert.ok(line !== undefined, finished.output);
    const left: unknown = JSON.parse(line);
    assert.ok(Array.isArray(left) && left.length === 2, line);
    for (const path of left) {
      assert.equal(typeof path, 'string');
      const relative = String(path).slice(folder.length + 1);
      assert.match(relative, /^goods-tests-[^/]+\/(left|child)-/, `${String(path)} is in the run's folder`);
      assert.equal(existsSync(String(path)), false, `${String(path)} is removed at the end of the run`);
    }
    // Nothing of the run is left beside the spec (tsx keeps its compile cache in the temporary folder it saw first).
    assert.deepEqual(
      (await readdir(folder)).filter((name) => !name.startsWith('tsx-')),
      ['leaves-folders.spec.cjs'],
    );
  });
});
