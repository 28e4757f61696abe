/**
 * The long seed check (`npm run check:seeds`, not part of `npm test`: about three times
 * `faults.test.ts`' runs; its duration is the figure `check-seeds-minutes`): the whole fault table and the correct server give
 * identical verdicts, run by run, under each seed. `npm test` runs each fault case under one of the
 * seeds in turn and the correct server under all of them (`faults.test.ts`).
 */
import assert from 'node:assert/strict';
import { figure } from '../support/figures.js';
import { SEEDS, table } from './testing/fault-table.js';

describe('conformance: seed independence of the whole fault table', () => {
  it(`the whole fault table and the correct server give identical verdicts under seeds ${SEEDS.join(', ')}`, async function () {
    this.timeout(900_000);
    const started = Date.now();
    const [first, ...others] = await Promise.all(SEEDS.map((seed) => table(seed)));
    assert.ok(first && first.length > 1, 'the table has runs');
    for (const [i, other] of others.entries()) assert.deepEqual(other, first, `seed ${SEEDS[i + 1] ?? ''} against seed ${SEEDS[0]}`);
    figure('check-seeds-minutes', (Date.now() - started) / 60_000);
  });
});
