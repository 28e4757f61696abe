/** The self-test: the suite measures its own power from the contract. */
import assert from 'node:assert/strict';
import { figure } from '../../support/figures.js';
import { readContract } from '../../contract/document.js';
import { generatedFaults } from './generated-faults.js';
import { familyOf, renderSelfTest, runSelfTest, selfTestExitCode, triedFirst } from './run.js';
import type { Check } from '../checks/types.js';

describe('the self-test (--self-test)', function () {
  // A guard against a hang, not a speed goal (the bench measures the self-test's time): the bundled
  // contract's whole self-test is about 40 s of CPU, and inside a whole `npm test` on two busy cores it
  // has taken over 200 s of wall time.
  this.timeout(600_000);
  const document = readContract();

  it('generates one fault per keyword of every request and success schema, and one per profile rule of the table', () => {
    const faults = generatedFaults(document);
    const kinds = new Set(faults.map((f) => f.kind));
    assert.deepEqual([...kinds].sort(), ['answer', 'profile', 'request']);
    const has = (fault: string): boolean => faults.some((f) => f.fault === fault);
    assert.ok(has('ignore|createLotTransfer|/amount|exclusiveMinimum'));
    assert.ok(has('ignore|createTestSample|/fk_user_id|required'));
    assert.ok(has('ignore|createLotTransfer|/conformance_unknown_member|unevaluatedProperties'));
    // Unknown members whose pointer needs escaping, near misses of real members.
    assert.ok(has('ignore|createLotTransfer|/conformance~1unknown|unevaluatedProperties'));
    assert.ok(has('ignore|createTestSample|/conformance~0unknown|unevaluatedProperties'));
    assert.ok(has('ignore|createTestSample|/fkUserId|unevaluatedProperties'));
    assert.ok(has('ignore|createLotTransfer|/fk-lot-id|unevaluatedProperties'));
    assert.ok(has('answer|getOrderInfo|/lots/0/createdAt|format'));
    assert.ok(has('answer|createTestSample|/id|type'));
    // A keyword of the specification is judged at spec; a profile keyword at strict.
    assert.equal(faults.find((f) => f.fault === 'answer|getOrderInfo|/order/customerId|type')?.level, 'spec');
    assert.equal(faults.find((f) => f.fault === 'answer|getOrderInfo|/order/orderDate|format')?.level, 'strict');
    assert.equal(new Set(faults.map((f) => f.fault)).size, faults.length, 'each fault once');
  });

  it('a fault tries first the checks that killed its family (kind, operation, keyword), then the others in their order', () => {
    assert.equal(familyOf('ignore|createX|/a|type'), 'ignore|createX|type');
    assert.equal(familyOf('answer|createX|/b/0|type'), 'answer|createX|type');
    assert.equal(familyOf('read-other|getX'), 'read-other|getX');
    const check = (id: string): Check => ({
      id,
      level: 'spec',
      operations: ['x'],
      title: id,
      rule: '',
      cases: [],
      run: () => Promise.resolve(),
    });
    const checks = ['a', 'b', 'c', 'd'].map(check);
    assert.deepEqual(
      triedFirst(checks, ['c', 'gone', 'a']).map((c) => c.id),
      ['c', 'a', 'b', 'd'],
    );
    assert.deepEqual(
      triedFirst(checks, []).map((c) => c.id),
      ['a', 'b', 'c', 'd'],
    );
  });

  it('the bundled contract: the reference server passes at both levels and every generated fault is killed (100%)', async () => {
    const cpu = process.cpuUsage();
    const result = await runSelfTest(document);
    const used = process.cpuUsage(cpu);
    assert.ok(result.reference.spec.passed, result.reference.spec.failed.join(', '));
    assert.ok(result.reference.strict.passed, result.reference.strict.failed.join(', '));
    assert.deepEqual(
      result.survivors.map((s) => s.description),
      [],
    );
    assert.ok(result.total > 200, `${result.total} faults`);
    figure('self-test-faults', result.total);
    figure('self-test-cpu-seconds', (used.user + used.system) / 1e6);
    assert.equal(result.killed, result.total);
    assert.equal(selfTestExitCode(result), 0);
    const text = renderSelfTest(result, 'bundled');
    assert.match(text, new RegExp(`killed ${result.total}/${result.total} faults \\(100\\.0%\\)`));
    for (const op of result.perOperation) assert.match(text, new RegExp(`${op.operation}: killed ${op.killed}/${op.total}`));
  });

  it('a fault the suite cannot catch is a survivor, named, and the exit code is 1', async () => {
    const result = await runSelfTest(document, {
      faults: [
        {
          fault: 'no-such-behaviour',
          operation: 'getOrderInfo',
          level: 'strict',
          description: 'a fault that changes nothing',
          kind: 'profile',
        },
      ],
    });
    assert.equal(result.killed, 0);
    assert.equal(selfTestExitCode(result), 1);
    assert.match(
      renderSelfTest(result, 'bundled'),
      /killed 0\/1 faults \(0\.0%\) in [0-9.]+ s\n {2}survived: a fault that changes nothing \[no-such-behaviour\] at strict/,
    );
  });
});
