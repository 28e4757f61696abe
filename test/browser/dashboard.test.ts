/**
 * The dashboard (`GET /__mock/`) in headless Chromium: the fixture orders with their lots, records
 * created through the API appearing by themselves, the session selector, reset (also behind an admin
 * token), and the API reference rendered by the locally served Swagger UI. No request leaves the mock.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createGoodsClient, type GoodsClient } from '../../client/index.js';
import { loadFixtures } from '../../contract/fixtures.js';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { launchChromium, type Chromium } from '../support/browser.js';
import { startRedis } from '../../support/redis.js';

/** The values of one attribute of every element matching `selector`, in document order. */
async function attributes(page: Page, selector: string, name: string): Promise<(string | null)[]> {
  return Promise.all((await page.locator(selector).all()).map((element) => element.getAttribute(name)));
}

/** Waits until exactly `count` elements match `selector` (the page refreshes itself). */
async function waitForCount(page: Page, selector: string, count: number): Promise<void> {
  // Locators, not a string predicate: the dashboard's content security policy forbids eval.
  const matches = page.locator(selector);
  if (count > 0) await matches.nth(count - 1).waitFor({ state: 'attached' });
  await matches.nth(count).waitFor({ state: 'detached' });
  assert.equal(await matches.count(), count, selector);
}

describe('browser: the dashboard at /__mock/', function () {
  this.timeout(60_000);
  let mock: MockServer;
  let browser: Chromium;
  let page: Page;
  let api: GoodsClient;
  const requested: string[] = [];

  before(async () => {
    mock = await createMockServer({ port: 0, quiet: true });
    api = createGoodsClient({ baseUrl: mock.url, token: 'dashboard-test' });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${mock.url}/__mock/`);
  });
  after(async () => {
    await browser?.close();
    await mock?.close();
  });

  const rows = (table: string) => page.locator(`#${table} tbody tr`);
  const cells = (table: string, id: number) => page.locator(`#${table} tbody tr[data-id="${id}"] td`).allTextContents();

  it('shows every fixture order with its lots', async () => {
    const fixtures = loadFixtures();
    await page.waitForSelector('article.order[data-order="WE 2026-0003"] tr[data-lot]');
    assert.deepEqual(await attributes(page, 'article.order', 'data-order'), mock.orderNumbers);
    for (const [number, info] of fixtures.orders) {
      const card = `article.order[data-order="${number}"]`;
      assert.equal(await page.textContent(`${card} h3`), `${number} ${info.order.status}`);
      const shown = await Promise.all((await page.locator(`${card} tr[data-lot]`).all()).map((row) => row.locator('td').allTextContents()));
      const expected = info.lots.map((l) => [
        String(l.id),
        l.lotNumber,
        String(l.articleNr),
        String(l.supplierNr),
        `${l.quantity} ${l.unit}`,
        l.status,
      ]);
      assert.deepEqual(shown, expected, number);
    }
    assert.equal(fixtures.lots.size, mock.lotIds.length);
    // Counts with their noun in the right number (the fixtures have 2/3, 0/0 and 1/1 containers/charges).
    const meta = async (number: string) =>
      ((await page.textContent(`article.order[data-order="${number}"] p.meta`)) ?? '').split(' · ').slice(-2);
    assert.deepEqual(await meta('ORD-2026-0001'), ['2 containers', '3 charges']);
    assert.deepEqual(await meta('ORD-2026-0002'), ['0 containers', '0 charges']);
    assert.deepEqual(await meta('WE 2026-0003'), ['1 container', '1 charge']);
  });

  it('shows transfers and samples created through the API without a reload, as text', async () => {
    await page.waitForSelector('#health.ok');
    assert.equal(await rows('transfers').count(), 0);
    const transfer = await api.createLotTransfer({ fk_lot_id: 2001, source_scancode: 'DOCK-1', target_scancode: 'SHELF-9', amount: 3.5 });
    const sample = await api.createTestSample({ fk_lot_id: 2202, fk_user_id: 7, notes: '<img src=x onerror=alert(1)> moisture' });
    assert.ok(transfer.data && sample.data, JSON.stringify([transfer, sample]));
    await page.waitForSelector(`#transfers tbody tr[data-id="${transfer.data.id}"]`);
    await page.waitForSelector(`#samples tbody tr[data-id="${sample.data.id}"]`);
    assert.deepEqual(await cells('transfers', transfer.data.id), [
      String(transfer.data.id),
      '2001',
      'L-240101',
      'DOCK-1 → SHELF-9',
      '3.5',
      'no',
      transfer.data.created,
    ]);
    assert.deepEqual(await cells('samples', sample.data.id), [
      String(sample.data.id),
      sample.data.sample_number,
      '2202',
      'L-241502',
      '7',
      'NEW',
      '<img src=x onerror=alert(1)> moisture',
      sample.data.created,
    ]);
    assert.equal(await page.locator('#samples img').count(), 0, 'recorded text is never rendered as HTML');
    assert.equal(await page.textContent('#transfers-count'), '(1)');
  });

  it('shows the chosen session only, and resets it with the button', async () => {
    const other = createGoodsClient({ baseUrl: mock.url, token: 't', session: 'team-b' });
    const created = await other.createLotTransfer({ fk_lot_id: 2101, source_scancode: 'B1', target_scancode: 'B2', amount: 1 });
    assert.ok(created.data, JSON.stringify(created));
    await page.fill('#session', 'team-b');
    await page.dispatchEvent('#session', 'change');
    await page.waitForSelector('#transfers tbody tr:only-child td:nth-child(2):text-is("2101")');
    assert.equal(await rows('transfers').count(), 1);
    assert.equal(await rows('samples').count(), 0);
    assert.match(page.url(), /\?session=team-b$/);

    await page.click('#reset');
    await waitForCount(page, '#transfers tbody tr', 0);
    assert.equal(await page.textContent('#message'), 'Session "team-b" reset: its transfers and samples are gone.');
    assert.deepEqual(await (await fetch(`${mock.url}/__mock/lot-transfers`, { headers: { 'X-Mock-Session': 'team-b' } })).json(), []);

    // The default session is untouched; back to it, then reset it too.
    await page.fill('#session', '');
    await page.dispatchEvent('#session', 'change');
    await waitForCount(page, '#transfers tbody tr', 1);
    await page.click('#reset');
    await waitForCount(page, '#transfers tbody tr, #samples tbody tr', 0);
    assert.equal(await page.isVisible('#transfers-empty'), true);
    assert.deepEqual(await (await fetch(`${mock.url}/__mock/test-samples`)).json(), []);
  });

  it('renders the API reference from the contract with the three operations', async () => {
    await page.waitForSelector('#swagger-ui .opblock');
    const operations = await Promise.all(
      (await page.locator('#swagger-ui .opblock-summary').all()).map(
        async (summary) =>
          `${await summary.locator('.opblock-summary-method').textContent()} ${await summary.locator('.opblock-summary-path').getAttribute('data-path')}`,
      ),
    );
    assert.deepEqual(operations, [
      'GET /manualProduction/rest/v1/orders/info/{number}',
      'POST /goodsReception/rest/v1/lot-transfers/create',
      'POST /goodsReception/rest/v1/test-samples/create',
    ]);
    assert.match((await page.textContent('#swagger-ui .title')) ?? '', /Goods handling service/);
  });

  it('loads nothing from anywhere but the mock, with no page or console error', () => {
    const foreign = requested.filter((url) => !url.startsWith(`${mock.url}/`) && !url.startsWith('data:'));
    assert.deepEqual(foreign, []);
    assert.ok(requested.includes(`${mock.url}/__mock/assets/swagger-ui-bundle.js`));
    assert.deepEqual(browser.problems, []);
  });

  it('reset behind --admin-token: refused without the token, done with it', async () => {
    const guarded = await createMockServer({ port: 0, quiet: true, adminToken: 'sesame' });
    const tab = await browser.newPage();
    try {
      const client = createGoodsClient({ baseUrl: guarded.url, token: 't' });
      assert.ok((await client.createTestSample({ fk_lot_id: 2001, fk_user_id: 1 })).data);
      await tab.goto(`${guarded.url}/__mock/`);
      await tab.waitForSelector('#samples tbody tr');
      await tab.click('#reset');
      await tab.waitForSelector('#message.error');
      assert.match((await tab.textContent('#message')) ?? '', /^Reset refused: 401 .*admin token/);
      assert.equal(await tab.locator('#samples tbody tr').count(), 1);
      await tab.fill('#admin-token', 'sesame');
      await tab.click('#reset');
      await tab.waitForSelector('#message.ok');
      await waitForCount(tab, '#samples tbody tr', 0);
    } finally {
      await tab.close();
      await guarded.close();
    }
    // The refused reset is a 401 the browser logs as a failed load; nothing else.
    assert.deepEqual(
      browser.problems.filter((p) => !p.includes('status of 401')),
      [],
    );
  });

  it('pages a large session 200 records at a time (Link rel="next"), so no session size breaks it', async () => {
    const big = createGoodsClient({ baseUrl: mock.url, token: 't', session: 'big' });
    for (let n = 0; n < 250; n++) {
      assert.ok((await big.createLotTransfer({ fk_lot_id: 2101, source_scancode: `P${n}`, target_scancode: 'T', amount: 1 })).data);
    }
    await page.fill('#session', 'big');
    await page.dispatchEvent('#session', 'change');
    await waitForCount(page, '#transfers tbody tr', 200);
    assert.equal(await page.textContent('#transfers-count'), '(1–200, more)');
    assert.equal(await page.locator('#transfers-pager').isVisible(), true);
    await page.click('#transfers-next');
    await waitForCount(page, '#transfers tbody tr', 50);
    assert.equal(await page.textContent('#transfers-count'), '(201–250)');
    assert.deepEqual(await cells('transfers', 201).then((values) => values.slice(0, 1)), ['201']);
    assert.equal(await page.locator('#transfers-next').isDisabled(), true);
    await page.click('#transfers-first');
    await waitForCount(page, '#transfers tbody tr', 200);
  });
});

describe('browser: the dashboard of one replica shows records created through another (shared Redis store)', function () {
  this.timeout(60_000);

  it('lists on replica B, in Chromium, the transfer created through replica A', async () => {
    const redis = await startRedis();
    const replicas: MockServer[] = [];
    let browser: Chromium | undefined;
    try {
      for (let n = 0; n < 2; n++) replicas.push(await createMockServer({ port: 0, quiet: true, store: redis.url, storePrefix: 'dash' }));
      const [a, b] = replicas as [MockServer, MockServer];
      const created = await createGoodsClient({ baseUrl: a.url, token: 't' }).createLotTransfer({
        fk_lot_id: 2101,
        source_scancode: 'VIA-A',
        target_scancode: 'T',
        amount: 2,
      });
      assert.ok(created.data, JSON.stringify(created));
      browser = await launchChromium();
      const tab = await browser.newPage();
      await tab.goto(`${b.url}/__mock/`);
      await tab.waitForSelector(`#transfers tbody tr[data-id="${created.data.id}"]`);
      assert.deepEqual((await tab.locator(`#transfers tbody tr[data-id="${created.data.id}"] td`).allTextContents()).slice(0, 4), [
        String(created.data.id),
        '2101',
        created.data.lotnumber,
        'VIA-A → T',
      ]);
      assert.equal(await tab.textContent('#health'), 'up');
    } finally {
      await browser?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
      await redis.dispose();
    }
  });
});
