/**
 * Unknown order numbers against a server answering any number with an empty order shell (200, that
 * number, ids 0, every list empty). At `strict`, the suite's own unknown number (made of the run
 * marker, or the user's --unknown-order-number) must be 404: a 2xx fails whatever it describes; the
 * near misses of the real number keep their documented equivalence (a 2xx describing exactly the
 * number asked passes). At `spec`, which defines no answer for a number no order has, only describing
 * another order fails: the shell passes.
 */
import assert from 'node:assert/strict';
import { judgeContexts } from '../../judgments/context.js';
import { judgeUnknownOrder404 } from '../../judgments/order-info.js';
import { readContract } from '../../contract/document.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from '../config.js';
import { runConformance } from '../run.js';
import { REFERENCE_TOKEN, startReferenceServer } from '../self-test/reference-server.js';
import { UNKNOWN_NUMBER_CASES } from '../../checks/order-info.js';

const UNKNOWN = 'UNKNOWN-404';
const OWN = 'the --unknown-order-number';

async function verdictAgainstShell(config: ConformanceConfigInput) {
  const server = await startReferenceServer(['unknown-order-empty-shell']);
  try {
    const { verdict } = await runConformance(resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, ...config }), {
      write: () => undefined,
    });
    return verdict;
  } finally {
    await server.close();
  }
}

describe('order-info checks: an empty order shell for any number', function () {
  this.timeout(20_000);

  it('the judgment: a 2xx for a number no order can have is a violation whatever it describes; a near miss described exactly passes', () => {
    const jc = judgeContexts(readContract()).strict;
    const shell = (number: string) => ({
      request: { method: 'GET', path: '/x', headers: {} },
      answer: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: JSON.stringify({ order: { id: 0, orderNumber: number }, containers: [], charges: [], lots: [] }),
      },
    });
    const [own] = judgeUnknownOrder404(shell('CONF-X'), jc, 'CONF-X', { certainlyUnknown: true });
    assert.equal(own?.expected, 'status 404');
    assert.match(own?.reason ?? '', /status 200 for "CONF-X", a number no order has: a 2xx says the order exists/);
    assert.deepEqual(judgeUnknownOrder404(shell('R-1-x'), jc, 'R-1-x'), []);
    assert.equal(judgeUnknownOrder404(shell('R-1'), jc, 'R-1-x').length, 1, 'another order');
  });

  it(`strict: getOrderInfo.unknown-404 fails on "${OWN}" alone (the near misses pass), nothing else fails`, async () => {
    const verdict = await verdictAgainstShell({ level: 'strict', seed: 7 });
    assert.deepEqual(
      verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id),
      ['getOrderInfo.unknown-404'],
    );
    const check = verdict.checks.find((c) => c.id === 'getOrderInfo.unknown-404');
    assert.deepEqual(
      check?.cases.filter((c) => c.status === 'failed').map((c) => c.name),
      [OWN],
    );
    assert.equal(check?.cases.filter((c) => c.status === 'passed').length, UNKNOWN_NUMBER_CASES.length - 1);
    assert.match(check?.message ?? '', /status 200 for "CONFORMANCE-UNKNOWN CONF-[^"]+", a number no order has/);
    assert.equal(verdict.exitCode, 1);
  });

  it('strict: a --unknown-order-number given by the user is held to the same (no order has it, says the user)', async () => {
    const verdict = await verdictAgainstShell({ level: 'strict', seed: 7, unknownOrderNumber: UNKNOWN });
    const check = verdict.checks.find((c) => c.id === 'getOrderInfo.unknown-404');
    assert.equal(check?.status, 'failed');
    assert.match(check?.failure?.actual ?? '', new RegExp(`status 200 for "${UNKNOWN}"`));
  });

  it('spec: the shell passes (the spec defines no answer for a number no order has; describing another order would fail)', async () => {
    const verdict = await verdictAgainstShell({ level: 'spec', seed: 7 });
    assert.equal(verdict.checks.find((c) => c.id === 'getOrderInfo.unknown-number-not-another-order')?.status, 'passed');
    assert.deepEqual(
      verdict.checks.filter((c) => c.status !== 'passed').map((c) => c.id),
      [],
    );
    assert.equal(verdict.exitCode, 0);
  });
});
