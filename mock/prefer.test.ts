import assert from 'node:assert/strict';
import { listOperations, readContract } from '../contract/document.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const contract = readContract();
const operations = listOperations(contract);
const components = (contract['components'] as { schemas: Record<string, unknown> }).schemas;
const exampleOf = (operationId: string, status: string): unknown => {
  const response = operations.find((op) => op.operationId === operationId)?.responses.find((r) => r.status === status);
  return [...(response?.examples.values() ?? [])][0];
};

describe('mock scenario control: Prefer: code=<status> and --latency', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  const validSample = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 7 });
  const validTransfer = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1 });
  const listing = async (resource: string): Promise<unknown[]> =>
    (await (await fetch(`${server.url}/__mock/${resource}`)).json()) as unknown[];
  beforeEach(async () => {
    assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
  });

  it("answers a documented error of a valid request with that operation's own example from the contract", async () => {
    const unauthorized = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Prefer: 'code=401' } });
    assert.equal(unauthorized.status, 401);
    assert.match(unauthorized.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.deepEqual(await unauthorized.json(), exampleOf('getOrderInfo', '401'));

    for (const [path, operationId, body] of [
      [TRANSFERS_PATH, 'createLotTransfer', validTransfer],
      [SAMPLES_PATH, 'createTestSample', validSample],
    ] as const) {
      for (const code of ['400', '413', '415', '422']) {
        const answer = await fetch(`${server.url}${path}`, { method: 'POST', headers: { ...JSON_AUTH, Prefer: `code=${code}` }, body });
        assert.equal(answer.status, Number(code), `${operationId} ${code}`);
        assert.equal(answer.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(await answer.json(), exampleOf(operationId, code), `${operationId} ${code}`);
      }
    }
    assert.deepEqual(await listing('lot-transfers'), [], 'a preferred error records nothing');
    assert.deepEqual(await listing('test-samples'), []);
  });

  it('gives each create a 400 example with its own members', () => {
    const pointers = (operationId: string) =>
      ((exampleOf(operationId, '400') as { errors: { pointer: string }[] }).errors ?? []).map((e) => e.pointer);
    const members = (schema: string) => Object.keys((components[schema] as { properties: object }).properties);
    for (const [operationId, schema] of [
      ['createLotTransfer', 'LotTransferFields'],
      ['createTestSample', 'TestSampleFields'],
    ] as const) {
      assert.ok(pointers(operationId).length > 0, operationId);
      for (const pointer of pointers(operationId)) assert.ok(members(schema).includes(pointer.slice(1)), `${operationId}: ${pointer}`);
    }
  });

  it('answers Prefer: code=404 naming the order that was asked for', async () => {
    const notFound = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0002`, { headers: { ...AUTH, Prefer: 'code=404' } });
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('content-type'), 'application/problem+json');
    const body = (await notFound.json()) as { type: string; detail: string };
    assert.equal(body.type, (exampleOf('getOrderInfo', '404') as { type: string }).type);
    assert.match(body.detail, /"ORD-2026-0002"/);
  });

  it('never turns a refused request into a success: security, then validation, then the preference', async () => {
    const noToken = await fetch(`${server.url}${ORDER_PATH}NOPE`, { headers: { Prefer: 'code=200' } });
    assert.equal(noToken.status, 401);
    const createNoToken = await fetch(`${server.url}${TRANSFERS_PATH}`, { method: 'POST', headers: { Prefer: 'code=201' } });
    assert.equal(createNoToken.status, 401);
    const noBody = await fetch(`${server.url}${TRANSFERS_PATH}`, { method: 'POST', headers: { ...JSON_AUTH, Prefer: 'code=201' } });
    assert.equal(noBody.status, 400);
    const invalid = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: { ...JSON_AUTH, Prefer: 'code=422' },
      body: '{}',
    });
    assert.equal(invalid.status, 400);
    const wrongType = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'text/plain', Prefer: 'code=201' },
      body: validSample,
    });
    assert.equal(wrongType.status, 415);
    const unknownPrefer = await fetch(`${server.url}${ORDER_PATH}NOPE`, { headers: { Prefer: 'code=418' } });
    assert.equal(unknownPrefer.status, 401, 'an invalid preference of a refused request: still refused');
    assert.deepEqual(await listing('lot-transfers'), []);
    assert.deepEqual(await listing('test-samples'), []);
  });

  it('answers a 2xx preference with the real, stateful answer', async () => {
    const unknown = await fetch(`${server.url}${ORDER_PATH}NOPE`, { headers: { ...AUTH, Prefer: 'code=200' } });
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as { detail: string }).detail, /"NOPE"/);
    const known = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0002`, { headers: { ...AUTH, Prefer: 'code=200' } });
    assert.equal(known.status, 200);
    assert.equal(((await known.json()) as { order: { orderNumber: string } }).order.orderNumber, 'ORD-2026-0002');
    const created = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: { ...JSON_AUTH, Prefer: 'code=201' },
      body: validSample,
    });
    assert.equal(created.status, 201);
    const record = (await created.json()) as { fk_user_id: number };
    assert.equal(record.fk_user_id, 7);
    assert.deepEqual(await listing('test-samples'), [record]);
  });

  it('answers 400 problem naming the documented codes for an undocumented one', async () => {
    const response = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Prefer: 'code=418' } });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { type: string; detail: string };
    assert.equal(body.type, 'https://goods.example/problems/invalid-prefer');
    assert.match(body.detail, /200, 401, 404/);
  });

  it('ignores other Prefer preferences', async () => {
    const response = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Prefer: 'return=minimal' } });
    assert.equal(response.status, 200);
  });

  it('--latency delays every API answer', async () => {
    const slow = await startMock({ latencyMs: 300 });
    try {
      const started = Date.now();
      const response = await fetch(`${slow.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
      assert.equal(response.status, 200);
      // A lower bound only: a delay can be longer on a busy machine, never shorter.
      assert.ok(Date.now() - started >= 290, `answered after ${Date.now() - started} ms`);
    } finally {
      await slow.close();
    }
  });
});
