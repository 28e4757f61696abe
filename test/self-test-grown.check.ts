/**
 * The long self-test check (`npm run check:self-test`, not part of `npm test`: the whole fault table of
 * each grown contract, about 400 faults each, takes a minute or more per contract on a busy 2-core
 * machine): for every contract of support/grown-contracts.ts the mock-based reference passes at both
 * levels and every generated fault is killed (100%). `npm test` runs every record fault and a sample of
 * the others (`conformance/self-test/any-contract.test.ts`).
 */
import assert from 'node:assert/strict';
import type { OpenApiDocument } from '../contract/document.js';
import { booksContract, grownContract } from '../support/grown-contracts.js';
import { renderSelfTest, runSelfTest, selfTestExitCode } from '../conformance/self-test/run.js';

const CONTRACTS: [string, () => OpenApiDocument][] = [
  ['the grown contract (a link declared)', () => grownContract()],
  ['the grown contract without the link', () => grownContract({ links: false })],
  ['the grown contract, its paths in another order', () => grownContract({ reversed: true })],
  ['the books API (no lots, an ISBN as key)', () => booksContract()],
];

describe('the self-test of every grown contract: the whole fault table', () => {
  for (const [label, make] of CONTRACTS)
    it(`${label}: the reference passes at both levels and every generated fault is killed (100%)`, async function () {
      this.timeout(900_000);
      const result = await runSelfTest(make());
      const text = renderSelfTest(result, label);
      process.stdout.write(text);
      assert.ok(result.reference.spec.passed, text);
      assert.ok(result.reference.strict.passed, text);
      assert.deepEqual(
        result.survivors.map((s) => `${s.fault}: ${s.description}`),
        [],
      );
      assert.ok(result.total > 50, `${result.total} faults`);
      assert.equal(result.killed, result.total);
      assert.equal(selfTestExitCode(result), 0);
    });
});
