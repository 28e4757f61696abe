/**
 * The static comparison on every pair of `testing/compat-pairs.ts`: the changes found, their effect on
 * clients and servers, their level; every pointer names a real place in its document; the level agrees
 * with the contract's own derivation of the spec level (`deriveLevel`).
 */
import assert from 'node:assert/strict';
import { isObject, resolvePointer } from '../../contract/document.js';
import { deriveLevel } from '../../contract/levels.js';
import { COMPAT_PAIRS, editedContract, pairNamed, schemaNamed, type Edit } from '../testing/compat-pairs.js';
import { diffContracts } from './diff.js';

describe('compat: the static comparison of two contracts', () => {
  for (const pair of COMPAT_PAIRS) {
    describe(pair.name, () => {
      const old = editedContract(pair.old);
      const next = editedContract(pair.new);
      const changes = diffContracts(old, next);

      it('finds exactly the expected changes, each classified for clients and servers, with its level', () => {
        assert.deepEqual(
          changes.map((c) => ({ id: c.id, clients: c.clients, servers: c.servers, level: c.level })),
          pair.changes.map((e) => ({ id: e.id, clients: e.clients, servers: e.servers, level: e.level })),
        );
        for (const change of changes) assert.ok(change.reason.length > 20 && !change.reason.includes('\n'), change.reason);
      });

      it('names a real place in each document (the fact, or the object that would hold it)', () => {
        for (const change of changes) {
          assert.notEqual(resolvePointer(old, `#${change.pointers.old}`), undefined, `old ${change.pointers.old}`);
          assert.notEqual(resolvePointer(next, `#${change.pointers.new}`), undefined, `new ${change.pointers.new}`);
        }
      });

      it('a change is a specification fact exactly when the contracts derived at the spec level show it too', () => {
        const atSpec = new Set(diffContracts(deriveLevel(old, 'spec'), deriveLevel(next, 'spec')).map((c) => c.id));
        for (const change of changes) assert.equal(atSpec.has(change.id), change.level === 'spec', change.id);
      });
    });
  }

  it('a bound narrowed: the pointer of the new keyword, and where it would stand in the old document', () => {
    const pair = pairNamed('a request bound narrowed (a maximum added)');
    const [request] = diffContracts(editedContract(pair.old), editedContract(pair.new));
    assert.deepEqual(request?.pointers, {
      old: '/components/schemas/LotTransferFields/properties/amount',
      new: '/components/schemas/LotTransferFields/properties/amount/maximum',
    });
    assert.deepEqual([request.old, request.new, request.direction], [undefined, 10000, 'narrowed']);
    assert.equal(request.operation, 'POST /goodsReception/rest/v1/lot-transfers/create');
    assert.match(request.reason, /^maximum 10000 added: a request a v1 client may send is refused now/);
  });

  it('a recursive schema (a lot of lots) is read once per path: compared by the name it refers to', () => {
    const tree: Edit = (doc) => {
      const properties = schemaNamed(doc, 'Lot')['properties'];
      if (!isObject(properties)) throw new Error('Lot has no properties');
      properties['parent'] = { $ref: '#/components/schemas/Lot' };
      properties['children'] = { type: 'array', items: { $ref: '#/components/schemas/Lot' } };
    };
    const unitBound: Edit = (doc) => {
      const properties = schemaNamed(doc, 'Lot')['properties'];
      if (isObject(properties) && isObject(properties['unit'])) properties['unit']['maxLength'] = 10;
    };
    const changes = diffContracts(editedContract([tree]), editedContract([tree, unitBound]));
    assert.deepEqual(
      changes.map((c) => [c.id, c.clients, c.servers]),
      [['getOrderInfo answer /lots/*/unit maxLength', 'compatible', 'breaking']],
    );
  });

  it('the same contract twice has no change', () => {
    assert.deepEqual(diffContracts(editedContract([]), editedContract([])), []);
  });
});
