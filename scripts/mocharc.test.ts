import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from '../contract/paths.js';

/** The configuration scripts/mocharc.cjs gives mocha under `GOODS_TESTS=mode`, read in a process of its own. */
function configOf(mode: string): { spec: string[]; jobs: number } | string {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(JSON.stringify(require("./scripts/mocharc.cjs")))'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, GOODS_TESTS: mode },
    encoding: 'utf8',
  });
  return run.status === 0 ? (JSON.parse(run.stdout) as { spec: string[]; jobs: number }) : run.stderr;
}

describe('scripts/mocharc.cjs: the test files of each whole run', () => {
  it("npm test's two runs (counted under c8, uncounted beside it) share out every test file once", () => {
    const all = configOf('all');
    const counted = configOf('counted');
    const uncounted = configOf('uncounted');
    assert.ok(typeof all !== 'string' && typeof counted !== 'string' && typeof uncounted !== 'string');
    assert.ok(uncounted.spec.includes('conformance/faults.test.ts'), 'the fault table runs beside the coverage run');
    assert.ok(counted.spec.includes('conformance/self-test/run.test.ts'), "the self-test's run is counted");
    assert.ok(counted.spec.includes('conformance/compat/proof.test.ts'), 'the proofs are counted');
    assert.deepEqual([...counted.spec, ...uncounted.spec].sort(), [...all.spec].sort());
    assert.deepEqual(
      counted.spec.filter((file) => uncounted.spec.includes(file)),
      [],
    );
    assert.equal(uncounted.jobs, 2, 'the uncounted run takes two workers (one would run it in the main process)');
  });

  it('refuses a mode it does not know, naming the modes', () => {
    const refused = configOf('everything');
    assert.equal(typeof refused, 'string', 'the configuration was refused');
    assert.match(typeof refused === 'string' ? refused : '', /GOODS_TESTS=everything: one of all, quick, counted, uncounted/);
  });
});
