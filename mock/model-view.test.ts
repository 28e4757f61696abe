/**
 * `GET /__mock/model` (`model-view.ts`): the operations model as the dashboard reads it, over real
 * HTTP, from the bundled contract and from changed copies of it (a member added, one renamed): the view
 * follows the contract with no change to the mock.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject, readContract, type JsonObject } from '../contract/document.js';
import { operationsModel, withOrder } from '../contract/operations-model.js';
import type { ModelView, OperationView } from './model-view.js';
import type { MockServer } from './server.js';
import { startMock } from './testing.js';

async function view(server: MockServer): Promise<ModelView> {
  const answer = await fetch(`${server.url}/__mock/model`);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('content-type'), 'application/json');
  return (await answer.json()) as ModelView;
}

const propertiesOf = (schema: JsonObject): JsonObject => (isObject(schema['properties']) ? schema['properties'] : {});
const names = (op: OperationView | undefined): string[] => (op?.members ?? []).map((m) => m.name);

describe('mock /__mock/model: the operations model as JSON', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  it('lists every operation of the model with its method, path, role and members in contract order', async () => {
    const model = withOrder(operationsModel(readContract()));
    const { operations } = await view(server);
    assert.deepEqual(
      operations.map((op) => `${op.role} ${op.method} ${op.path} ${op.operationId}`),
      model.operations.map(
        (op) => `${op.operationId === model.orderInfo.operationId ? 'order-read' : 'create'} ${op.method} ${op.path} ${op.operationId}`,
      ),
    );
    for (const op of model.operations) {
      const shown = operations.find((o) => o.operationId === op.operationId);
      assert.deepEqual(
        names(shown),
        op.successMembers.map((m) => m.name),
        op.operationId,
      );
      assert.deepEqual(
        shown?.members.map((m) => m.type),
        op.successMembers.map((m) => m.type ?? null),
      );
    }
  });

  it("gives each create its resource, the listing the mock serves, and its record's id, creation time and lot", async () => {
    const model = withOrder(operationsModel(readContract()));
    const creates = (await view(server)).operations.filter((op) => op.role === 'create');
    assert.equal(creates.length, model.creates.length);
    for (const op of creates) {
      assert.equal(op.listing, `/__mock/${op.resource ?? ''}`);
      assert.equal((await fetch(`${server.url}${op.listing ?? ''}`)).status, 200, op.listing);
      assert.deepEqual(op.record, model.creates.find((create) => create.operationId === op.operationId)?.record);
      assert.ok(op.members.some((m) => m.name === op.record?.idMember && m.readOnly && m.type === 'integer'));
      assert.ok(op.members.some((m) => m.name === op.record?.createdMember && m.format === 'date-time'));
    }
    assert.deepEqual(
      creates.map((op) => op.resource),
      [...new Set(creates.map((op) => op.resource))],
      'one resource per create',
    );
  });

  it('gives the order read its header and lists with the members the model knows (none for an open object)', async () => {
    const model = withOrder(operationsModel(readContract()));
    const read = (await view(server)).operations.find((op) => op.role === 'order-read');
    assert.equal(read?.operationId, model.orderInfo.operationId);
    assert.deepEqual(read?.pathParams, [model.order.numberParam]);
    const order = read?.order;
    assert.equal(order?.headerMember, model.order.orderMember);
    assert.equal(order?.numberMember, model.order.orderNumberMember);
    assert.deepEqual(
      order?.headerMembers.map((m) => m.name),
      model.order.headerMembers.map((m) => m.name),
    );
    assert.deepEqual(
      order?.lists.map((l) => [l.member, l.members.map((m) => m.name)]),
      model.order.lists.map((l) => [l.member, l.members.map((m) => m.name)]),
    );
    assert.ok(order?.lists.some((l) => l.member === order.lotsMember && l.members.some((m) => m.name === order.lotIdMember)));
    assert.ok(
      order?.lists.some((l) => l.members.length === 0),
      'an open object (a container) has no members the model knows',
    );
  });

  it('answers HEAD with no body, and 405 with Allow for another method', async () => {
    const head = await fetch(`${server.url}/__mock/model`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const post = await fetch(`${server.url}/__mock/model`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.match(post.headers.get('content-type') ?? '', /problem\+json/);
  });
});

describe('mock /__mock/model follows the contract the mock serves', () => {
  let folder = '';
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'model-view-'));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  /** The bundled contract with a member added to a create's record, one renamed, and one added to a lot. */
  async function changedContract(): Promise<{ path: string; added: string; renamed: [string, string]; lotAdded: string }> {
    const doc = structuredClone(readContract());
    const model = withOrder(operationsModel(doc));
    const [first, second] = model.creates;
    assert.ok(first && second, 'the contract has two creates');
    const schemas = isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {};
    /** The component holding a schema's own properties (itself, or the one part of `allOf` that has them). */
    const holder = (name: string): JsonObject => {
      const schema = schemas[name];
      assert.ok(isObject(schema), name);
      if (isObject(schema['properties'])) return schema;
      const ref = (Array.isArray(schema['allOf']) ? schema['allOf'] : []).find(
        (part) => isObject(part) && typeof part['$ref'] === 'string',
      );
      assert.ok(isObject(ref) && typeof ref['$ref'] === 'string', `${name} has properties or one allOf part`);
      return holder(ref['$ref'].split('/').pop() ?? '');
    };
    const added = 'pallet_label';
    const addedTo = holder(first.successSchema ?? '');
    addedTo['properties'] = { ...propertiesOf(addedTo), [added]: { type: 'string' } };
    // Rename the last member that is neither server-assigned nor required nor naming a lot, keeping its place.
    const renamedFrom = [...second.members].reverse().find((m) => !m.readOnly && !m.required && !m.namesLot && m.defaultFrom === undefined);
    assert.ok(renamedFrom, 'an optional member to rename');
    const renamed: [string, string] = [renamedFrom.name, `${renamedFrom.name}_renamed`];
    const renamedIn = holder(second.successSchema ?? '');
    renamedIn['properties'] = Object.fromEntries(
      Object.entries(propertiesOf(renamedIn)).map(([name, value]) => [name === renamed[0] ? renamed[1] : name, value]),
    );
    for (const name of [second.successSchema ?? '', second.requestSchema ?? '']) {
      const schema = schemas[name];
      if (isObject(schema) && Array.isArray(schema['required']))
        schema['required'] = schema['required'].map((r) => (r === renamed[0] ? renamed[1] : r));
    }
    const lotAdded = 'batchLabel';
    const lot = holder(model.order.lotSchema);
    lot['properties'] = { ...propertiesOf(lot), [lotAdded]: { type: 'string' } };
    const path = join(folder, 'openapi.json');
    await writeFile(path, JSON.stringify(doc));
    return { path, added, renamed, lotAdded };
  }

  it('shows an added member, a renamed one and a member added to a lot, with no change to the mock', async () => {
    const { path, added, renamed, lotAdded } = await changedContract();
    const bundled = withOrder(operationsModel(readContract()));
    const changed = await startMock({ contractPath: path });
    try {
      const { operations } = await view(changed);
      const [first, second] = bundled.creates;
      const firstView = operations.find((op) => op.operationId === first?.operationId);
      const secondView = operations.find((op) => op.operationId === second?.operationId);
      assert.deepEqual(names(firstView), [...(first?.successMembers ?? []).map((m) => m.name), added]);
      assert.deepEqual(
        names(secondView),
        (second?.successMembers ?? []).map((m) => (m.name === renamed[0] ? renamed[1] : m.name)),
      );
      const lots = operations
        .find((op) => op.role === 'order-read')
        ?.order?.lists.find((l) => l.member === bundled.order.lotsMember)
        ?.members.map((m) => m.name);
      assert.equal(lots?.at(-1), lotAdded);
    } finally {
      await changed.close();
    }
  });
});
