/**
 * conformance/context.ts: what checks share, against a small server on loopback that records every
 * request: the paths and headers it sends, the memoized exchanges (the main order, planned creates),
 * lot discovery and why it cannot be done, the write budget and --read-only, whose work a request is
 * (`as`), and the verdict of a judgment. The budget's arithmetic alone is in cases.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { readContract, type JsonObject } from '../contract/document.js';
import { withOrder, type CreateOperationId } from '../contract/operations-model.js';
import { FIXTURES_DIR } from '../contract/paths.js';
import { ACCEPT_ENCODING } from '../judgments/content-coding.js';
import { listen, type Loopback } from '../support/loopback.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from './config.js';
import { CheckContext } from './context.js';
import { markerMembers } from './data.js';
import { CheckFailure, CheckNotRun, CheckSkipped } from './failure.js';

const document = readContract();
const fixture = JSON.parse(readFileSync(join(FIXTURES_DIR, 'ORD-2026-0001.json'), 'utf8')) as JsonObject;
const TOKEN = 'context-test-token';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** The order answers, by the order number in the last path segment. */
function orderAnswer(number: string, lotsMember: string, lotIdMember: string): { status: number; type: string; body: string } {
  const lots = fixture[lotsMember];
  const withLots = (list: unknown) => JSON.stringify({ ...fixture, [lotsMember]: list });
  if (number === 'OK') return { status: 200, type: 'application/json', body: withLots(lots) };
  if (number === 'NO-LOTS') return { status: 200, type: 'application/json', body: withLots([]) };
  if (number === 'ODD-LOTS')
    return {
      status: 200,
      type: 'application/json',
      body: withLots([{ [lotIdMember]: 'seven' }, { [lotIdMember]: 5 }, 'not a lot', { [lotIdMember]: 1.5 }, { [lotIdMember]: 9 }]),
    };
  if (number === 'HTML') return { status: 200, type: 'text/html', body: '<html>login</html>' };
  return { status: 404, type: 'application/problem+json', body: '{"status":404}' };
}

describe('conformance/context: CheckContext', () => {
  let server: Loopback;
  let baseUrl = '';
  const seen: Seen[] = [];
  const probe = new CheckContext({
    config: resolveConformanceConfig({ baseUrl: 'http://127.0.0.1:1' }),
    baseUrl: 'http://127.0.0.1:1',
    document,
  });
  const model = withOrder(probe.model);
  const [transfers, samples] = model.createIds as [CreateOperationId, CreateOperationId];

  before(async () => {
    server = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (req.method === 'POST') {
          res.writeHead(201, { 'content-type': 'application/json' }).end(body);
          return;
        }
        const number = decodeURIComponent((req.url ?? '').split('/').at(-1) ?? '');
        const answer = orderAnswer(number, model.order.lotsMember, model.order.lotIdMember);
        res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      });
    });
    baseUrl = server.url;
  });
  after(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });

  const context = (config: ConformanceConfigInput = {}) =>
    new CheckContext({
      config: resolveConformanceConfig({ baseUrl, token: TOKEN, orderNumber: 'OK', concurrency: 4, seed: 7, ...config }),
      baseUrl,
      document,
    });

  it("builds the contract's paths with the order number URL-encoded, and bearer headers with the token", () => {
    const ctx = context();
    const template = model.orderInfo.path;
    const param = model.orderInfo.pathParams[0] ?? '';
    assert.equal(ctx.path(model.orderInfo.operationId, 'WE 2026/3?'), template.replace(`{${param}}`, 'WE%202026%2F3%3F'));
    assert.equal(ctx.path(model.orderInfo.operationId), template.replace(`{${param}}`, 'OK'), 'default: --order-number');
    assert.equal(ctx.path(transfers), model.create(transfers).path);
    assert.deepEqual(ctx.bearer(), { authorization: `Bearer ${TOKEN}` });
    assert.deepEqual(ctx.bearer('other'), { authorization: 'Bearer other' });
  });

  it('sends the main order once, plain, however many checks ask for it at once; other GETs ask for a compressed answer', async () => {
    const ctx = context();
    const [a, b] = await Promise.all([ctx.orderExchange(), ctx.orderExchange()]);
    assert.equal(a, b);
    assert.equal(a.answer?.status, 200);
    await ctx.getOrder('OK');
    await ctx.getOrder('OK', {}, undefined, true);
    assert.deepEqual(
      seen.map((request) => [request.method, request.headers['accept-encoding'], request.headers.authorization]),
      [
        ['GET', undefined, `Bearer ${TOKEN}`],
        ['GET', ACCEPT_ENCODING, `Bearer ${TOKEN}`],
        ['GET', undefined, undefined],
      ],
    );
  });

  it('discovers the lots of --order-number: integer ids only, in the order answered', async () => {
    const lots = await context({ orderNumber: 'ODD-LOTS' }).lots();
    assert.deepEqual(
      lots.map((lot) => lot.id),
      [5, 9],
    );
    const real = await context().lots();
    const fixtureLots = fixture[model.order.lotsMember] as JsonObject[];
    assert.deepEqual(
      real.map((lot) => lot.value),
      fixtureLots,
    );
  });

  it('without lots, every case that needs one is not run, saying why and what blocked it', async () => {
    const cases: [string, string, RegExp][] = [
      ['NO-LOTS', 'no-lots', /has no lots with an integer/],
      ['MISSING', 'setup', /answered 404/],
      ['HTML', 'setup', /not JSON/],
    ];
    for (const [orderNumber, reason, message] of cases) {
      const ctx = context({ orderNumber });
      const error = await ctx.lots().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof CheckNotRun, `${orderNumber}: ${String(error)}`);
      assert.equal(error.reason, reason, orderNumber);
      assert.equal(error.blockedBy, `GET order ${orderNumber}`);
      assert.match(error.message, message);
      await assert.rejects(ctx.corpus(transfers), CheckNotRun, 'the corpus needs the lots');
    }
    const unreachable = new CheckContext({
      config: resolveConformanceConfig({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, timeoutMs: 2000 }),
      baseUrl: 'http://127.0.0.1:1',
      document,
    });
    await assert.rejects(unreachable.lots(), (error: unknown) => error instanceof CheckNotRun && /got no answer/.test(error.message));
  });

  it('memo runs its maker once per key, and shares a failure without an unhandled rejection', async () => {
    const ctx = context();
    let made = 0;
    const make = () => {
      made++;
      return Promise.resolve(made);
    };
    assert.deepEqual(await Promise.all([ctx.memo('k', make), ctx.memo('k', make)]), [1, 1]);
    assert.equal(await ctx.memo('other', make), 2);
    const failing = ctx.memo('broken', () => Promise.reject(new Error('once')));
    assert.equal(ctx.memo('broken', make), failing);
    await assert.rejects(failing, /once/);
  });

  it('knows whose work is running (`as`), across awaits, and only for its own context', async () => {
    const ctx = context();
    const other = context();
    assert.equal(ctx.currentCheck, 'setup');
    const seenBy = await ctx.as('order.exact', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return [ctx.currentCheck, other.currentCheck];
    });
    assert.deepEqual(seenBy, ['order.exact', 'setup']);
    assert.equal(ctx.currentCheck, 'setup');
  });

  it('--read-only: no POST at all; sending one is a skip with the reason read-only', async () => {
    const ctx = context({ readOnly: true });
    assert.throws(
      () => ctx.sendToCreate(transfers, {}),
      (error: unknown) => error instanceof CheckSkipped && error.reason === 'read-only',
    );
    await assert.rejects(
      ctx.createRecord(transfers, {}, { spec: true }),
      (error: unknown) => error instanceof CheckSkipped && error.reason === 'read-only',
    );
    assert.deepEqual(
      seen.filter((request) => request.method === 'POST'),
      [],
    );
  });

  it('--max-writes: records created count as writes until it is spent (then not run); other POSTs do not count', async () => {
    const ctx = context({ maxWrites: 2 });
    const body = await ctx.body(transfers, 'w');
    assert.equal((await ctx.createRecord(transfers, body, { spec: true })).answer?.status, 201);
    assert.equal(ctx.writes, 1);
    // One write is reserved for each create operation's spec cases: the second transfer gets none.
    await assert.rejects(
      ctx.createRecord(transfers, body, { spec: true }),
      (error: unknown) => error instanceof CheckNotRun && error.reason === 'write-budget' && error.blockedBy === '--max-writes 2',
    );
    assert.equal((await ctx.createRecord(samples, await ctx.body(samples, 'w'), { spec: true })).answer?.status, 201);
    assert.equal((await ctx.sendToCreate(transfers, { invalid: true })).answer?.status, 201);
    assert.equal(ctx.writes, 2, 'an invalid body is not a write');
    assert.equal(ctx.postsAccepted, 3, 'but every 2xx to a POST is counted as a record the server says it created');
    assert.equal(seen.filter((request) => request.method === 'POST').length, 3);
  });

  it('a planned extra create is sent once, whoever asks for it', async () => {
    const ctx = context();
    const body = await ctx.body(samples, 'extra');
    const [a, b] = await Promise.all([ctx.extraCreate('shared', samples, body), ctx.extraCreate('shared', samples, body)]);
    assert.equal(a, b);
    assert.equal(seen.filter((request) => request.method === 'POST').length, 1);
  });

  it('bodies for extra cases name the first lot and carry the run marker; corpus creates alternate asking for compression', async () => {
    const ctx = context({ runMarker: 'CONF-CTX-TEST' });
    const [lot] = await ctx.lots();
    for (const id of [transfers, samples]) {
      const op = model.create(id);
      const body = await ctx.body(id, 'k');
      const lotMember = op.members.find((member) => member.namesLot)?.name ?? '';
      assert.equal(body[lotMember], lot?.id, `${id} names the first lot`);
      const marked = markerMembers(ctx.derivation(id), 'CONF-CTX-TEST');
      assert.ok(marked.length > 0, `${id} has members that can carry the marker`);
      for (const name of marked) assert.match(JSON.stringify(body[name]), /CONF-CTX-TEST-k/, `${id}.${name}`);
    }
    seen.length = 0;
    await ctx.corpusCreate(transfers, 0);
    await ctx.corpusCreate(transfers, 1);
    await ctx.corpusCreate(transfers, 0);
    assert.deepEqual(
      seen.map((request) => request.headers['accept-encoding']),
      [undefined, ACCEPT_ENCODING],
      'index 0 plain, index 1 compressed, index 0 again memoized',
    );
    assert.deepEqual(JSON.parse(seen[0]?.body ?? ''), (await ctx.corpus(transfers))[0]?.body);
  });

  it('verdict: nothing to say without violations; every violation in one failure, the token redacted', async () => {
    const ctx = context();
    const exchange = await ctx.getOrder('OK');
    assert.doesNotThrow(() => ctx.verdict(exchange, []));
    assert.throws(
      () =>
        ctx.verdict(exchange, [
          { rule: 'rule one', expected: 'one thing', reason: 'first reason' },
          { rule: 'rule two', expected: 'another', reason: 'second reason' },
        ]),
      (error: unknown) => {
        assert.ok(error instanceof CheckFailure);
        assert.equal(error.details.rule, 'rule one');
        assert.equal(error.details.expected, 'one thing');
        assert.equal(error.details.actual, 'first reason; second reason');
        assert.equal(error.details.status, 200);
        assert.ok(!error.message.includes(TOKEN), error.message);
        return true;
      },
    );
  });

  it('sent: an exchange that was not sent is not run, with what blocked it', () => {
    const ctx = context();
    const request = { operation: model.orderInfo.operationId, method: 'GET', path: '/', headers: {} };
    assert.doesNotThrow(() => ctx.sent({ request, timedOut: false, answer: { status: 200, headers: {}, text: '', bytes: 0 } }));
    assert.throws(
      () =>
        ctx.sent({ request, timedOut: false, error: 'blocked', notSent: { reason: 'deadline', blockedBy: 'the deadline (--deadline)' } }),
      (error: unknown) => error instanceof CheckNotRun && error.reason === 'deadline' && error.blockedBy === 'the deadline (--deadline)',
    );
  });
});
