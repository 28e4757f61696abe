/**
 * The dashboard of `goods-mock --proxy` in headless Chromium: the violations panel appears in proxy
 * mode only, fills by itself as traffic goes through (no reload), shows no credential, and its button
 * writes the reports.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createGoodsClient } from '../../client/index.js';
import { REFERENCE_TOKEN, startReferenceServer, type ReferenceServer } from '../../conformance/self-test/reference-server.js';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { DEFAULT_PROXY, REPORT_FILES } from '../../mock/proxy/config.js';
import { launchChromium, type Chromium } from '../support/browser.js';

describe('browser: the violations panel of goods-mock --proxy', function () {
  this.timeout(60_000);
  let reference: ReferenceServer;
  let proxy: MockServer;
  let mock: MockServer;
  let browser: Chromium;
  let page: Page;
  const outputDir = mkdtempSync(join(tmpdir(), 'proxy-dashboard-'));

  before(async () => {
    reference = await startReferenceServer(['order-wrong-type']);
    proxy = await createMockServer({
      port: 0,
      quiet: true,
      log: () => undefined,
      proxy: { ...DEFAULT_PROXY, upstream: reference.url, level: 'strict', outputDir },
    });
    mock = await createMockServer({ port: 0, quiet: true, log: () => undefined });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await proxy?.close();
    await mock?.close();
    await reference?.close();
  });

  it('is hidden on the plain mock', async () => {
    const plain = await browser.newPage();
    await plain.goto(`${mock.url}/__mock/`);
    await plain.waitForSelector('article.order');
    assert.equal(await plain.locator('#violations-panel').isVisible(), false);
    await plain.close();
  });

  it('shows violations as they happen, without a reload and without the token', async () => {
    await page.goto(`${proxy.url}/__mock/`);
    await page.locator('#violations-panel').waitFor({ state: 'visible' });
    await page.locator('#violations-empty').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#orders').isVisible(), false, 'the mock-only panels are hidden');
    assert.equal(await page.locator('#reset').isVisible(), false);
    await page.locator('#health.ok').waitFor({ state: 'visible' });
    const client = createGoodsClient({ baseUrl: proxy.url, token: REFERENCE_TOKEN });
    assert.equal((await client.getOrderInfo('ORD-2026-0001')).status, 200);
    const row = page.locator('#violations-recent tbody tr.server');
    await row.first().waitFor({ state: 'attached' });
    const cells = await row.first().locator('td').allTextContents();
    assert.deepEqual(cells.slice(2), [
      '200',
      'server',
      'answer.schema',
      'body /order/customerId',
      // The reason of the suite's schema judgment (judgments/answer.ts), as the suite words it.
      'the body breaks the schema at /order/customerId: must be of type integer',
    ]);
    assert.equal(await page.locator('#violations-rules tbody tr[data-rule="answer.schema"] td').nth(1).textContent(), '1');
    assert.ok(!(await page.content()).includes(REFERENCE_TOKEN));
    assert.deepEqual(browser.problems, []);
  });

  it('writes the reports with its button', async () => {
    await page.click('#write-report');
    await page.locator('#message.ok').waitFor({ state: 'visible' });
    assert.ok(existsSync(join(outputDir, REPORT_FILES.json)));
    assert.ok(existsSync(join(outputDir, REPORT_FILES.junit)));
  });
});
