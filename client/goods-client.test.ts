/**
 * The typed client against a recording server on loopback: what goes over the wire (URL encoding,
 * headers, body) and how answers become `{ data }` / `{ error, status }`. The client against the
 * real mock is in `goods-client.mock.test.ts`.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { createGoodsClient, isValidationProblem, type Problem } from './index.js';
import { closedPort } from '../support/loopback.js';
import { listen, readBody, sendJson, type RunningServer } from '../test/support/http.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('typed client: requests and answers (recording server)', () => {
  let server: RunningServer;
  const seen: Seen[] = [];
  let answer: { status: number; body: unknown; contentType?: string } = { status: 200, body: {} };

  before(async () => {
    server = await listen((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        sendJson(res, answer.status, answer.body, answer.contentType);
      });
    });
  });
  after(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('URL-encodes the order number in the path (a space becomes %20, a slash %2F)', async () => {
    const client = createGoodsClient({ baseUrl: server.url, token: 't' });
    answer = { status: 200, body: { order: {}, containers: [], charges: [], lots: [] } };
    await client.getOrderInfo('WE 2026-0003');
    await client.getOrderInfo('A/B?c#d');
    assert.deepEqual(
      seen.map((s) => [s.method, s.url]),
      [
        ['GET', '/manualProduction/rest/v1/orders/info/WE%202026-0003'],
        ['GET', '/manualProduction/rest/v1/orders/info/A%2FB%3Fc%23d'],
      ],
    );
  });

  it('sends the bearer token, the session header and extra headers; no session header without a session', async () => {
    await createGoodsClient({ baseUrl: `${server.url}/`, token: 'tok-1', session: 'alice', headers: { 'X-Trace': 'x1' } }).getOrderInfo(
      '1',
    );
    await createGoodsClient({ baseUrl: server.url, token: 'tok-2' }).getOrderInfo('1');
    assert.equal(seen[0]?.headers.authorization, 'Bearer tok-1');
    assert.equal(seen[0]?.headers['x-mock-session'], 'alice');
    assert.equal(seen[0]?.headers['x-trace'], 'x1');
    assert.equal(seen[0]?.url, '/manualProduction/rest/v1/orders/info/1', 'a trailing slash on baseUrl gives no double slash');
    assert.equal(seen[1]?.headers.authorization, 'Bearer tok-2');
    assert.equal(seen[1]?.headers['x-mock-session'], undefined);
  });

  it('posts creates as JSON to the contract paths and answers { data, status }', async () => {
    const client = createGoodsClient({ baseUrl: server.url, token: 't' });
    const stored = { id: 7, fk_lot_id: 2001, fk_user_id: 42 };
    answer = { status: 201, body: stored };
    const transfer = await client.createLotTransfer({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1.5 });
    const sample = await client.createTestSample({ fk_lot_id: 2001, fk_user_id: 42 });
    assert.deepEqual(transfer, { data: stored, status: 201 });
    assert.deepEqual(sample, { data: stored, status: 201 });
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.headers['content-type'], JSON.parse(s.body) as unknown]),
      [
        [
          'POST',
          '/goodsReception/rest/v1/lot-transfers/create',
          'application/json',
          { fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1.5 },
        ],
        ['POST', '/goodsReception/rest/v1/test-samples/create', 'application/json', { fk_lot_id: 2001, fk_user_id: 42 }],
      ],
    );
  });

  it('answers { error, status } with the problem+json body of an error answer', async () => {
    const problem = {
      type: 'https://goods.example/problems/unknown-lot',
      title: 'Unknown lot',
      status: 422,
      detail: 'd',
      errors: [{ pointer: '/fk_lot_id', detail: 'x' }],
    };
    answer = { status: 422, body: problem, contentType: 'application/problem+json' };
    const result = await createGoodsClient({ baseUrl: server.url, token: 't' }).createTestSample({ fk_lot_id: 9, fk_user_id: 1 });
    assert.equal(result.data, undefined);
    assert.equal(result.status, 422);
    assert.deepEqual(result.error, problem);
  });

  it('isValidationProblem: true for a problem listing field errors (pointer and detail strings), false otherwise', () => {
    const problem = { type: 'https://goods.example/problems/invalid-body', title: 'Invalid', status: 400, detail: 'd' };
    // A problem as an answer may carry any `errors`: what the server sent.
    const withErrors = (errors: unknown): Problem => Object.assign({ ...problem }, { errors });
    assert.equal(isValidationProblem(withErrors([{ pointer: '/amount', detail: 'must be > 0' }])), true);
    assert.equal(isValidationProblem(withErrors([])), true, 'an empty list is still a list');
    assert.equal(isValidationProblem(problem), false);
    for (const errors of ['x', [{ pointer: '/a' }], [{ pointer: 1, detail: 'd' }], [null]])
      assert.equal(isValidationProblem(withErrors(errors)), false, JSON.stringify(errors));
  });

  it('describes an error answer that is not problem details as problem details, keeping the status and the body text', async () => {
    answer = { status: 502, body: ['not', 'a', 'problem'] };
    const result = await createGoodsClient({ baseUrl: server.url, token: 't' }).getOrderInfo('1');
    assert.equal(result.status, 502);
    assert.equal(result.error?.status, 502);
    assert.equal(result.error?.type, 'about:blank');
    assert.match(result.error?.detail ?? '', /not problem details.*\["not","a","problem"\]/);
  });

  it('uses the fetch it is given', async () => {
    const urls: string[] = [];
    const client = createGoodsClient({
      baseUrl: server.url,
      token: 't',
      fetch: (request) => {
        urls.push(request.url);
        return fetch(request);
      },
    });
    answer = { status: 200, body: { order: {}, containers: [], charges: [], lots: [] } };
    const result = await client.getOrderInfo('X 1');
    assert.equal(result.status, 200);
    assert.deepEqual(urls, [`${server.url}/manualProduction/rest/v1/orders/info/X%201`]);
  });

  it('refuses a base URL that is not absolute http(s), saying what to pass', () => {
    assert.throws(
      () => createGoodsClient({ baseUrl: '127.0.0.1:4010', token: 't' }),
      /baseUrl must be an absolute http\(s\) URL such as "http:\/\/127\.0\.0\.1:4010"/,
    );
  });

  it('throws when no answer arrives (nothing listens)', async () => {
    const port = await closedPort();
    await assert.rejects(createGoodsClient({ baseUrl: `http://127.0.0.1:${port}`, token: 't' }).getOrderInfo('1'), TypeError);
  });
});
