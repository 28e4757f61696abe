/**
 * The dashboard (`GET /__mock/`) in headless Chromium: the fixture orders with their lists, records
 * created through the API appearing by themselves, the session selector, reset (also behind an admin
 * token), and the API reference rendered by the locally served Swagger UI. No request leaves the mock.
 * What it shows of the API comes from the operations model (`GET /__mock/model`): a column per member
 * the model lists, in its order, for the records and the order's lists; a changed contract changes them,
 * and a model that cannot be read is said, not a broken page.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createGoodsClient, type GoodsClient } from '../../client/index.js';
import { isObject, readContract } from '../../contract/document.js';
import { loadFixtures, type OrderInfo } from '../../contract/fixtures.js';
import { operationsModel, withOrder, resourceOf } from '../../contract/operations-model.js';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { launchChromium, type Chromium } from '../support/browser.js';
import { startRedis } from '../../support/redis.js';
import { runQuickStart, type QuickStart } from '../support/quick-start.js';

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

const MODEL = withOrder(operationsModel(readContract()));
/** The id of the records table of the model's n-th create (`records-lot-transfers`). */
function recordsTable(n: number): string {
  const op = MODEL.creates[n];
  assert.ok(op, `the contract has a create number ${n + 1}`);
  return `records-${resourceOf(op)}`;
}
const TRANSFERS = recordsTable(0);
const SAMPLES = recordsTable(1);
/** Member names in the model's order. */
const namesOf = (members: readonly { name: string }[]) => members.map((m) => m.name);

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

  it('shows every fixture order with its lists, a column per member the model lists', async () => {
    const fixtures = loadFixtures();
    await page.waitForSelector('article.order[data-order="WE 2026-0003"] tr[data-lot]');
    assert.deepEqual(await attributes(page, 'article.order', 'data-order'), mock.orderNumbers);
    const lotList = MODEL.order.lists.find((l) => l.member === MODEL.order.lotsMember);
    assert.ok(lotList);
    for (const [number, info] of fixtures.orders) {
      const card = `article.order[data-order="${number}"]`;
      assert.equal(await page.textContent(`${card} h3`), number);
      assert.deepEqual(
        await page.locator(`${card} table[data-list="${lotList.member}"] th`).allTextContents(),
        namesOf(lotList.members),
        'the lot table has a column per lot member of the model, in its order',
      );
      const shown = await Promise.all((await page.locator(`${card} tr[data-lot]`).all()).map((row) => row.locator('td').allTextContents()));
      const expected: string[][] = (info as unknown as OrderInfo).lots.map((lot): string[] => {
        const values: Record<string, unknown> = { ...lot };
        return lotList.members.map((m) => String(values[m.name]));
      });
      assert.deepEqual(shown, expected, number);
    }
    assert.equal(fixtures.lots.size, mock.lotIds.length);
    // The header's members but the number, then each list counted with its noun in the right number
    // (the fixtures have 2/3, 0/0 and 1/1 containers/charges).
    const meta = async (number: string) => ((await page.textContent(`article.order[data-order="${number}"] p.meta`)) ?? '').split(' · ');
    const first = await meta('ORD-2026-0001');
    assert.deepEqual(
      first.map((fact) => fact.split(' ')[0]).slice(0, MODEL.order.headerMembers.length - 1),
      namesOf(MODEL.order.headerMembers).filter((name) => name !== MODEL.order.orderNumberMember),
    );
    assert.deepEqual(first.slice(-3), ['2 containers', '3 charges', '3 lots']);
    assert.deepEqual((await meta('ORD-2026-0002')).slice(-3), ['0 containers', '0 charges', '1 lot']);
    assert.deepEqual((await meta('WE 2026-0003')).slice(-3), ['1 container', '1 charge', '2 lots']);
    // A list the model knows members of is a table (charges); an open object (containers) only counted.
    const charges = MODEL.order.lists.find((l) => l.members.length > 0 && l.member !== MODEL.order.lotsMember);
    assert.ok(charges);
    assert.deepEqual(
      await page.locator(`article.order[data-order="ORD-2026-0001"] table[data-list="${charges.member}"] th`).allTextContents(),
      namesOf(charges.members),
    );
    assert.equal(await page.locator('article.order table[data-list="containers"]').count(), 0);
  });

  it('shows transfers and samples created through the API without a reload, as text', async () => {
    await page.waitForSelector('#health.ok');
    assert.equal(await rows(TRANSFERS).count(), 0);
    const transfer = await api.createLotTransfer({ fk_lot_id: 2001, source_scancode: 'DOCK-1', target_scancode: 'SHELF-9', amount: 3.5 });
    const sample = await api.createTestSample({ fk_lot_id: 2202, fk_user_id: 7, notes: '<img src=x onerror=alert(1)> moisture' });
    assert.ok(transfer.data && sample.data, JSON.stringify([transfer, sample]));
    await page.waitForSelector(`#${TRANSFERS} tbody tr[data-id="${transfer.data.id}"]`);
    await page.waitForSelector(`#${SAMPLES} tbody tr[data-id="${sample.data.id}"]`);
    // A column per member of the record the model lists, in its order, headed by its name.
    const [transferOp, sampleOp] = MODEL.creates;
    assert.ok(transferOp && sampleOp);
    assert.deepEqual(await page.locator(`#${TRANSFERS} th`).allTextContents(), namesOf(transferOp.successMembers));
    assert.deepEqual(await page.locator(`#${SAMPLES} th`).allTextContents(), namesOf(sampleOp.successMembers));
    assert.deepEqual(await cells(TRANSFERS, transfer.data.id), [
      String(transfer.data.id),
      '2001',
      'DOCK-1',
      'SHELF-9',
      '3.5',
      'no',
      'L-240101',
      transfer.data.created,
      transfer.data.modified,
    ]);
    assert.deepEqual(await cells(SAMPLES, sample.data.id), [
      String(sample.data.id),
      '2202',
      '7',
      'L-241502',
      sample.data.sample_number,
      'NEW',
      '<img src=x onerror=alert(1)> moisture',
      sample.data.created,
      sample.data.modified,
    ]);
    assert.equal(await page.locator(`#${SAMPLES} img`).count(), 0, 'recorded text is never rendered as HTML');
    assert.equal(await page.textContent(`#${TRANSFERS}-count`), '(1)');
  });

  it('shows the chosen session only, and resets it with the button', async () => {
    const other = createGoodsClient({ baseUrl: mock.url, token: 't', session: 'team-b' });
    const created = await other.createLotTransfer({ fk_lot_id: 2101, source_scancode: 'B1', target_scancode: 'B2', amount: 1 });
    assert.ok(created.data, JSON.stringify(created));
    await page.fill('#session', 'team-b');
    await page.dispatchEvent('#session', 'change');
    await page.waitForSelector(`#${TRANSFERS} tbody tr:only-child td:nth-child(2) > .value:text-is("2101")`);
    assert.equal(await rows(TRANSFERS).count(), 1);
    assert.equal(await rows(SAMPLES).count(), 0);
    assert.match(page.url(), /\?session=team-b$/);

    await page.click('#reset');
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 0);
    assert.equal(await page.textContent('#message'), 'Session "team-b" reset: its lot transfers and test samples are gone.');
    assert.deepEqual(await (await fetch(`${mock.url}/__mock/lot-transfers`, { headers: { 'X-Mock-Session': 'team-b' } })).json(), []);

    // The default session is untouched; back to it, then reset it too.
    await page.fill('#session', '');
    await page.dispatchEvent('#session', 'change');
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 1);
    await page.click('#reset');
    await waitForCount(page, `#${TRANSFERS} tbody tr, #${SAMPLES} tbody tr`, 0);
    assert.equal(await page.isVisible(`#${TRANSFERS}-empty`), true);
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
      await tab.waitForSelector(`#${SAMPLES} tbody tr`);
      await tab.click('#reset');
      await tab.waitForSelector('#message.error');
      assert.match((await tab.textContent('#message')) ?? '', /^Reset refused: 401 .*admin token/);
      assert.equal(await tab.locator(`#${SAMPLES} tbody tr`).count(), 1);
      await tab.fill('#admin-token', 'sesame');
      await tab.click('#reset');
      await tab.waitForSelector('#message.ok');
      await waitForCount(tab, `#${SAMPLES} tbody tr`, 0);
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
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 200);
    assert.equal(await page.textContent(`#${TRANSFERS}-count`), '(1–200, more)');
    assert.equal(await page.locator(`#${TRANSFERS}-pager`).isVisible(), true);
    await page.click(`#${TRANSFERS}-next`);
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 50);
    assert.equal(await page.textContent(`#${TRANSFERS}-count`), '(201–250)');
    assert.deepEqual(await cells(TRANSFERS, 201).then((values) => values.slice(0, 1)), ['201']);
    assert.equal(await page.locator(`#${TRANSFERS}-next`).isDisabled(), true);
    await page.click(`#${TRANSFERS}-first`);
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 200);
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
      await tab.waitForSelector(`#${TRANSFERS} tbody tr[data-id="${created.data.id}"]`);
      assert.deepEqual((await tab.locator(`#${TRANSFERS} tbody tr[data-id="${created.data.id}"] td`).allTextContents()).slice(0, 4), [
        String(created.data.id),
        '2101',
        'VIA-A',
        'T',
      ]);
      assert.equal(await tab.textContent('#health'), 'up');
    } finally {
      await browser?.close();
      await Promise.all(replicas.map((replica) => replica.close()));
      await redis.dispose();
    }
  });
});

describe('browser: the dashboard reads what it shows of the API from GET /__mock/model', function () {
  this.timeout(60_000);
  let browser: Chromium;
  let folder = '';
  before(async () => {
    browser = await launchChromium();
    folder = await mkdtemp(join(tmpdir(), 'dashboard-model-'));
  });
  after(async () => {
    await browser?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('shows a member added to the contract as a column of its own, with the value recorded', async () => {
    const doc = structuredClone(readContract());
    const [transferOp] = MODEL.creates;
    assert.ok(transferOp);
    // The member goes where the record's members are written (the one `allOf` part with properties).
    const schemas = isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {};
    const holder = Object.values(schemas).find((schema) => {
      const properties = isObject(schema) ? schema['properties'] : undefined;
      return isObject(properties) && transferOp.successMembers.every((m) => m.name in properties);
    });
    assert.ok(isObject(holder) && isObject(holder['properties']));
    holder['properties'] = { ...holder['properties'], pallet_label: { type: 'string' } };
    const contractPath = join(folder, 'openapi.json');
    await writeFile(contractPath, JSON.stringify(doc));
    const changed = await createMockServer({ port: 0, quiet: true, contractPath });
    const tab = await browser.newPage();
    try {
      const answer = await fetch(`${changed.url}${transferOp.path}`, {
        method: 'POST',
        headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
        body: JSON.stringify({ fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B', amount: 1, pallet_label: 'P-77' }),
      });
      assert.equal(answer.status, 201, await answer.clone().text());
      const created = (await answer.json()) as { id: number };
      await tab.goto(`${changed.url}/__mock/`);
      await tab.waitForSelector(`#${TRANSFERS} tbody tr[data-id="${created.id}"]`);
      const headers = await tab.locator(`#${TRANSFERS} th`).allTextContents();
      assert.deepEqual(headers, [...namesOf(transferOp.successMembers), 'pallet_label']);
      const values = await tab.locator(`#${TRANSFERS} tbody tr[data-id="${created.id}"] td`).allTextContents();
      assert.equal(values.at(-1), 'P-77');
      assert.deepEqual(browser.problems, []);
    } finally {
      await tab.close();
      await changed.close();
    }
  });

  it('says so when the model cannot be read, and keeps the rest of the page working', async () => {
    const mock = await createMockServer({ port: 0, quiet: true });
    const tab = await browser.newPage();
    try {
      await tab.route('**/__mock/model', (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/problem+json',
          body: JSON.stringify({ type: 'about:blank', title: 'Internal error', status: 500, detail: 'broken for the test' }),
        }),
      );
      await tab.goto(`${mock.url}/__mock/`);
      await tab.waitForSelector('#orders p.error');
      assert.match(
        (await tab.textContent('#orders p.error')) ?? '',
        /^Cannot load the operations model \(\/__mock\/model\): 500 Internal error: broken for the test\./,
      );
      assert.match((await tab.textContent('#message')) ?? '', /Cannot load the operations model/);
      assert.equal(await tab.locator('section.records').count(), 0);
      // The session's fault rules still refresh.
      await tab.waitForSelector('#health.ok');
      assert.ok(await tab.isVisible('#faults-empty'));
      assert.deepEqual(
        browser.problems.filter((p) => !p.includes('status of 500')),
        [],
        'no page error: only the refused load',
      );
    } finally {
      await tab.close();
      await mock.close();
    }
  });
});

describe("browser: the dashboard after the README's Quick start (the mock with --token, the banner's link opened)", function () {
  this.timeout(240_000);
  let quickStart: QuickStart;
  let browser: Chromium;
  let page: Page;
  const WIDTH = 1280;

  before(async () => {
    quickStart = await runQuickStart({ conformance: true });
    browser = await launchChromium({ viewport: { width: WIDTH, height: 800 } });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await quickStart?.stop();
  });

  /** Every fixture order shown as a card with its lots, and no order refused. */
  async function ordersShown(tab: Page): Promise<void> {
    for (const number of loadFixtures().orders.keys()) await tab.waitForSelector(`article.order[data-order="${number}"] tr[data-lot]`);
    assert.equal(await tab.locator('article.order .error').count(), 0, (await tab.textContent('#orders')) ?? '');
  }

  it('the banner printed the link with the token in its fragment; opened, it shows the orders with no typing, and the address bar loses the token', async () => {
    const token = new URLSearchParams(new URL(quickStart.dashboard).hash.slice(1)).get('token');
    assert.ok(token, `the banner's link carries the token: ${quickStart.dashboard}`);
    await page.goto(quickStart.dashboard);
    await ordersShown(page);
    assert.equal(page.url(), `${quickStart.url}/__mock/`, 'the token is taken out of the address bar');
    assert.equal(await page.inputValue('#api-token'), token);
  });

  it('after a reload it still shows the orders (the token is kept for the tab)', async () => {
    await page.reload();
    await ordersShown(page);
    assert.equal(await page.inputValue('#api-token'), new URLSearchParams(new URL(quickStart.dashboard).hash.slice(1)).get('token'));
  });

  it("the default session holds the Quick start's creates only: the suite's records are in its own session", async () => {
    await waitForCount(page, `#${TRANSFERS} tbody tr`, 1);
    await waitForCount(page, `#${SAMPLES} tbody tr`, 1);
    const cut = await page
      .locator('main td > .value')
      .evaluateAll((values: { scrollWidth: number; clientWidth: number }[]) => values.filter((v) => v.scrollWidth > v.clientWidth).length);
    assert.equal(cut, 0, 'short values are shown whole, none cut');
    assert.match(quickStart.conformance, /mock session conformance: the records this run created are there, not in the default session/);
    const listing = /^ {2}curl (-H 'X-Mock-Session: conformance') (\S+)$/m.exec(quickStart.conformance);
    assert.ok(listing?.[2], quickStart.conformance);
    const recorded = (await (await fetch(listing[2], { headers: { 'X-Mock-Session': 'conformance' } })).json()) as unknown[];
    assert.ok(recorded.length > 10, `${recorded.length} records of the suite in its session`);
  });

  it("the suite's session: long values stay on one line, cut with an ellipsis, the whole value in the tooltip; the page never scrolls sideways", async () => {
    await page.fill('#session', 'conformance');
    await page.dispatchEvent('#session', 'change');
    await page.waitForSelector(`#${TRANSFERS} tbody tr:nth-child(10)`);
    // What the browser laid out (the shapes of the DOM nodes read, as the page has them).
    interface Cell {
      scrollWidth: number;
      clientWidth: number;
      textContent: string | null;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): { height: number };
    }
    const cells = await page.locator('section.records td > .value').evaluateAll((all: Cell[]) =>
      all.map((cell) => ({
        cut: cell.scrollWidth > cell.clientWidth,
        length: (cell.textContent ?? '').length,
        height: cell.getBoundingClientRect().height,
        title: cell.getAttribute('title') ?? '',
      })),
    );
    const cut = cells.filter((cell) => cell.cut);
    const widths = {
      page: await page.locator('html').evaluate((html: { scrollWidth: number }) => html.scrollWidth),
      tables: await page
        .locator('section.records')
        .evaluateAll((sections: { scrollWidth: number; clientWidth: number }[]) =>
          sections.map((section) => section.scrollWidth - section.clientWidth),
        ),
      cut: cut.length,
      longest: Math.max(...cells.map((cell) => cell.length)),
      wrapped: cells.filter((cell) => cell.height > 40).length,
      titled: cut.filter((cell) => cell.title.length > 0).length,
    };
    assert.ok(widths.longest > 10_000, `the suite's records hold long values (${widths.longest} characters)`);
    assert.ok(widths.page <= WIDTH, `the page is ${widths.page} px wide in a ${WIDTH} px window`);
    assert.deepEqual(
      widths.tables,
      widths.tables.map(() => 0),
      'no records table scrolls sideways',
    );
    assert.ok(widths.cut > 0, 'long values are cut');
    assert.equal(widths.titled, widths.cut, 'every cut value has its tooltip');
    assert.equal(widths.wrapped, 0, 'every value on one line');
    const title = await page.locator('section.records td > .value[title$="characters)"]').first().getAttribute('title');
    assert.match(title ?? '', /^[\s\S]{2000}… \(\d{1,3}(,\d{3})+ characters\)$/);
  });

  it('a token the mock refuses: the 401 says the mock was started with --token, and how to get the link', async () => {
    const tab = await browser.newPage();
    try {
      // A new tab: nothing kept for it, no token in its address.
      await tab.goto(`${quickStart.url}/__mock/`);
      await tab.waitForSelector('article.order .error');
      assert.equal(await tab.inputValue('#api-token'), 'dashboard');
      const message = (await tab.textContent('#message')) ?? '';
      assert.match(message, /started with --token and accepts only the tokens given there; "dashboard" is not one/);
      assert.match(message, /Open the dashboard link it printed when it started \(…\/__mock\/#token=…\)/);
      // Typing the token works, and is kept: a reload of that tab still shows the orders.
      await tab.fill('#api-token', new URLSearchParams(new URL(quickStart.dashboard).hash.slice(1)).get('token') ?? '');
      await tab.dispatchEvent('#api-token', 'change');
      await ordersShown(tab);
      assert.equal(await tab.textContent('#message'), '');
      await tab.reload();
      await ordersShown(tab);
    } finally {
      await tab.close();
    }
  });

  it('the link is printed once, in the banner; no request line of the mock shows the token; no page error', () => {
    const token = new URLSearchParams(new URL(quickStart.dashboard).hash.slice(1)).get('token') ?? '';
    const out = quickStart.mock.stdout();
    assert.equal(out.split(quickStart.dashboard).length - 1, 1, out);
    const log = quickStart.mock.stderr();
    assert.match(log, /GET \/__mock\/ 200 /, 'the page was requested');
    assert.ok(!log.includes(token), `the request log shows the token:\n${log}`);
    assert.deepEqual(
      browser.problems.filter((problem) => !problem.includes('status of 401')),
      [],
    );
  });
});
