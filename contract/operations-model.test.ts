/** The operations model is derived from the contract: paths, methods, members, required, read-only, defaults, bounds, links. */
import assert from 'node:assert/strict';
import { isObject, readContract, type JsonObject, type OpenApiDocument } from './document.js';
import { schemaExtensions } from './extensions.js';
import { ExtensionError, operationsModel, withOrder } from './operations-model.js';

describe('operations model', () => {
  const model = withOrder(operationsModel(readContract()));

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
      lotResource: 'lot',
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

describe('operations model: a contract that does not state what the model needs', () => {
  const base = readContract();
  const model = withOrder(operationsModel(base));
  /** A copy of the bundled contract with `change` applied to its components' schemas (and the document). */
  const changed = (change: (schemas: JsonObject, doc: JsonObject) => void): OpenApiDocument => {
    const doc = structuredClone(base);
    const components = doc['components'];
    assert.ok(isObject(components) && isObject(components['schemas']));
    change(components['schemas'], doc);
    return doc;
  };
  const properties = (schemas: JsonObject, name: string): JsonObject => {
    const schema = schemas[name];
    assert.ok(isObject(schema) && isObject(schema['properties']), `${name} has properties`);
    return schema['properties'];
  };
  const refused = (doc: OpenApiDocument, stated: RegExp): void =>
    assert.throws(
      () => withOrder(operationsModel(doc)),
      (error: unknown) => error instanceof Error && /^the contract does not state /.test(error.message) && stated.test(error.message),
    );
  const lot = model.order.lotSchema;
  const info = model.orderInfo.successSchema ?? '';
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it('no create member with an x-default-from: no lot link, the order is read from fixtures all the same', () => {
    const doc = changed((schemas) => {
      for (const schema of Object.values(schemas))
        if (isObject(schema) && isObject(schema['properties']))
          for (const member of Object.values(schema['properties'])) if (isObject(member)) delete member['x-default-from'];
    });
    const without = operationsModel(doc);
    assert.equal(without.order, undefined);
    assert.equal(without.orderInfo, undefined);
    assert.equal(without.get(model.orderInfo.operationId).role, 'fixture-read');
    assert.deepEqual(
      without.creates.map((op) => op.members.some((m) => m.namesLot)),
      without.creates.map(() => false),
    );
  });

  it('no list of lots in the order answer, no id of a lot, no lot member the default names', () => {
    refused(
      changed((schemas) => delete properties(schemas, info)[model.order.lotsMember]),
      new RegExp(`a read of records served from fixtures .* whose answer lists the ${escape(lot)}`),
    );
    refused(
      changed((schemas) => delete properties(schemas, lot)[model.order.lotIdMember]),
      new RegExp(`an id of ${escape(lot)}`),
    );
    // The member the default names is gone: a start-up error naming the first x-default-from that names it.
    const named = schemaExtensions(base).find((site) => site.defaultFrom?.member === model.order.lotNumberMember);
    assert.ok(named !== undefined, 'an x-default-from names the lot number');
    assert.throws(
      () => operationsModel(changed((schemas) => delete properties(schemas, lot)[model.order.lotNumberMember])),
      (error: unknown) =>
        error instanceof ExtensionError &&
        error.pointer === `${named.pointer}/x-default-from` &&
        error.message.includes(`"${model.order.lotNumberMember}" of ${lot}, which has no such member`),
    );
  });

  it('no order header naming the order number: the read is no fixture read, so nothing lists the lots the creates name', () => {
    let headerSchema: string | undefined;
    changed((schemas) => {
      headerSchema = Object.keys(schemas).find((name) => {
        const schema = schemas[name];
        return isObject(schema) && isObject(schema['properties']) && model.order.orderNumberMember in schema['properties'];
      });
    });
    assert.ok(headerSchema !== undefined, 'a schema holds the order number member');
    const name = headerSchema;
    refused(
      changed((schemas) => delete properties(schemas, name)[model.order.orderNumberMember]),
      /a read of records served from fixtures/,
    );
  });

  it('no Problem or ValidationProblem schema, no errors list, no JSON Pointer member: the model says it has none', () => {
    const { problemSchema, validationProblemSchema, errorsMember } = model;
    assert.ok(problemSchema !== undefined && validationProblemSchema !== undefined && errorsMember !== undefined);
    assert.equal(operationsModel(changed((schemas) => delete schemas[problemSchema])).problemSchema, undefined);
    assert.equal(operationsModel(changed((schemas) => delete schemas[validationProblemSchema])).validationProblemSchema, undefined);
    assert.equal(
      operationsModel(changed((schemas) => delete properties(schemas, validationProblemSchema)[errorsMember])).errorsMember,
      undefined,
    );
    const noPointer = operationsModel(
      changed((schemas) => {
        for (const schema of Object.values(schemas))
          if (isObject(schema) && isObject(schema['properties']))
            for (const member of Object.values(schema['properties']))
              if (isObject(member) && member['format'] === 'json-pointer') delete member['format'];
      }),
    );
    assert.equal(noPointer.pointerMember, undefined);
    assert.equal(noPointer.problemSchema, problemSchema);
  });

  it('an operation it does not have, or a read taken for a create, is refused', () => {
    assert.throws(() => model.get('noSuchOperation'), /the contract does not state the operation noSuchOperation/);
    assert.throws(() => model.create(model.orderInfo.operationId), /as a create operation/);
  });
});
