/**
 * The typed client against the real mock over loopback HTTP: typed data for the three operations,
 * the problem+json error paths, and isolated sessions (the `session` option) created concurrently.
 */
import assert from 'node:assert/strict';
import { createMockServer, type MockServer } from '../mock/index.js';
import { loadFixtures } from '../contract/fixtures.js';
import { createGoodsClient, isValidationProblem, type LotTransfer, type TestSample } from './index.js';

describe('typed client against the mock', () => {
  let mock: MockServer;
  before(async () => {
    mock = await createMockServer({ port: 0, quiet: true });
  });
  after(() => mock.close());

  it('reads every fixture order, the one with a space in its number included', async () => {
    const client = createGoodsClient({ baseUrl: mock.url, token: 'client-test' });
    for (const [number, info] of loadFixtures().orders) {
      const result = await client.getOrderInfo(number);
      assert.equal(result.status, 200, number);
      assert.deepEqual(result.data, info, number);
    }
  });

  it('creates a transfer and a sample and answers them typed, as the mock recorded them', async () => {
    const client = createGoodsClient({ baseUrl: mock.url, token: 'client-test', session: 'client-create' });
    const transfer = await client.createLotTransfer({ fk_lot_id: 2202, source_scancode: 'S-1', target_scancode: 'T-1', amount: 0.25 });
    const sample = await client.createTestSample({ fk_lot_id: 2202, fk_user_id: 3 });
    assert.equal(transfer.status, 201);
    assert.equal(sample.status, 201);
    assert.equal(transfer.data?.lotnumber, 'L-241502');
    assert.equal(transfer.data?.completed, false);
    assert.equal(sample.data?.status, 'NEW');
    const recorded = (url: string) => fetch(`${mock.url}${url}`, { headers: { 'X-Mock-Session': 'client-create' } }).then((r) => r.json());
    assert.deepEqual(await recorded('/__mock/lot-transfers'), [transfer.data]);
    assert.deepEqual(await recorded('/__mock/test-samples'), [sample.data]);
  });

  it('answers the problem details for an unknown order, a rejected token, an invalid body and an unknown lot', async () => {
    const client = createGoodsClient({ baseUrl: mock.url, token: 'client-test' });
    const notFound = await client.getOrderInfo('ORD-0000');
    assert.equal(notFound.status, 404);
    assert.equal(notFound.error?.type, 'https://goods.example/problems/order-not-found');

    const rejected = await createGoodsClient({ baseUrl: mock.url, token: 'invalid' }).getOrderInfo('ORD-2026-0001');
    assert.equal(rejected.status, 401);
    assert.equal(rejected.error?.status, 401);

    const invalid = await client.createLotTransfer({ fk_lot_id: 2001, source_scancode: '', target_scancode: 'T', amount: 0 });
    assert.equal(invalid.status, 400);
    assert.ok(invalid.error && isValidationProblem(invalid.error), 'the 400 lists what was wrong');
    assert.deepEqual(invalid.error.errors.map((e) => e.pointer).sort(), ['/amount', '/source_scancode']);

    const unknownLot = await client.createTestSample({ fk_lot_id: 999_999, fk_user_id: 1 });
    assert.equal(unknownLot.status, 422);
    assert.equal(unknownLot.error?.type, 'https://goods.example/problems/unknown-lot');
    assert.ok(unknownLot.error && isValidationProblem(unknownLot.error), 'the 422 names the member too');
    assert.deepEqual(
      unknownLot.error.errors.map((e) => e.pointer),
      ['/fk_lot_id'],
    );
    assert.ok(notFound.error && rejected.error);
    for (const problem of [notFound.error, rejected.error]) assert.equal(isValidationProblem(problem), false, problem.type);
  });

  it('two sessions creating concurrently each see only their own records', async () => {
    const names = ['client-alice', 'client-bob'];
    const perSession = 10;
    const created = await Promise.all(
      names.map(async (session) => {
        const client = createGoodsClient({ baseUrl: mock.url, token: `token-${session}`, session });
        const results = await Promise.all(
          Array.from({ length: perSession }, (_, i) =>
            i % 2 === 0
              ? client.createLotTransfer({ fk_lot_id: 2001, source_scancode: `${session}-${i}`, target_scancode: 'T', amount: i + 1 })
              : client.createTestSample({ fk_lot_id: 2001, fk_user_id: i + 1, notes: `${session}-${i}` }),
          ),
        );
        for (const result of results) assert.equal(result.status, 201, JSON.stringify(result.error));
        return results.map((r) => r.data);
      }),
    );
    for (const [index, session] of names.entries()) {
      const headers = { 'X-Mock-Session': session };
      const transfers = (await (await fetch(`${mock.url}/__mock/lot-transfers`, { headers })).json()) as LotTransfer[];
      const samples = (await (await fetch(`${mock.url}/__mock/test-samples`, { headers })).json()) as TestSample[];
      assert.equal(transfers.length, perSession / 2, session);
      assert.equal(samples.length, perSession / 2, session);
      assert.ok(
        transfers.every((t) => t.source_scancode.startsWith(`${session}-`)),
        `${session} sees only its transfers`,
      );
      assert.ok(
        samples.every((s) => s.notes.startsWith(`${session}-`)),
        `${session} sees only its samples`,
      );
      // Each session numbers its own records from 1.
      assert.deepEqual(
        transfers.map((t) => t.id).sort((a, b) => a - b),
        [1, 2, 3, 4, 5],
      );
      const mine = created[index] ?? [];
      assert.deepEqual([...transfers, ...samples].map((r) => JSON.stringify(r)).sort(), mine.map((r) => JSON.stringify(r)).sort());
    }
    // The default session saw none of it.
    const defaults = (await (await fetch(`${mock.url}/__mock/lot-transfers`)).json()) as LotTransfer[];
    assert.ok(defaults.every((t) => !t.source_scancode.startsWith('client-')));
  });
});
