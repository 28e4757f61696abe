/** From failed checks back to the changes, and what each change's proof status is (`attribute.ts`). */
import assert from 'node:assert/strict';
import type { OperationGroup } from '../../report/results.js';
import type { CheckResult } from '../../report/results.js';
import { attributeFailure, disagreementsOf, pointedChanges, withProofStatus } from './attribute.js';
import type { Change, ProofRun } from './model.js';

function change(id: string, operationId: string, member: string, clients: Change['clients'], servers: Change['servers']): Change {
  return {
    id,
    operationId,
    operation: `POST /${operationId}`,
    place: member === '' ? 'operation' : 'request',
    member,
    aspect: 'x',
    direction: 'changed',
    pointers: { old: '', new: '' },
    level: 'spec',
    clients,
    servers,
    reason: 'a reason',
  };
}

function failed(id: string, operations: OperationGroup[], text: { actual?: string; answer?: string; caseName?: string }): CheckResult {
  return {
    id,
    level: 'spec',
    operation: operations[0] ?? 'server',
    operations,
    title: id,
    rule: 'a rule',
    status: 'failed',
    failures: [
      {
        rule: 'a rule',
        expected: 'something',
        actual: text.actual ?? 'the answer has status 400',
        ...(text.answer ? { answer: text.answer } : {}),
      },
    ],
    cases: [{ name: text.caseName ?? 'a case', status: 'failed' }],
    durationMs: 1,
  };
}

const amount = change('t request /amount maximum', 'createLotTransfer', '/amount', 'breaking', 'breaking');
const priority = change('t request /priority member', 'createLotTransfer', '/priority', 'compatible', 'breaking');
const status = change('t operation status', 'createLotTransfer', '', 'breaking', 'breaking');
const lotBatch = change('o answer /lots/*/batch member', 'getOrderInfo', '/lots/*/batch', 'compatible', 'compatible');
const all = [amount, priority, status, lotBatch];

describe('compat: a failed check points at the changes it names', () => {
  it('by a JSON Pointer in what it reports (an errors[].pointer of the answer), with the operation-level changes', () => {
    const check = failed('createLotTransfer.valid', ['createLotTransfer'], {
      answer: '{"errors":[{"pointer":"/amount","detail":"must be <= 10000"}]}',
    });
    assert.deepEqual(
      pointedChanges(check, all).map((c) => c.id),
      [amount.id, status.id],
    );
  });

  it('by the member name in its failed cases when it reports no pointer', () => {
    const check = failed('createLotTransfer.valid', ['createLotTransfer'], { caseName: 'priority: maximum (5)' });
    assert.deepEqual(
      pointedChanges(check, all).map((c) => c.id),
      [priority.id, status.id],
    );
  });

  it('at every change of its operation when it names no changed member; a whole-server check at every change', () => {
    assert.deepEqual(
      pointedChanges(failed('createLotTransfer.status', ['createLotTransfer'], {}), all).map((c) => c.id),
      [amount.id, priority.id, status.id],
    );
    assert.equal(pointedChanges(failed('server.no-5xx', ['server'], {}), all).length, all.length);
  });

  it('an array item pointer matches any index, and a longer member name does not match a shorter one', () => {
    const check = failed('getOrderInfo.shape', ['getOrderInfo'], { actual: 'the body breaks the schema at /lots/1/batch: must be string' });
    assert.deepEqual(
      pointedChanges(check, all).map((c) => c.id),
      [lotBatch.id],
    );
    const other = failed('createLotTransfer.valid', ['createLotTransfer'], { answer: '{"errors":[{"pointer":"/amount_total"}]}' });
    assert.equal(pointedChanges(other, [amount]).length, 1, 'no member named: every change of the operation');
    assert.equal(pointedChanges(other, [amount, lotBatch]).length, 1);
  });

  it('is a disagreement when none of its changes breaks the side of the run', () => {
    const check = failed('createLotTransfer.valid', ['createLotTransfer'], { answer: '"pointer":"/priority"' });
    assert.equal(attributeFailure('clients', check, [amount, priority], 'm').disagreement, true, 'priority is compatible for clients');
    assert.equal(attributeFailure('servers', check, [amount, priority], 'm').disagreement, false, 'priority breaks servers');
  });
});

describe('compat: the proof status of each change', () => {
  const run = (side: 'clients' | 'servers', failures: ProofRun['failures']): ProofRun => ({
    side,
    suite: 'old',
    mock: 'new',
    question: 'q',
    checks: 1,
    requests: 1,
    durationMs: 1,
    failures,
  });

  it('confirmed, not shown, agrees, contradicted, out of level', () => {
    const runs = [
      run('clients', [{ check: 'a', operation: 'createLotTransfer', message: 'm', changes: [amount.id], disagreement: false }]),
      run('servers', [{ check: 'b', operation: 'getOrderInfo', message: 'm', changes: [lotBatch.id], disagreement: true }]),
    ];
    const statuses = withProofStatus([amount, priority, lotBatch], runs, (c) => c !== priority);
    assert.deepEqual(
      statuses.map((c) => [c.id, c.proof]),
      [
        [amount.id, { clients: 'confirmed', servers: 'not-shown' }],
        [priority.id, { clients: 'out-of-level', servers: 'out-of-level' }],
        [lotBatch.id, { clients: 'agrees', servers: 'contradicted' }],
      ],
    );
    assert.deepEqual(disagreementsOf(runs), [{ side: 'servers', check: 'b', message: 'm', changes: [lotBatch.id] }]);
  });

  it('a run that could not be made says nothing about any change', () => {
    const broken: ProofRun = { ...run('clients', []), error: 'the mock did not start' };
    assert.deepEqual(withProofStatus([amount], [broken], () => true)[0]?.proof, {});
  });
});
