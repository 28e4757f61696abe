/**
 * A frontend in a real browser (headless Chromium): a page on another origin than the mock uses the
 * package's typed client to load an order, create a lot transfer and a test sample, and show the
 * error answers for an unknown order and a rejected token. The test asserts what the page shows, so
 * CORS, the preflight of requests with `Authorization`/`X-Mock-Session`, and the mock's answers are
 * proven as a browser sees them.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { launchChromium, type Chromium } from '../support/browser.js';
import { startClientPageServer } from '../support/client-page-server.js';
import type { RunningServer } from '../support/http.js';

describe('browser: a page on another origin uses the typed client against the mock', function () {
  this.timeout(60_000);
  let mock: MockServer;
  let pageServer: RunningServer;
  let browser: Chromium;
  let page: Page;
  const mockLog: string[] = [];
  const session = 'browser-page';

  before(async () => {
    mock = await createMockServer({ port: 0, log: (line) => mockLog.push(line) });
    pageServer = await startClientPageServer();
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${pageServer.url}/?api=${encodeURIComponent(mock.url)}&session=${session}`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  after(async () => {
    await browser?.close();
    await pageServer?.close();
    await mock?.close();
  });

  /** Clicks a button and waits until the page has finished that action. */
  async function click(id: string): Promise<void> {
    const done = Number(await page.getAttribute('body', 'data-done'));
    await page.click(`#${id}`);
    await page.waitForSelector(`body[data-done="${done + 1}"]`);
  }
  const text = async (selector: string) => (await page.textContent(selector))?.trim() ?? '';
  const texts = (selector: string) => page.locator(selector).allTextContents();

  it('the page and the mock are different origins', () => {
    assert.notEqual(new URL(pageServer.url).origin, new URL(mock.url).origin);
  });

  it('loads an order whose number needs URL-encoding with a bearer token and shows its lots', async () => {
    await page.fill('#order-number', 'WE 2026-0003');
    await click('load-order');
    assert.equal(await text('#error'), '');
    assert.equal(await text('#order-title'), 'WE 2026-0003 (COMPLETED)');
    assert.deepEqual(await texts('#lots li'), ['2201 L-241501 60 KG', '2202 L-241502 0.5 KG']);
    assert.ok(
      mockLog.some((line) => line.startsWith('GET /manualProduction/rest/v1/orders/info/WE%202026-0003 200')),
      mockLog.join('\n'),
    );
  });

  it('creates a lot transfer and a test sample and shows them as the mock stored them', async () => {
    await page.fill('#amount', '7.25');
    await click('create-transfer');
    await page.fill('#notes', 'from the browser <b>test</b>');
    await click('create-sample');
    assert.equal(await text('#error'), '');
    const transfers = (await (await fetch(`${mock.url}/__mock/lot-transfers`, { headers: { 'X-Mock-Session': session } })).json()) as {
      id: number;
      lotnumber: string;
    }[];
    const samples = (await (await fetch(`${mock.url}/__mock/test-samples`, { headers: { 'X-Mock-Session': session } })).json()) as {
      id: number;
      sample_number: string;
      notes: string;
    }[];
    assert.equal(transfers.length, 1);
    assert.equal(samples.length, 1);
    assert.equal(samples[0]?.notes, 'from the browser <b>test</b>');
    assert.deepEqual(await texts('#created li'), [
      `lot transfer ${transfers[0]?.id}: 7.25 of L-241501 from SRC-0001 to TGT-0001`,
      `test sample ${samples[0]?.id}: ${samples[0]?.sample_number} of L-241501 by user 42, NEW`,
    ]);
    assert.match(samples[0]?.sample_number ?? '', /^S-\d{6}$/);
    // The session header crossed origins: the default session recorded nothing.
    assert.deepEqual(await (await fetch(`${mock.url}/__mock/lot-transfers`)).json(), []);
    // Requests with Authorization, Content-Type: application/json and X-Mock-Session were preflighted.
    assert.ok(
      mockLog.some((line) => line.startsWith('OPTIONS /goodsReception/rest/v1/lot-transfers/create 204')),
      mockLog.join('\n'),
    );
  });

  it('shows the 400 problem naming the field for an invalid body', async () => {
    await page.fill('#order-number', 'ORD-2026-0001');
    await click('load-order');
    assert.equal((await texts('#lots li')).length, 3);
    await page.fill('#amount', '-1');
    await click('create-transfer');
    assert.match(await text('#error'), /^400 Request body does not match the contract: .*\/amount/);
  });

  it('shows the 404 problem for an unknown order', async () => {
    await page.fill('#order-number', 'NO SUCH/ORDER');
    await click('load-order');
    assert.equal(await text('#order-title'), '');
    assert.equal(
      await text('#error'),
      '404 Order not found: No order has the number "NO SUCH/ORDER"; GET /__mock/orders lists the known ones.',
    );
  });

  it('shows the 401 problem for the rejected token', async () => {
    await page.fill('#token', 'invalid');
    await page.fill('#order-number', 'ORD-2026-0001');
    await click('load-order');
    assert.match(await text('#error'), /^401 Missing or rejected credentials: /);
    assert.deepEqual(await texts('#lots li'), []);
  });

  it('no page errors and no console errors', () => {
    // Error answers (404, 401, 400) are logged by Chromium as failed loads; anything else is a bug.
    const unexpected = browser.problems.filter(
      (p) => !/Failed to load resource: the server responded with a status of (400|401|404)/.test(p),
    );
    assert.deepEqual(unexpected, []);
  });
});
