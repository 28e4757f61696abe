/**
 * Every check can fail, and verdicts do not depend on the seed: for each registered check, the
 * reference server with a fault that breaks exactly that rule (one fault per partition class of the
 * rule's inputs) makes exactly that check fail (at the check's level); without faults it passes. The
 * whole table and the correct server are run under three seeds with identical verdicts.
 */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import { CHECKS } from './checks/index.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { ALLOWED_VARIATIONS, FAULT_CASES } from './self-test/faults.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const document = readContract();
const SEEDS = [7, 1234, 987654];

/** Runs already made (faults, level, seed → verdicts): the seed table reuses the single cases' runs under the first seed. */
const runs = new Map<string, Promise<Map<string, string>>>();

/** Check id → status of a run against the reference server with `faults` (each distinct run made once). */
function verdicts(faults: readonly string[], level: Level, seed: number): Promise<Map<string, string>> {
  const key = `${faults.join(',')}|${level}|${seed}`;
  let run = runs.get(key);
  if (!run) {
    run = freshVerdicts(faults, level, seed);
    runs.set(key, run);
  }
  return run;
}

async function freshVerdicts(faults: readonly string[], level: Level, seed: number): Promise<Map<string, string>> {
  const server = await startReferenceServer(faults);
  try {
    const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level, seed, outputDir: 'reports/test' });
    const { verdict } = await runConformance(config, { write: () => undefined, document });
    return new Map(verdict.checks.map((c) => [c.id, c.status]));
  } finally {
    await server.close();
  }
}

const failing = (map: Map<string, string>): string[] =>
  [...map]
    .filter(([, status]) => status === 'failed')
    .map(([id]) => id)
    .sort();

/** The table's runs: the correct server (strict) and each fault at its check's level. */
const RUNS: { name: string; faults: string[]; level: Level }[] = [
  { name: 'no fault', faults: [], level: 'strict' },
  ...FAULT_CASES.map((f) => ({
    name: f.faults.join(', '),
    faults: f.faults,
    level: CHECKS.find((c) => c.id === f.check)?.level ?? 'strict',
  })),
];

/** Verdict vectors of every run of the table under a seed, two runs at a time. */
async function table(seed: number): Promise<string[]> {
  const out: string[] = new Array<string>(RUNS.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < RUNS.length) {
      const index = next++;
      const run = RUNS[index];
      if (!run) continue;
      const map = await verdicts(run.faults, run.level, seed);
      out[index] = `${run.name} @${run.level}: ${[...map].map(([id, s]) => `${id}=${s}`).join(' ')}`;
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
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

  it('the reference server without faults passes every check at strict level (every check ran: exit 0)', async () => {
    const map = await verdicts([], 'strict', SEEDS[0] ?? 7);
    assert.deepEqual(failing(map), []);
    assert.deepEqual(
      [...map].filter(([, s]) => s !== 'passed'),
      [],
    );
  });

  it(`a server with variations the contract allows (${ALLOWED_VARIATIONS.join(', ')}) passes every check at strict level`, async () => {
    const map = await verdicts(ALLOWED_VARIATIONS, 'strict', SEEDS[0] ?? 7);
    assert.deepEqual(
      [...map].filter(([, s]) => s !== 'passed'),
      [],
    );
  });

  for (const fault of FAULT_CASES) {
    const check = CHECKS.find((c) => c.id === fault.check);
    it(`${fault.check} fails (and nothing else) with fault ${fault.faults.join(', ')}`, async () => {
      assert.ok(check, `registered check ${fault.check}`);
      const expected = [fault.check, ...(fault.alsoFails ?? [])].sort();
      assert.deepEqual(failing(await verdicts(fault.faults, check.level, SEEDS[0] ?? 7)), expected);
    });
  }

  it(`seed independence: the whole fault table and the correct server give identical verdicts under seeds ${SEEDS.join(', ')}`, async function () {
    this.timeout(600_000);
    const [first, ...others] = await Promise.all(SEEDS.map((seed) => table(seed)));
    for (const [i, other] of others.entries()) assert.deepEqual(other, first, `seed ${SEEDS[i + 1] ?? ''} against seed ${SEEDS[0] ?? ''}`);
  });
});
