/**
 * `--record DIR`: order-info answers that pass the strict judgments become fixture files (one per
 * order number, the newest answer wins, no credential); a fresh mock on that folder answers those
 * orders identically; an answer that fails is not recorded and the log says why.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGoodsClient } from '../../client/index.js';
import { REFERENCE_TOKEN, startReferenceServer } from '../../conformance/self-test/reference-server.js';
import { loadFixtures, type OrderInfo } from '../../contract/fixtures.js';
import { FIXTURES_DIR } from '../../contract/paths.js';
import { startMock } from '../../mock/testing.js';
import { listen, sendJson } from '../support/http.js';
import { startProxy } from './support.js';

const ORDERS = [...loadFixtures().orders.keys()];

describe('validating proxy: --record', () => {
  it('records every order read through it; a fresh mock on that folder answers those orders identically', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-record-'));
    const upstream = await startMock();
    const proxy = await startProxy(upstream.url, 'spec', { recordDir: dir });
    const token = 'Rec0rdingToken-77';
    const answers = new Map<string, unknown>();
    try {
      const client = createGoodsClient({ baseUrl: proxy.url, token });
      for (const number of ORDERS) {
        const result = await client.getOrderInfo(number);
        assert.equal(result.status, 200);
        answers.set(number, result.data);
      }
      assert.equal((await client.getOrderInfo('NOT-AN-ORDER')).status, 404);
    } finally {
      await proxy.close(); // waits for the writes under way
      await upstream.close();
    }
    const files = readdirSync(dir).sort();
    assert.equal(files.length, ORDERS.length, `one file per order: ${files.join(', ')}`);
    for (const file of files) assert.ok(!readFileSync(join(dir, file), 'utf8').includes(token), `no credential in ${file}`);
    const fresh = await startMock({ fixturesDir: dir });
    try {
      assert.deepEqual([...fresh.orderNumbers].sort(), [...ORDERS].sort());
      const client = createGoodsClient({ baseUrl: fresh.url, token: 'another' });
      for (const number of ORDERS) {
        const result = await client.getOrderInfo(number);
        assert.equal(result.status, 200, number);
        assert.deepEqual(result.data, answers.get(number), number);
      }
    } finally {
      await fresh.close();
    }
  });

  it('does not record an answer that fails the strict judgments, and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-record-'));
    const reference = await startReferenceServer(['order-date-format']);
    const proxy = await startProxy(reference.url, 'spec', { recordDir: dir });
    try {
      const result = await createGoodsClient({ baseUrl: proxy.url, token: REFERENCE_TOKEN }).getOrderInfo('ORD-2026-0001');
      assert.equal(result.status, 200);
    } finally {
      await proxy.close();
      await reference.close();
    }
    assert.deepEqual(readdirSync(dir), []);
    const why = proxy.lines.find((l) => l.includes('not recorded'));
    assert.match(
      why ?? '',
      /ORD-2026-0001 not recorded: the answer fails the strict judgments \(answer\.schema body \/order\/orderDate: the body breaks the schema at \/order\/orderDate: must be a date string\)/,
    );
  });

  it('keeps one file per order number, overwritten by the newer answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-record-'));
    const base = loadFixtures().orders.get('WE 2026-0003') as OrderInfo | undefined;
    assert.ok(base);
    let customer = 100;
    const upstream = await listen((_req, res) => {
      customer++;
      sendJson(res, 200, { ...base, order: { ...base.order, customerId: customer } });
    });
    const proxy = await startProxy(upstream.url, 'spec', { recordDir: dir });
    try {
      const client = createGoodsClient({ baseUrl: proxy.url, token: 'tok-123456' });
      for (let i = 0; i < 3; i++) assert.equal((await client.getOrderInfo('WE 2026-0003')).status, 200);
    } finally {
      await proxy.close();
      await upstream.close();
    }
    const files = readdirSync(dir);
    assert.deepEqual(files, ['WE%202026-0003.json']);
    const saved = JSON.parse(readFileSync(join(dir, files[0] ?? ''), 'utf8')) as typeof base;
    assert.equal(saved.order.customerId, 103, 'the newest answer');
  });

  it('does not record an order whose lot ids belong to another recorded order (--fixtures would refuse the folder), and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-record-'));
    const base = loadFixtures().orders.get('ORD-2026-0001') as OrderInfo | undefined;
    assert.ok(base);
    const upstream = await listen((req, res) => {
      const number = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
      sendJson(res, 200, { ...base, order: { ...base.order, orderNumber: number } });
    });
    const proxy = await startProxy(upstream.url, 'spec', { recordDir: dir });
    try {
      const client = createGoodsClient({ baseUrl: proxy.url, token: 'tok-123456' });
      assert.equal((await client.getOrderInfo('A-1')).status, 200);
      assert.equal((await client.getOrderInfo('B-2')).status, 200);
    } finally {
      await proxy.close();
      await upstream.close();
    }
    assert.deepEqual(readdirSync(dir), ['A-1.json']);
    assert.ok(
      proxy.lines.some((l) => /B-2 not recorded: its lot \d+ is already a lot of recorded order "A-1"/.test(l)),
      proxy.lines.join('\n'),
    );
    const fresh = await startMock({ fixturesDir: dir });
    await fresh.close();
  });

  it('refreshes a fixtures folder in place: an existing file of the order keeps its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-record-'));
    for (const name of readdirSync(FIXTURES_DIR)) copyFileSync(join(FIXTURES_DIR, name), join(dir, name));
    const before = readdirSync(dir).sort();
    const upstream = await startMock();
    const proxy = await startProxy(upstream.url, 'spec', { recordDir: dir });
    try {
      assert.equal((await createGoodsClient({ baseUrl: proxy.url, token: 'tok-123456' }).getOrderInfo('WE 2026-0003')).status, 200);
    } finally {
      await proxy.close();
      await upstream.close();
    }
    assert.deepEqual(readdirSync(dir).sort(), before, 'no second file for WE 2026-0003');
    assert.ok(
      proxy.lines.some((l) => l.includes(`recorded order "WE 2026-0003" → ${join(dir, 'WE-2026-0003.json')}`)),
      proxy.lines.join('\n'),
    );
  });
});
