import assert from 'node:assert/strict';
import type { JsonObject } from '../contract/document.js';
import { recordCheck, type RecordCheck } from './record-check.js';
import { bundledContract } from './testing.js';

describe('mock/record-check: a stored record against the contract in force', () => {
  const bundled = bundledContract();
  const [transfers] = bundled.model.createIds;
  if (transfers === undefined) throw new Error('the bundled contract has no create');
  const op = bundled.createOperation(transfers);
  const check: RecordCheck = recordCheck(bundled.model.createIds.map((id) => bundled.createOperation(id).record));
  /** A record as the mock answers it (the contract's own example of the created record). */
  const answered = bundled.model.create(transfers).successExample as JsonObject;
  const pointers = (record: JsonObject, resource = op.resource) => check(resource, record).problems.map((p) => p.pointer);

  it('accepts a record the create answered, and gives its key', () => {
    assert.deepEqual(check(op.resource, answered), { problems: [], key: { member: 'id', value: answered['id'] } });
  });

  it('refuses a member the contract refuses (type, bound), naming each with its pointer and reason', () => {
    const verdict = check(op.resource, { ...answered, fk_lot_id: 'not-a-number', amount: -5 });
    assert.deepEqual(
      verdict.problems.map((p) => p.pointer),
      ['/fk_lot_id', '/amount'],
    );
    assert.deepEqual(
      verdict.problems.map((p) => p.detail),
      ['must be of type integer', 'must be > 0'],
    );
  });

  it('refuses a member the success schema does not name (another contract wrote it)', () => {
    const verdict = check(op.resource, { ...answered, pallet: 'P-1' });
    assert.deepEqual(verdict.problems, [{ pointer: '/pallet', detail: 'is not a member of LotTransfer in the contract in force' }]);
  });

  it('refuses a record without a usable key: not a whole number (the schema says so), 0 or negative (the listings page from 1), missing', () => {
    const keyProblems = (id: unknown) => {
      const verdict = check(op.resource, { ...answered, id });
      assert.equal(verdict.key, undefined, JSON.stringify(id));
      return verdict.problems.filter((p) => p.pointer === '/id').map((p) => p.detail);
    };
    assert.deepEqual(keyProblems('seven'), ['must be of type integer']);
    assert.deepEqual(keyProblems(1.5), ['must be of type integer']);
    assert.deepEqual(keyProblems(0), ['is not a usable key: the mock numbers its records 1, 2, 3, ... and lists them by it (found 0)']);
    assert.deepEqual(keyProblems(-3), ['is not a usable key: the mock numbers its records 1, 2, 3, ... and lists them by it (found -3)']);
    const { id: _dropped, ...keyless } = answered;
    assert.deepEqual(
      check(op.resource, keyless).problems.filter((p) => p.pointer === '/id'),
      [{ pointer: '/id', detail: 'is required' }],
    );
  });

  it('refuses a record of a resource the contract has no create for, naming the ones it has', () => {
    const [problem] = check('pallets', answered).problems;
    assert.equal(problem?.pointer, '');
    assert.match(problem?.detail ?? '', /no create that records "pallets" \(it records lot-transfers, test-samples\)/);
  });

  it('refuses a record that is not an object, and escapes member names in pointers (RFC 6901)', () => {
    assert.ok(check(op.resource, [1, 2]).problems.length > 0);
    assert.deepEqual(pointers({ ...answered, 'a/b~c': 1 }), ['/a~1b~0c']);
  });
});
