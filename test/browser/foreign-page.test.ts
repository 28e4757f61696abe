/**
 * Browser safety of the mock's controls in a real Chromium: a page on another origin can neither
 * reset the mock (plain form, simple fetch, fetch with X-Mock-Reset) nor read `/__mock`, even with the
 * default `--cors-origin *` of the API; a DNS-rebinding page (a foreign name resolving to the mock)
 * gets 421 for every request. The mock's own dashboard can still reset.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { launchChromium, type Chromium } from '../support/browser.js';
import { listen, type RunningServer } from '../support/http.js';

const REBIND_NAME = 'rebind.attacker.test';

describe('browser: a page on another origin cannot use /__mock', function () {
  this.timeout(60_000);
  let mock: MockServer;
  let attacker: RunningServer;
  let browser: Chromium;
  let page: Page;

  const samples = async (): Promise<unknown[]> => (await (await fetch(`${mock.url}/__mock/test-samples`)).json()) as unknown[];

  before(async () => {
    mock = await createMockServer({ port: 0, quiet: true });
    // Another origin: a blank page, and at /form a text/plain form that submits itself to `target` (JSON-looking body).
    attacker = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://attacker.invalid');
      const target = (url.searchParams.get('target') ?? '').replace(/[^\w:/.-]/g, '');
      const form =
        url.pathname === '/form'
          ? `<form method="POST" action="${target}" enctype="text/plain"><input name='{"a":"' value='"}'></form>` +
            '<script>document.forms[0].submit()</script>'
          : '<p>another origin</p>';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>elsewhere</title>${form}`);
    });
    browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${REBIND_NAME} 127.0.0.1`] });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await attacker?.close();
    await mock?.close();
  });

  beforeEach(async () => {
    const created = await fetch(`${mock.url}/goodsReception/rest/v1/test-samples/create`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: JSON.stringify({ fk_lot_id: mock.lotIds[0], fk_user_id: 1 }),
    });
    assert.equal(created.status, 201);
    await page.goto(`${attacker.url}/`);
  });

  it('cannot reset with a plain HTML form (no X-Mock-Reset, foreign Origin)', async () => {
    const before = await samples();
    const navigation = page.waitForResponse((response) => response.url().endsWith('/__mock/reset'));
    await page.goto(`${attacker.url}/form?target=${encodeURIComponent(`${mock.url}/__mock/reset`)}`);
    assert.equal((await navigation).status(), 403);
    assert.deepEqual(await samples(), before);
    assert.ok(before.length > 0);
  });

  it('cannot reset with fetch, simple or with X-Mock-Reset, and cannot read /__mock', async () => {
    const before = await samples();
    // One evaluate per attempt, without named inner functions (the test runner's transform would name them).
    const attempt = (input: string, init: RequestInit): Promise<string> =>
      page.evaluate(
        async ([url, options]) => {
          try {
            const response = await fetch(url, options);
            return `status ${response.status} ${response.type} ${(await response.text()).slice(0, 40)}`;
          } catch (error) {
            return `blocked: ${error instanceof Error ? error.name : String(error)}`;
          }
        },
        [input, init] as const,
      );
    const outcomes = {
      simple: await attempt(`${mock.url}/__mock/reset`, { method: 'POST', mode: 'no-cors' }),
      header: await attempt(`${mock.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } }),
      read: await attempt(`${mock.url}/__mock/test-samples`, {}),
      health: await attempt(`${mock.url}/__mock/health`, {}),
    };
    assert.match(outcomes.simple, /^status 0 opaque $/, 'a no-cors answer is opaque');
    assert.match(outcomes.header, /^blocked: TypeError$/, 'the preflight is refused');
    assert.match(outcomes.read, /^blocked: TypeError$/, 'the listing is not readable');
    assert.match(outcomes.health, /^blocked: TypeError$/);
    assert.deepEqual(await samples(), before, 'nothing was reset');
  });

  it('refuses a DNS-rebinding page (a foreign name resolving to the mock) with 421', async () => {
    const rebound = `http://${REBIND_NAME}:${mock.port}`;
    for (const path of ['/__mock/test-samples', '/__mock/', '/manualProduction/rest/v1/orders/info/ORD-2026-0001']) {
      const response = await page.goto(`${rebound}${path}`);
      assert.equal(response?.status(), 421, path);
      assert.doesNotMatch((await response?.text()) ?? '', /fk_lot_id/);
    }
    const before = await samples();
    const reset = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status,
      `${rebound}/__mock/reset`,
    );
    assert.equal(reset, 421, 'a same-origin reset from the rebound page');
    assert.deepEqual(await samples(), before);
  });

  it("lets the mock's own dashboard reset", async () => {
    await page.goto(`${mock.url}/__mock/`);
    // The reset's message names the record kinds once the dashboard has built their sections from the
    // model it fetches; a click before that says "reset: done." (a slow machine made this test wait for
    // a message that could no longer come).
    await page.waitForSelector('section.records[data-resource]', { state: 'attached' });
    await page.click('#reset');
    await page.locator('text=reset: its lot transfers and test samples are gone').waitFor();
    assert.deepEqual(await samples(), []);
  });
});
