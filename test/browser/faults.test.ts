/**
 * Injected faults as a browser sees them (headless Chromium): a page on another origin calls the mock
 * with `fetch` and gets each fault of the catalogue the way a real failure would reach it - a 5xx whose
 * `X-Mock-Fault` and `Retry-After` it can read (CORS), "Failed to fetch" for a dropped or reset
 * connection, its own `AbortSignal.timeout` firing during a delay, `response.json()` rejecting a
 * truncated or empty body, a dripped body arriving whole. Then the dashboard's fault panel: it lists
 * the session's rules, adds one, shows it being used, removes one and clears them.
 * Timings are lower bounds only.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { launchChromium, type Chromium } from '../support/browser.js';
import { listen, type RunningServer } from '../support/http.js';

const ORDER_PATH = '/manualProduction/rest/v1/orders/info/';
const SAMPLES_PATH = '/goodsReception/rest/v1/test-samples/create';
const TRANSFERS_PATH = '/goodsReception/rest/v1/lot-transfers/create';

interface Call {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Abort the fetch after this many ms (`AbortSignal.timeout`). */
  timeoutMs?: number;
  /** How the page reads the body: `json()` or `text()`. */
  read?: 'json' | 'text';
}

/** What the page saw: the answer (status, readable headers, body) or the error, and how long it took. */
interface Seen {
  status?: number;
  fault?: string | null;
  retryAfter?: string | null;
  body?: string;
  error?: string;
  bodyError?: string;
  ms: number;
}

/**
 * Runs one fetch in the page (another origin than the mock) and reports what it saw. The function has
 * no named inner functions: the test runner's transform would name them with a helper the page lacks.
 */
function pageFetch(page: Page, call: Call): Promise<Seen> {
  return page.evaluate(async ({ url, method, headers, body, timeoutMs, read }: Call): Promise<Seen> => {
    const started = performance.now();
    let response: Response;
    try {
      response = await fetch(url, {
        method: method ?? 'GET',
        headers: headers ?? {},
        ...(body !== undefined ? { body } : {}),
        ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      });
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}`, ms: Math.round(performance.now() - started) };
    }
    const seen: Seen = {
      status: response.status,
      fault: response.headers.get('X-Mock-Fault'),
      retryAfter: response.headers.get('Retry-After'),
      ms: 0,
    };
    try {
      seen.body = read === 'json' ? JSON.stringify(await response.json()) : await response.text();
    } catch (error) {
      seen.bodyError = `${(error as Error).name}: ${(error as Error).message}`;
    }
    seen.ms = Math.round(performance.now() - started);
    return seen;
  }, call);
}

describe('browser: a page sees each injected fault as a browser does', function () {
  this.timeout(90_000);
  let mock: MockServer;
  let elsewhere: RunningServer;
  let browser: Chromium;
  let page: Page;
  let orderBody: string;
  const session = 'browser-faults';

  before(async () => {
    mock = await createMockServer({ port: 0, quiet: true });
    elsewhere = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>a frontend</title><p>another origin</p>');
    });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${elsewhere.url}/`);
    orderBody = await (await fetch(`${mock.url}${ORDER_PATH}ORD-2026-0001`, { headers: { Authorization: 'Bearer t' } })).text();
  });
  after(async () => {
    await browser?.close();
    await elsewhere?.close();
    await mock?.close();
  });

  const order = (prefer: string, extra: Partial<Call> = {}): Call => ({
    url: `${mock.url}${ORDER_PATH}ORD-2026-0001`,
    headers: { Authorization: 'Bearer page-token', Prefer: prefer },
    ...extra,
  });

  it('the page and the mock are different origins', () => {
    assert.notEqual(new URL(elsewhere.url).origin, new URL(mock.url).origin);
  });

  it('status: a 503 problem whose X-Mock-Fault and Retry-After the page can read; 500, 502, 504 too', async () => {
    const seen = await pageFetch(page, order('fault=status:503', { read: 'json' }));
    assert.equal(seen.status, 503);
    assert.equal(seen.fault, 'status:503; prefer');
    assert.equal(seen.retryAfter, '1');
    assert.equal((JSON.parse(seen.body ?? '{}') as { type?: string }).type, 'https://goods.example/problems/injected-unavailable');
    for (const status of [500, 502, 504]) {
      const other = await pageFetch(page, order(`fault=status:${status}`, { read: 'json' }));
      assert.equal(other.status, status);
      assert.equal(other.fault, `status:${status}; prefer`);
    }
  });

  it('status by a session rule: "the next two sample creates fail with 503", then the real create', async () => {
    const rule = (await (
      await fetch(`${mock.url}/__mock/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Mock-Session': session },
        body: JSON.stringify({ fault: 'status:503', operations: ['createTestSample'], count: 2 }),
      })
    ).json()) as { id: number };
    const create: Call = {
      url: `${mock.url}${SAMPLES_PATH}`,
      method: 'POST',
      headers: { Authorization: 'Bearer page-token', 'Content-Type': 'application/json', 'X-Mock-Session': session },
      body: JSON.stringify({ fk_lot_id: 2001, fk_user_id: 9 }),
    };
    const seen = [await pageFetch(page, create), await pageFetch(page, create), await pageFetch(page, create)];
    assert.deepEqual(
      seen.map((s) => [s.status, s.fault]),
      [
        [503, `status:503; rule=${rule.id}`],
        [503, `status:503; rule=${rule.id}`],
        [201, null],
      ],
    );
    const listed = (await (await fetch(`${mock.url}/__mock/test-samples`, { headers: { 'X-Mock-Session': session } })).json()) as unknown[];
    assert.equal(listed.length, 1, 'the faulted creates recorded nothing');
  });

  it('drop and reset: fetch rejects with TypeError "Failed to fetch"', async () => {
    for (const fault of ['drop', 'reset']) {
      const seen = await pageFetch(page, order(`fault=${fault}`));
      assert.equal(seen.error, 'TypeError: Failed to fetch', fault);
      assert.equal(seen.status, undefined);
    }
  });

  it('drop by a session rule: Chromium may resend a request its reused connection lost; every attempt counts', async () => {
    const dropped = 'browser-drops';
    const add = await fetch(`${mock.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Mock-Session': dropped },
      body: JSON.stringify({ fault: 'drop', operations: ['getOrderInfo'], count: 2 }),
    });
    assert.equal(add.status, 201);
    const get = (name: string): Call => ({
      url: `${mock.url}${ORDER_PATH}ORD-2026-0001`,
      headers: { Authorization: 'Bearer page-token', 'X-Mock-Session': name },
    });
    assert.equal((await pageFetch(page, get('warm-up'))).status, 200, 'a connection to reuse');
    const first = await pageFetch(page, get(dropped));
    assert.equal(first.error, 'TypeError: Failed to fetch');
    const rules = (await (await fetch(`${mock.url}/__mock/faults`, { headers: { 'X-Mock-Session': dropped } })).json()) as {
      rules: { hits: number }[];
    };
    // Resent on a fresh connection (the lost one had served the warm-up): both counts used, one failure seen.
    // Not resent (the request went out on a fresh connection): one count used; the next request fails too.
    const hits = rules.rules[0]?.hits ?? 2;
    assert.ok(hits === 1 || hits === 2, `hits ${hits}`);
    if (hits === 1) assert.equal((await pageFetch(page, get(dropped))).error, 'TypeError: Failed to fetch');
    assert.equal((await pageFetch(page, get(dropped))).status, 200, 'the rule is used up');
  });

  it("delay: the page's own AbortSignal.timeout fires first; a shorter delay answers, no sooner than asked", async () => {
    const aborted = await pageFetch(page, order('fault=delay:3000', { timeoutMs: 500 }));
    assert.match(aborted.error ?? '', /^TimeoutError: /);
    const late = await pageFetch(page, order('fault=delay:800'));
    assert.equal(late.status, 200);
    assert.equal(late.fault, 'delay:800; prefer');
    assert.equal(late.body, orderBody);
    assert.ok(late.ms >= 700, `answered after ${late.ms} ms`);
  });

  it('truncate: the answer starts (200, marked), then response.json() rejects', async () => {
    const seen = await pageFetch(page, order('fault=truncate', { read: 'json' }));
    assert.equal(seen.status, 200);
    assert.equal(seen.fault, 'truncate; prefer');
    assert.equal(seen.body, undefined);
    assert.equal(seen.bodyError, 'TypeError: Failed to fetch');
  });

  it('empty: 200 with no body; response.json() rejects with a SyntaxError', async () => {
    const seen = await pageFetch(page, order('fault=empty', { read: 'json' }));
    assert.equal(seen.status, 200);
    assert.equal(seen.fault, 'empty; prefer');
    assert.match(seen.bodyError ?? '', /^SyntaxError: /);
    const text = await pageFetch(page, order('fault=empty'));
    assert.equal(text.body, '');
  });

  it('drip: the whole answer arrives, slowly', async () => {
    const rate = 2000;
    const seen = await pageFetch(page, order(`fault=drip:${rate}`, { read: 'json' }));
    assert.equal(seen.status, 200);
    assert.equal(seen.fault, `drip:${rate}; prefer`);
    assert.equal(seen.body, orderBody);
    const least = (Buffer.byteLength(orderBody) / rate) * 1000 * 0.8;
    assert.ok(seen.ms >= least, `${seen.ms} ms`);
  });

  it('never before authentication: without a token the page gets its 401, whatever fault it asks for', async () => {
    for (const fault of ['drop', 'reset', 'status:503', 'truncate', 'delay:3000']) {
      const seen = await pageFetch(page, {
        url: `${mock.url}${ORDER_PATH}ORD-2026-0001`,
        headers: { Prefer: `fault=${fault}` },
        timeoutMs: 2500,
      });
      assert.equal(seen.status, 401, fault);
      assert.equal(seen.fault, null, fault);
    }
  });

  it('no page errors; the console shows only the failed loads the faults cause', () => {
    const unexpected = browser.problems.filter(
      (p) =>
        !/Failed to load resource: (the server responded with a status of (401|50[0234])|net::ERR_(EMPTY_RESPONSE|CONNECTION_RESET|CONNECTION_CLOSED|CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING))/.test(
          p,
        ),
    );
    assert.deepEqual(unexpected, []);
  });
});

describe('browser: the dashboard lists, adds and clears fault rules', function () {
  this.timeout(60_000);
  let mock: MockServer;
  let browser: Chromium;
  let page: Page;
  const session = 'dash-faults';

  before(async () => {
    mock = await createMockServer({ port: 0, quiet: true });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${mock.url}/__mock/?session=${session}`);
    await page.waitForSelector('#health.ok');
  });
  after(async () => {
    await browser?.close();
    await mock?.close();
  });

  const rulesOf = async () =>
    (
      (await (await fetch(`${mock.url}/__mock/faults`, { headers: { 'X-Mock-Session': session } })).json()) as {
        rules: { id: number; fault: string }[];
      }
    ).rules;
  const createTransfer = () =>
    fetch(`${mock.url}${TRANSFERS_PATH}`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json', 'X-Mock-Session': session },
      body: JSON.stringify({ fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B', amount: 1 }),
    });

  it('offers the catalogue and the operations of the mock', async () => {
    await page.locator('#fault-kind option[value="drip"]').waitFor({ state: 'attached' });
    assert.deepEqual(await page.locator('#fault-kind option').allTextContents(), [
      'status',
      'delay',
      'drop',
      'reset',
      'empty',
      'truncate',
      'drip',
    ]);
    assert.deepEqual(await page.locator('#fault-operation option').allTextContents(), [
      'every operation',
      'getOrderInfo',
      'createLotTransfer',
      'createTestSample',
    ]);
    assert.equal(await page.textContent('#faults-empty'), 'No fault rules in this session.');
    assert.ok(await page.isVisible('#faults-empty'));
  });

  it('adds a rule, shows it being used, and removes it', async () => {
    await page.selectOption('#fault-kind', 'status');
    assert.match((await page.textContent('#fault-syntax')) ?? '', /status:503/);
    await page.fill('#fault-param', '503');
    await page.selectOption('#fault-operation', 'createLotTransfer');
    await page.fill('#fault-count', '2');
    await page.click('#fault-add');
    await page.waitForSelector('#faults tbody tr');
    const [rule] = await rulesOf();
    assert.ok(rule);
    assert.equal(rule.fault, 'status:503');
    assert.equal(await page.textContent('#message'), `Fault rule ${rule.id} added: status:503.`);
    const row = `#faults tbody tr[data-id="${rule.id}"]`;
    assert.deepEqual((await page.locator(`${row} td`).allTextContents()).slice(0, 5), [
      String(rule.id),
      'status:503',
      'createLotTransfer',
      '2',
      '0',
    ]);

    const faulted = await createTransfer();
    assert.equal(faulted.status, 503);
    assert.equal(faulted.headers.get('x-mock-fault'), `status:503; rule=${rule.id}`);
    await page.waitForSelector(`${row} td:nth-child(5):text-is("1")`);
    assert.equal(await page.textContent(`${row} td:nth-child(4)`), '1', 'one left');

    await page.click(`${row} button`);
    await page.waitForSelector(row, { state: 'detached' });
    assert.equal(await page.textContent('#message'), `Fault rule ${rule.id} removed.`);
    assert.deepEqual(await rulesOf(), []);
    assert.equal((await createTransfer()).status, 201);
  });

  it('says why a rule is refused, and clears every rule of the session', async () => {
    await page.selectOption('#fault-kind', 'drip');
    await page.fill('#fault-param', '1');
    await page.selectOption('#fault-operation', '');
    await page.fill('#fault-count', '');
    await page.click('#fault-add');
    await page.waitForSelector('#message.error');
    assert.match(
      (await page.textContent('#message')) ?? '',
      /^Fault rule refused: 400 Invalid fault injection: The fault rule has 1 problem: \/fault is not a fault: drip must be/,
    );

    await page.selectOption('#fault-kind', 'drop');
    assert.equal(await page.isDisabled('#fault-param'), true, 'drop takes no parameter');
    await page.click('#fault-add');
    await page.selectOption('#fault-kind', 'delay');
    await page.fill('#fault-param', '100-200');
    await page.fill('#fault-seconds', '120');
    await page.click('#fault-add');
    await page.locator('#faults tbody tr').nth(1).waitFor({ state: 'attached' });
    assert.deepEqual(
      (await rulesOf()).map((r) => r.fault),
      ['drop', 'delay:100-200'],
    );
    await page.click('#faults-clear');
    await page.locator('#faults tbody tr').first().waitFor({ state: 'detached' });
    assert.equal(await page.textContent('#message'), `Every fault rule of session "${session}" removed.`);
    assert.deepEqual(await rulesOf(), []);
  });

  it('no page errors and no console errors on the dashboard', () => {
    assert.deepEqual(
      browser.problems.filter((p) => !/Failed to load resource: the server responded with a status of 400/.test(p)),
      [],
    );
  });
});
