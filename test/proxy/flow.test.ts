/**
 * The typed client's usual flow run through the validating proxy: against the project's own mock no
 * violation at either level; against the reference server with faults, exactly the violations of those
 * faults (and only at the level whose rules they break); a client body that breaks the contract is a
 * client problem, told apart from the server's.
 */
import assert from 'node:assert/strict';
import { REFERENCE_TOKEN, startReferenceServer } from '../../conformance/self-test/reference-server.js';
import type { Level } from '../../contract/levels.js';
import { startMock } from '../../mock/testing.js';
import { CORRECT_FLOW_STATUSES, startProxy, usualFlow, violationLines, violationsOf } from './support.js';

const ORDER = 'ORD-2026-0001';
const LOT = 2001;

describe('validating proxy: the client flow through it', () => {
  for (const level of ['spec', 'strict'] as const) {
    it(`in front of the project's mock: the usual flow has zero violations at ${level}`, async () => {
      const mock = await startMock();
      const proxy = await startProxy(mock.url, level);
      try {
        const statuses = await usualFlow({ baseUrl: proxy.url, token: 'flow-token', badToken: 'invalid', orderNumber: ORDER, lotId: LOT });
        assert.deepEqual(statuses, CORRECT_FLOW_STATUSES);
        const snapshot = await violationsOf(proxy);
        assert.equal(snapshot.exchanges, CORRECT_FLOW_STATUSES.length);
        assert.equal(snapshot.total, 0, JSON.stringify(snapshot.recent, null, 1));
        assert.deepEqual(snapshot.recent, []);
      } finally {
        await proxy.close();
        await mock.close();
      }
    });
  }

  it('against the reference server without faults: zero violations at strict', async () => {
    const reference = await startReferenceServer([]);
    const proxy = await startProxy(reference.url, 'strict');
    try {
      const statuses = await usualFlow({ baseUrl: proxy.url, token: REFERENCE_TOKEN, badToken: 'invalid', orderNumber: ORDER, lotId: LOT });
      assert.deepEqual(statuses, CORRECT_FLOW_STATUSES);
      assert.deepEqual(await violationLines(proxy), []);
    } finally {
      await proxy.close();
      await reference.close();
    }
  });

  /**
   * Each fault of the reference server, the level, and the violations it must cause in the usual flow
   * (derived from the flow: one order read, one transfer and one sample created, an unknown order, a
   * refused token, an unknown lot on each create). A strict-only fault is also run at spec: nothing.
   */
  const FAULTS: { faults: string[]; level: Level; expected: string[] }[] = [
    { faults: ['order-wrong-type'], level: 'spec', expected: ['server getOrderInfo answer.schema body /order/customerId'] },
    { faults: ['order-number-changed'], level: 'spec', expected: ['server getOrderInfo answer.exact-order body /order/orderNumber'] },
    { faults: ['create-id-string:createLotTransfer'], level: 'spec', expected: ['server createLotTransfer answer.schema body /id'] },
    {
      // The flow's sample sends a lotnumber: the server answers the lot's instead.
      faults: ['ignore-sent-default-from:createTestSample'],
      level: 'spec',
      expected: ['server createTestSample answer.echo body /lotnumber'],
    },
    { faults: ['order-203'], level: 'strict', expected: ['server getOrderInfo answer.status status'] },
    { faults: ['order-203'], level: 'spec', expected: [] },
    { faults: ['order-date-format'], level: 'strict', expected: ['server getOrderInfo answer.schema body /order/orderDate'] },
    { faults: ['order-date-format'], level: 'spec', expected: [] },
    { faults: ['create-200:createLotTransfer'], level: 'strict', expected: ['server createLotTransfer answer.status status'] },
    {
      faults: ['created-format:createTestSample'],
      level: 'strict',
      // The fault formats the time of the create, which is both `created` and `modified`.
      expected: ['server createTestSample answer.schema body /created', 'server createTestSample answer.schema body /modified'],
    },
    // The flow's transfer omits `completed`: the server answers the opposite of the default (a valid boolean).
    {
      faults: ['wrong-default:createLotTransfer'],
      level: 'strict',
      expected: ['server createLotTransfer answer.defaults body /completed'],
    },
    { faults: ['wrong-default:createLotTransfer'], level: 'spec', expected: [] },
    // The flow's sample omits `status` (and sends `notes`): the server answers "OPEN", not the default "NEW".
    { faults: ['wrong-default:createTestSample'], level: 'strict', expected: ['server createTestSample answer.defaults body /status'] },
    { faults: ['wrong-default:createTestSample'], level: 'spec', expected: [] },
    { faults: ['unknown-lot-400:createLotTransfer'], level: 'strict', expected: ['server createLotTransfer answer.input-status status'] },
    {
      faults: ['unknown-lot-no-pointer:createTestSample'],
      level: 'strict',
      expected: ['server createTestSample answer.schema body /errors'],
    },
    { faults: ['unknown-order-410'], level: 'strict', expected: ['server getOrderInfo answer.status status'] },
    {
      faults: ['auth-no-invalid-token:getOrderInfo'],
      level: 'strict',
      expected: ['server getOrderInfo answer.auth-401 header www-authenticate'],
    },
    {
      faults: ['auth-no-challenge:getOrderInfo'],
      level: 'strict',
      // The suite's judgeUnauthorized: a 401 without a Bearer challenge.
      expected: ['server getOrderInfo answer.auth-401 header www-authenticate'],
    },
    {
      faults: ['problem-no-type'],
      level: 'strict',
      expected: [
        'server createLotTransfer answer.schema body /type',
        'server createTestSample answer.schema body /type',
        'server getOrderInfo answer.schema body /type',
        'server getOrderInfo answer.schema body /type',
      ],
    },
    {
      faults: ['order-wrong-type', 'create-200:createLotTransfer', 'wrong-default:createTestSample'],
      level: 'strict',
      expected: [
        'server createLotTransfer answer.status status',
        'server createTestSample answer.defaults body /status',
        'server getOrderInfo answer.schema body /order/customerId',
      ],
    },
  ];

  for (const { faults, level, expected } of FAULTS) {
    it(`against the reference server with ${faults.join(' + ')} at ${level}: exactly ${expected.length} violation(s), all the server's`, async () => {
      const reference = await startReferenceServer(faults);
      const proxy = await startProxy(reference.url, level);
      try {
        await usualFlow({ baseUrl: proxy.url, token: REFERENCE_TOKEN, badToken: 'invalid', orderNumber: ORDER, lotId: LOT });
        assert.deepEqual(await violationLines(proxy), [...expected].sort());
        const snapshot = await violationsOf(proxy);
        assert.equal(snapshot.total, expected.length);
        assert.equal(snapshot.server, expected.length);
        assert.equal(snapshot.client, 0);
        for (const line of expected) {
          const [, operation, rule] = line.split(' ');
          assert.ok(
            proxy.lines.some((l) => l.includes(`server violation ${operation ?? ''} ${rule ?? ''}`)),
            `a log line for ${line}`,
          );
        }
      } finally {
        await proxy.close();
        await reference.close();
      }
    });
  }

  it('a client body that breaks the contract is a client problem; a server accepting it is the server problem (strict)', async () => {
    const mock = await startMock();
    const reference = await startReferenceServer(['no-required:createLotTransfer']);
    const good = await startProxy(mock.url, 'strict');
    const lax = await startProxy(reference.url, 'strict');
    // Three problems for the mock; one (a required member missing) for the faulty server, which drops only that check.
    const bodies = new Map([
      [good, JSON.stringify({ fk_lot_id: LOT, source_scancode: 'S', amount: -1, colour: 'red' })],
      [lax, JSON.stringify({ fk_lot_id: LOT, source_scancode: 'S', amount: 1 })],
    ]);
    try {
      const statuses: number[] = [];
      for (const [proxy, body] of bodies) {
        const answer = await fetch(`${proxy.url}/goodsReception/rest/v1/lot-transfers/create`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${proxy === good ? 'any-token' : REFERENCE_TOKEN}`, 'Content-Type': 'application/json' },
          body,
        });
        statuses.push(answer.status);
        await answer.arrayBuffer();
      }
      assert.deepEqual(statuses, [400, 201]);
      // The mock answers 400 as the profile says: only the client is at fault, every problem listed.
      assert.deepEqual(await violationLines(good), [
        'client createLotTransfer request.body-schema body /amount',
        'client createLotTransfer request.body-schema body /colour',
        'client createLotTransfer request.body-schema body /target_scancode',
      ]);
      assert.equal((await violationsOf(good)).server, 0);
      // The faulty server creates a transfer from a body missing a required member: both are at fault
      // (and the transfer it answers lacks that member, which the strict answer schema requires).
      assert.deepEqual(await violationLines(lax), [
        'client createLotTransfer request.body-schema body /target_scancode',
        'server createLotTransfer answer.input-status status',
        'server createLotTransfer answer.schema body /target_scancode',
      ]);
      assert.ok(
        good.lines.some((l) => /client violation createLotTransfer request\.body-schema \[strict\] body \/colour/.test(l)),
        good.lines.join('\n'),
      );
    } finally {
      await good.close();
      await lax.close();
      await reference.close();
      await mock.close();
    }
  });

  it('a 400 that does not point at every problem of the body is the server problem (strict); the mock points at each', async () => {
    const mock = await startMock();
    const reference = await startReferenceServer(['wrong-type-pointer-root:createLotTransfer']);
    const good = await startProxy(mock.url, 'strict');
    const vague = await startProxy(reference.url, 'strict');
    const body = JSON.stringify({ fk_lot_id: LOT, source_scancode: 'S', target_scancode: 'T', amount: 'two' });
    try {
      for (const [proxy, token] of [
        [good, 'any-token'],
        [vague, REFERENCE_TOKEN],
      ] as const) {
        const answer = await fetch(`${proxy.url}/goodsReception/rest/v1/lot-transfers/create`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body,
        });
        assert.equal(answer.status, 400);
        await answer.arrayBuffer();
      }
      assert.deepEqual(await violationLines(good), ['client createLotTransfer request.body-schema body /amount']);
      assert.deepEqual(await violationLines(vague), [
        'client createLotTransfer request.body-schema body /amount',
        // The suite's judgeRefused names the request pointer that no errors[].pointer names.
        'server createLotTransfer answer.error-pointers body /amount',
      ]);
    } finally {
      await good.close();
      await vague.close();
      await reference.close();
      await mock.close();
    }
  });

  it('at spec level only what the specification says is a client problem (an unknown member is not)', async () => {
    const mock = await startMock();
    const proxy = await startProxy(mock.url, 'spec');
    try {
      const answer = await fetch(`${proxy.url}/goodsReception/rest/v1/lot-transfers/create`, {
        method: 'POST',
        headers: { Authorization: 'Bearer any-token', 'Content-Type': 'text/plain' },
        body: JSON.stringify({ fk_lot_id: 'two', source_scancode: 'S', target_scancode: 'T', amount: 1, colour: 'red' }),
      });
      assert.equal(answer.status, 415);
      await answer.arrayBuffer();
      assert.deepEqual(await violationLines(proxy), [
        'client createLotTransfer request.body-schema body /fk_lot_id',
        'client createLotTransfer request.media-type header content-type',
      ]);
    } finally {
      await proxy.close();
      await mock.close();
    }
  });
});
