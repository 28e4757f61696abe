import assert from 'node:assert/strict';
import { listOperations, readContract } from '../contract/document.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const operations = listOperations(readContract());
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

  it('answers a documented status with its example from the contract', async () => {
    const notFound = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Prefer: 'code=404' } });
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(await notFound.json(), exampleOf('getOrderInfo', '404'));

    const unauthorized = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { headers: { ...AUTH, Prefer: 'code=401' } });
    assert.equal(unauthorized.status, 401);
    assert.match(unauthorized.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.deepEqual(await unauthorized.json(), exampleOf('getOrderInfo', '401'));

    const unknownLot = await fetch(`${server.url}${TRANSFERS_PATH}`, {
      method: 'POST',
      headers: { ...JSON_AUTH, Prefer: 'code=422' },
      body: '{}',
    });
    assert.equal(unknownLot.status, 422);
    assert.deepEqual(await unknownLot.json(), exampleOf('createLotTransfer', '422'));
  });

  it('answers a documented success with its example and records nothing', async () => {
    const created = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: { ...JSON_AUTH, Prefer: 'code=201' },
      body: '{}',
    });
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), exampleOf('createTestSample', '201'));
    assert.deepEqual(await (await fetch(`${server.url}/__mock/test-samples`)).json(), []);
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
