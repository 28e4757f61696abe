/**
 * contract/record-rules.ts: the one reading of a create's server-assigned and defaulted members, and the
 * record roles read from it. Synthetic member lists, and the bundled contract's creates (whose
 * expectations come from their own members, never typed here).
 */
import assert from 'node:assert/strict';
import { readContract } from './document.js';
import { operationsModel, type MemberModel } from './operations-model.js';
import { recordModelOf, recordRolesOf } from './record-rules.js';

/** A member with what a schema may state (a string the client sends unless told otherwise). */
const member = (name: string, stated: Partial<MemberModel> = {}): MemberModel => ({
  name,
  schema: {},
  type: 'string',
  required: false,
  readOnly: false,
  bounds: [],
  namesLot: false,
  ...stated,
});

describe('contract/record-rules: how a create makes its record', () => {
  it('each member gets the rule its schema states; the first date-time stamps the create, the others every change', () => {
    const successMembers = [
      member('n', { type: 'integer', readOnly: true }),
      member('lot', { type: 'integer', namesLot: true }),
      member('at', { format: 'date-time', readOnly: true }),
      member('changed', { format: 'date-time', readOnly: true }),
      member('token', { readOnly: true }),
      member('kind', { default: 'A' }),
      member('none', { default: null }),
      member('tag', { defaultSequence: { prefix: 'T', width: 2 } }),
      member('name', { defaultFrom: { resource: 'lot', member: 'lotNumber' } }),
      member('free'),
    ];
    const model = recordModelOf({ members: successMembers.filter((m) => m.name !== 'n'), successMembers });
    assert.deepEqual(model.fields, [
      { name: 'n', rule: { kind: 'id' } },
      { name: 'lot', rule: { kind: 'input' } },
      { name: 'at', rule: { kind: 'timestamp', stamp: 'created' } },
      { name: 'changed', rule: { kind: 'timestamp', stamp: 'changed' } },
      { name: 'token', rule: { kind: 'assigned' } },
      { name: 'kind', rule: { kind: 'default', value: 'A' } },
      { name: 'none', rule: { kind: 'default', value: null } },
      { name: 'tag', rule: { kind: 'sequence', prefix: 'T', width: 2 } },
      { name: 'name', rule: { kind: 'from-lot', member: 'lotNumber' } },
      { name: 'free', rule: { kind: 'input' } },
    ]);
    assert.deepEqual(model.readOnly, ['at', 'changed', 'token'], 'the request members the server assigns');
    assert.equal(model.lotMember, 'lot');
    assert.deepEqual(recordRolesOf(model), { idMember: 'n', createdMember: 'at', lotMember: 'lot' });
  });

  it('no record roles without a member the server numbers (a key the client sends); no stamp, no lot: none named', () => {
    const members = [member('isbn', { required: true }), member('title')];
    assert.equal(recordRolesOf(recordModelOf({ members, successMembers: members })), undefined);
    const numbered = [member('id', { type: 'integer', readOnly: true }), member('title')];
    assert.deepEqual(recordRolesOf(recordModelOf({ members: numbered, successMembers: numbered })), { idMember: 'id' });
  });

  it("the bundled contract's creates: the model's record model and roles are these, read from their members", () => {
    const model = operationsModel(readContract());
    assert.ok(model.creates.length > 0);
    for (const op of model.creates) {
      const made = recordModelOf(op);
      assert.deepEqual(op.recordModel, made, op.operationId);
      assert.deepEqual(op.record, recordRolesOf(made), op.operationId);
      const assigned = op.successMembers.filter((m) => m.readOnly).map((m) => m.name);
      assert.deepEqual(
        made.fields.filter((f) => ['id', 'timestamp', 'assigned'].includes(f.rule.kind)).map((f) => f.name),
        assigned,
        `${op.operationId}: the server-assigned members are its readOnly ones`,
      );
    }
    for (const op of model.operations) if (op.role !== 'create') assert.equal(op.recordModel, undefined, op.operationId);
  });
});
