/** The operations model is derived from the contract: paths, methods, members, required, read-only, defaults, bounds, links. */
import assert from 'node:assert/strict';
import { readContract } from './document.js';
import { operationsModel } from './operations-model.js';

describe('operations model', () => {
  const model = operationsModel(readContract());

  it('derives every operation with its method, path, success status and schemas', () => {
    assert.deepEqual(
      model.operations.map((op) => `${op.method} ${op.path} ${op.successStatus} ${op.successSchema}`),
      [
        'GET /manualProduction/rest/v1/orders/info/{number} 200 OrderInfo',
        'POST /goodsReception/rest/v1/lot-transfers/create 201 LotTransfer',
        'POST /goodsReception/rest/v1/test-samples/create 201 TestSample',
      ],
    );
    assert.equal(model.pathOf('getOrderInfo', { number: 'WE 2026/3' }), '/manualProduction/rest/v1/orders/info/WE%202026%2F3');
  });

  it('derives the members: required, read-only, defaults, bounds, the lot reference', () => {
    const lt = model.create('createLotTransfer');
    const member = (name: string) => lt.members.find((m) => m.name === name);
    assert.deepEqual(
      lt.members.filter((m) => m.required).map((m) => m.name),
      ['fk_lot_id', 'source_scancode', 'target_scancode', 'amount'],
    );
    assert.deepEqual(
      lt.members.filter((m) => m.readOnly).map((m) => m.name),
      ['id', 'created', 'modified'],
    );
    assert.equal(member('completed')?.default, false);
    assert.deepEqual(member('lotnumber')?.defaultFrom, { resource: 'lot', member: 'lotNumber' });
    assert.deepEqual(member('amount')?.bounds, [{ keyword: 'exclusiveMinimum', value: 0 }]);
    assert.equal(member('fk_lot_id')?.namesLot, true);
    const ts = model.create('createTestSample');
    assert.deepEqual(ts.members.find((m) => m.name === 'sample_number')?.defaultSequence, { prefix: 'S-', width: 6 });
  });

  it('derives how an order answer links to the creates', () => {
    const { headerMembers, lists, ...links } = model.order;
    assert.deepEqual(links, {
      numberParam: 'number',
      orderMember: 'order',
      orderNumberMember: 'orderNumber',
      lotsMember: 'lots',
      lotIdMember: 'id',
      lotNumberMember: 'lotNumber',
      lotSchema: 'Lot',
    });
    assert.deepEqual(
      headerMembers.map((m) => `${m.name}:${m.type ?? ''}${m.format !== undefined ? `:${m.format}` : ''}`),
      ['id:integer', 'orderNumber:string', 'customerId:integer', 'status:string', 'orderDate:string:date', 'deliveryDate:string:date'],
    );
    assert.deepEqual(
      lists.map((l) => `${l.member} ${l.itemSchema} ${l.members.map((m) => m.name).join(',')}`),
      [
        'containers Container ',
        'charges Charge id,chargeNumber,lotNumber,quantity,status',
        'lots Lot id,lotNumber,supplierNr,articleNr,quantity,unit,deliveryDate,status,createdAt',
      ],
    );
    assert.equal(model.errorsMember, 'errors');
    assert.equal(model.pointerMember, 'pointer');
  });

  it("derives the answers' members and a create's record roles (the id it numbers, the time it stamps, the lot it names)", () => {
    const lt = model.create('createLotTransfer');
    assert.deepEqual(
      lt.successMembers.map((m) => m.name),
      ['id', 'fk_lot_id', 'source_scancode', 'target_scancode', 'amount', 'completed', 'lotnumber', 'created', 'modified'],
    );
    assert.equal(lt.successMembers.find((m) => m.name === 'created')?.format, 'date-time');
    assert.deepEqual(lt.record, { idMember: 'id', createdMember: 'created', lotMember: 'fk_lot_id' });
    assert.deepEqual(model.create('createTestSample').record, { idMember: 'id', createdMember: 'created', lotMember: 'fk_lot_id' });
    assert.deepEqual(
      model.orderInfo.successMembers.map((m) => `${m.name}:${m.type ?? ''}`),
      ['order:object', 'containers:array', 'charges:array', 'lots:array'],
    );
    assert.equal(model.orderInfo.record, undefined);
  });
});
