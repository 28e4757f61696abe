/**
 * Every check can fail, and verdicts do not depend on the seed: for each registered check, the
 * reference server with a fault that breaks exactly that rule (one fault per partition class of the
 * rule's inputs) makes exactly that check fail (at the check's level); without faults it passes. The
 * fault cases take the three seeds in turn (each seed runs a third of the table) and the correct
 * server is run under all three with identical verdicts; the whole table under every seed, compared
 * run by run, is the long check `npm run check:seeds` (`seed-table.check.ts`: three times this file's
 * runs, too long for `npm test` on 2 cores).
 */
import assert from 'node:assert/strict';
import { CHECKS } from './checks/index.js';
import { generatedCaseName } from '../checks/create.js';
import { ALLOWED_VARIATIONS, FAULT_CASES, SEQUENCE_PER_LOT } from './self-test/faults.js';
import { failing, FIVE_SEEDS, results, SEEDS, vector, verdicts } from './testing/fault-table.js';

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
    const map = await verdicts([], 'strict', SEEDS[0]);
    assert.deepEqual(failing(map), []);
    assert.deepEqual(
      [...map].filter(([, s]) => s !== 'passed'),
      [],
    );
  });

  it(`the reference server without faults gets identical verdicts under seeds ${SEEDS.join(', ')}`, async () => {
    const [first, ...others] = await Promise.all(SEEDS.map(async (seed) => vector(await verdicts([], 'strict', seed))));
    for (const [i, other] of others.entries()) assert.equal(other, first, `seed ${SEEDS[i + 1] ?? ''} against seed ${SEEDS[0]}`);
  });

  it(`every seed covers every class of every check: the correct server gets the same cases under seeds ${FIVE_SEEDS.join(', ')} (the seeded generated body aside)`, async () => {
    // Per check, its cases' names and statuses: the run marker (in the paths of the whole-run checks) made one
    // word, the order made one (the whole-run checks list the answers in the order they came).
    const casesOf = async (seed: number): Promise<string> =>
      (await results([], 'strict', seed))
        .map((c) => {
          const cases = c.cases
            .filter((x) => x.name !== generatedCaseName(seed))
            .map((x) => `${x.name.replace(/CONF-\d{8}T\d{6}-[A-Z0-9]+/g, 'MARKER')}=${x.status}`)
            .sort();
          return `${c.id}: ${cases.join(' | ')}`;
        })
        .join('\n');
    const [first, ...others] = await Promise.all(FIVE_SEEDS.map(casesOf));
    assert.ok(first?.includes(' | '), 'cases were recorded');
    for (const [i, other] of others.entries()) assert.equal(other, first, `seed ${FIVE_SEEDS[i + 1] ?? ''} against seed ${FIVE_SEEDS[0]}`);
  });

  const perLot = FAULT_CASES.find((f) => f.faults.includes(SEQUENCE_PER_LOT));
  for (const seed of FIVE_SEEDS)
    it(`a sequence counter kept per lot (${SEQUENCE_PER_LOT}) fails ${perLot?.check ?? '(no check)'} under seed ${seed}`, async () => {
      assert.ok(perLot, 'the fault table has the per-lot counter');
      assert.deepEqual(failing(await verdicts(perLot.faults, 'strict', seed)), [perLot.check]);
    });

  it(`a server with variations the contract allows (${ALLOWED_VARIATIONS.join(', ')}) passes every check at strict level`, async () => {
    const map = await verdicts(ALLOWED_VARIATIONS, 'strict', SEEDS[0]);
    assert.deepEqual(
      [...map].filter(([, s]) => s !== 'passed'),
      [],
    );
  });

  for (const [index, fault] of FAULT_CASES.entries()) {
    const check = CHECKS.find((c) => c.id === fault.check);
    const seed = SEEDS[index % SEEDS.length] ?? SEEDS[0];
    it(`${fault.check} fails (and nothing else) with fault ${fault.faults.join(', ')} (seed ${seed})`, async () => {
      assert.ok(check, `registered check ${fault.check}`);
      const expected = [fault.check, ...(fault.alsoFails ?? [])].sort();
      assert.deepEqual(failing(await verdicts(fault.faults, check.level, seed)), expected);
    });
  }
});
