/**
 * Every check can fail: for each registered check, the reference server with a fault that breaks
 * exactly that rule makes exactly that check fail (at the check's level); without faults it passes.
 */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { CHECKS } from './checks/index.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { FAULT_CASES } from './testing/faults.js';
import { REFERENCE_TOKEN, startReferenceServer } from './testing/reference-server.js';
import type { Level } from '../contract/levels.js';

const document = readContract();

async function failingChecks(faults: string[], level: Level): Promise<string[]> {
  const server = await startReferenceServer(faults);
  try {
    const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level, seed: 7, outputDir: 'reports/test' });
    const { verdict } = await runConformance(config, { write: () => undefined, document });
    return verdict.checks
      .filter((c) => c.status === 'failed')
      .map((c) => c.id)
      .sort();
  } finally {
    await server.close();
  }
}

describe('conformance checks against the reference server', () => {
  it('every registered check has at least one fault case, and every fault case names a registered check', () => {
    const ids = new Set(CHECKS.map((c) => c.id));
    assert.equal(ids.size, CHECKS.length, 'check ids are unique');
    const covered = new Set(FAULT_CASES.map((f) => f.check));
    assert.deepEqual(
      [...ids].filter((id) => !covered.has(id)),
      [],
      'checks without a fault case',
    );
    assert.deepEqual(
      [...covered].filter((id) => !ids.has(id)),
      [],
      'fault cases naming no check',
    );
  });

  it('the reference server without faults passes every check at strict level', async () => {
    assert.deepEqual(await failingChecks([], 'strict'), []);
  });

  for (const fault of FAULT_CASES) {
    const check = CHECKS.find((c) => c.id === fault.check);
    it(`${fault.check} fails (and nothing else) with fault ${fault.faults.join(', ')}`, async () => {
      assert.ok(check, `registered check ${fault.check}`);
      const expected = [fault.check, ...(fault.alsoFails ?? [])].sort();
      assert.deepEqual(await failingChecks(fault.faults, check.level), expected);
    });
  }
});
