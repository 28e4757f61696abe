/** The resources of a contract: found from its operations, links and `x-action`, whatever the path order or the API's names. */
import assert from 'node:assert/strict';
import { isObject, readContract, type JsonObject, type OpenApiDocument } from './document.js';
import { operationsModel, ResourceError, type OperationsModel } from './operations-model.js';
import { booksContract, grownContract } from '../support/grown-contracts.js';

/** Each operation as `METHOD path → role resource {key}`, sorted (independent of the contract's order). */
function roles(model: OperationsModel): string[] {
  return model.operations
    .map(
      (op) =>
        `${op.method} ${op.path} → ${op.role}${op.resource !== undefined ? ` ${op.resource}` : ''}${op.keyParam !== undefined ? ` {${op.keyParam}}` : ''}`,
    )
    .sort();
}

const GROWN_ROLES = [
  'DELETE /goodsReception/rest/v1/lot-transfers/{id} → delete lot-transfers {id}',
  'GET /goodsReception/rest/v1/lot-bookings → list lot-bookings',
  'GET /goodsReception/rest/v1/lot-transfers/{id} → read lot-transfers {id}',
  'GET /goodsReception/rest/v1/test-samples → list test-samples',
  'GET /goodsReception/rest/v1/test-samples/{sampleId} → read test-samples {sampleId}',
  'GET /manualProduction/rest/v1/orders/info/{number} → fixture-read order-infos {number}',
  'PATCH /goodsReception/rest/v1/lot-transfers/{id} → update lot-transfers {id}',
  'POST /goodsReception/rest/v1/lot-bookings/create → create lot-bookings',
  'POST /goodsReception/rest/v1/lot-transfers/create → create lot-transfers',
  'POST /goodsReception/rest/v1/lot-transfers/{id}/complete → action lot-transfers {id}',
  'POST /goodsReception/rest/v1/test-samples/create → create test-samples',
  'PUT /goodsReception/rest/v1/test-samples/{sampleId} → update test-samples {sampleId}',
];

describe('resources: found from the contract', () => {
  it('the bundled contract: the fixture read of the order, and a resource per create with no consumer', () => {
    const model = operationsModel(readContract());
    assert.deepEqual(roles(model), [
      'GET /manualProduction/rest/v1/orders/info/{number} → fixture-read order-infos {number}',
      'POST /goodsReception/rest/v1/lot-transfers/create → create lot-transfers',
      'POST /goodsReception/rest/v1/test-samples/create → create test-samples',
    ]);
    const order = model.resource('order-infos');
    assert.deepEqual([order.fixtures, order.keyPointer, order.keyType], [true, '/order/orderNumber', 'string']);
    const transfers = model.resource('lot-transfers');
    assert.deepEqual([transfers.key, transfers.keyAssigned, transfers.reads, transfers.deletes], ['id', true, [], []]);
  });

  it('a grown contract: reads, lists, changes, a delete and an action, each tied to its resource', () => {
    const model = operationsModel(grownContract());
    assert.deepEqual(roles(model), GROWN_ROLES);
    const transfers = model.resource('lot-transfers');
    assert.deepEqual(transfers.found, {
      getLotTransfer: 'link',
      changeLotTransfer: 'inferred',
      deleteLotTransfer: 'inferred',
      completeLotTransfer: 'inferred',
    });
    assert.deepEqual(transfers.updates, [{ operationId: 'changeLotTransfer', kind: 'merge' }]);
    assert.deepEqual(model.get('completeLotTransfer').action, { sets: { completed: true }, requires: { completed: false } });
    assert.equal(model.get('changeLotTransfer').requestMediaType, 'application/merge-patch+json');
    const samples = model.resource('test-samples');
    assert.deepEqual(samples.updates, [{ operationId: 'replaceTestSample', kind: 'replace' }]);
    assert.deepEqual(
      samples.lists.map((l) => [l.operationId, l.filters.map((f) => `${f.param}=${f.member}:${f.type ?? ''}`), l.paging, l.shape.kind]),
      [['listTestSamples', ['fk_lot_id=fk_lot_id:integer', 'status=status:string'], undefined, 'array']],
    );
    const bookings = model.resource('lot-bookings');
    assert.deepEqual(
      bookings.lists.map((l) => [l.operationId, l.filters.map((f) => f.param), l.paging, l.shape]),
      [
        [
          'listLotBookings',
          ['fk_lot_id'],
          { limit: 'limit', offset: 'offset' },
          { kind: 'page', member: 'items', item: 'LotBooking', others: [{ name: 'total', type: 'integer' }] },
        ],
      ],
    );
    assert.deepEqual(
      model.get('createLotBooking').security.alternatives.map((a) => a.map((s) => [s.name, s.carrier])),
      [[['apiKeyAuth', { kind: 'apiKey', in: 'header', name: 'x-api-key' }]]],
    );
  });

  it('without the declared link, and with the paths in another order, the same resources (the read inferred)', () => {
    const linked = operationsModel(grownContract());
    const inferred = operationsModel(grownContract({ links: false }));
    const reversed = operationsModel(grownContract({ reversed: true }));
    assert.deepEqual(roles(inferred), GROWN_ROLES);
    assert.deepEqual(roles(reversed), GROWN_ROLES);
    assert.equal(inferred.resource('lot-transfers').found['getLotTransfer'], 'inferred');
    const strip = (m: OperationsModel) => m.resources.map(({ found: _found, ...r }) => r);
    assert.deepEqual(strip(inferred), strip(linked));
    assert.deepEqual(strip(reversed), strip(linked));
    assert.deepEqual(reversed.createIds, [...linked.createIds].reverse());
  });

  it('another small API: no lots, no fixtures, a key the client sends (an ISBN), security per operation', () => {
    const model = operationsModel(booksContract());
    assert.deepEqual(roles(model), [
      'DELETE /books/{isbn} → delete books {isbn}',
      'GET /books → list books',
      'GET /books/stats → other',
      'GET /books/{isbn} → read books {isbn}',
      'POST /books → create books',
    ]);
    const books = model.resource('books');
    assert.deepEqual([books.key, books.keyType, books.keyAssigned, books.fixtures], ['isbn', 'string', false, false]);
    assert.equal(model.order, undefined);
    assert.equal(model.orderInfo, undefined);
    assert.equal(model.get('getBook').secured, false);
    assert.deepEqual(
      model
        .get('deleteBook')
        .security.alternatives.map((a) =>
          a.map((s) => `${s.name}:${s.carrier.kind === 'authorization' ? s.carrier.scheme : s.carrier.in}`),
        ),
      [['librarian:bearer'], ['basicAuth:basic']],
    );
  });
});

describe('resources: what cannot be inferred is refused, naming what to declare', () => {
  /** The grown contract with `change` applied to its paths. */
  const edited = (change: (paths: JsonObject, doc: OpenApiDocument) => void): OpenApiDocument => {
    const doc = grownContract();
    const paths = doc['paths'];
    assert.ok(isObject(paths));
    change(paths, doc);
    return doc;
  };
  const operation = (paths: JsonObject, path: string, method: string): JsonObject => {
    const item = paths[path];
    assert.ok(isObject(item) && isObject(item[method]), `${method} ${path}`);
    return item[method];
  };
  const refused = (doc: OpenApiDocument, pointer: string, says: RegExp): void =>
    assert.throws(
      () => operationsModel(doc),
      (error: unknown) => error instanceof ResourceError && error.pointer === pointer && says.test(error.message),
    );
  const COMPLETE = '/goodsReception/rest/v1/lot-transfers/{id}/complete';

  it('a POST on the path of one record without x-action: declare what it does', () => {
    refused(
      edited((paths) => delete operation(paths, COMPLETE, 'post')['x-action']),
      '/paths/~1goodsReception~1rest~1v1~1lot-transfers~1{id}~1complete/post',
      /no rule says what it does: declare x-action/,
    );
  });

  it('a malformed x-action: its pointer and the shape it must have', () => {
    refused(
      edited((paths) => (operation(paths, COMPLETE, 'post')['x-action'] = { sets: {} })),
      '/paths/~1goodsReception~1rest~1v1~1lot-transfers~1{id}~1complete/post/x-action/sets',
      /needs "sets"/,
    );
    refused(
      edited((paths) => (operation(paths, COMPLETE, 'post')['x-action'] = { sets: { finished: true } })),
      '/paths/~1goodsReception~1rest~1v1~1lot-transfers~1{id}~1complete/post/x-action/sets/finished',
      /"finished" is not a member/,
    );
    refused(
      edited((paths) => (operation(paths, COMPLETE, 'post')['x-action'] = { sets: { completed: true }, when: {} })),
      '/paths/~1goodsReception~1rest~1v1~1lot-transfers~1{id}~1complete/post/x-action/when',
      /no "when"/,
    );
  });

  it('a DELETE on a path no read or change shares: declare a link to it', () => {
    refused(
      edited((paths) => {
        const item = paths['/goodsReception/rest/v1/lot-transfers/{id}'];
        assert.ok(isObject(item));
        paths['/goodsReception/rest/v1/lot-transfer-removals/{id}'] = {
          parameters: item['parameters'] ?? [],
          delete: item['delete'] ?? {},
        };
        delete item['delete'];
      }),
      '/paths/~1goodsReception~1rest~1v1~1lot-transfer-removals~1{id}/delete',
      /declare a link to it from the create's success answer/,
    );
  });

  it('a link naming no operation', () => {
    const doc = grownContract();
    const links = ((doc['components'] as JsonObject)['links'] as JsonObject)['GetLotTransfer'] as JsonObject;
    links['operationId'] = 'getNothing';
    refused(doc, '/paths/~1goodsReception~1rest~1v1~1lot-transfers~1create/post/responses/201/links/read', /names no operation/);
  });
});
