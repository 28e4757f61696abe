/**
 * Each fault of the catalogue over real HTTP on loopback (Node's fetch and raw sockets), asked for
 * per request (`Prefer: fault=`): what the client gets, the `X-Mock-Fault` marker, what is recorded,
 * what the log says; and that no fault ever comes before security and validation. Timings are lower
 * bounds only (a delay can be longer on a busy machine, never shorter).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { codeOf } from '../util/errors.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';
import { until } from '../support/wait.js';

const ORDER = `${ORDER_PATH}ORD-2026-0001`;
const transfer = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1 });
const sample = JSON.stringify({ fk_lot_id: 2202, fk_user_id: 4 });

interface RawExchange {
  head: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The data events the body came in. */
  chunks: number;
  /** The socket error's code, if the connection broke. */
  error?: string;
}

/** Sends `request` on a fresh connection and reads until the server closes it. */
function rawExchange(server: MockServer, request: string): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const received: Buffer[] = [];
    let error: string | undefined;
    socket.setTimeout(20_000, () => socket.destroy(new Error('no close within 20 s')));
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (e) => (error = codeOf(e) ?? e.message));
    socket.on('close', () => {
      if (error === 'no close within 20 s') return reject(new Error(error));
      const all = Buffer.concat(received);
      const split = all.indexOf('\r\n\r\n');
      const head = split < 0 ? all.toString('latin1') : all.subarray(0, split).toString('latin1');
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1))
        headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      // The chunks after the one holding the end of the head (a rough count of how the body arrived).
      resolve({
        head,
        headers,
        body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4),
        chunks: received.length,
        ...(error ? { error } : {}),
      });
    });
    socket.write(request);
  });
}

const getOrder = (prefer: string, extra = '') =>
  `GET ${ORDER} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nPrefer: ${prefer}\r\n${extra}Connection: close\r\n\r\n`;

describe('mock fault injection: each fault over HTTP (Prefer: fault=)', function () {
  this.timeout(30_000);
  let server: MockServer;
  let quietServer: MockServer;
  const logs: string[] = [];
  const quietLogs: string[] = [];
  let orderBody: string;

  before(async () => {
    server = await startMock({ quiet: false, log: (line) => logs.push(line) });
    quietServer = await startMock({ quiet: true, log: (line) => quietLogs.push(line) });
    orderBody = await (await fetch(`${server.url}${ORDER}`, { headers: AUTH })).text();
  });
  after(async () => {
    await server.close();
    await quietServer.close();
  });
  beforeEach(async () => {
    for (const target of [server, quietServer])
      assert.equal((await fetch(`${target.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
    logs.length = 0;
    quietLogs.length = 0;
  });

  const get = (prefer: string, init: RequestInit = {}) => fetch(`${server.url}${ORDER}`, { ...init, headers: { ...AUTH, Prefer: prefer } });
  const create = (target: MockServer, path: string, body: string, prefer?: string, init: RequestInit = {}) =>
    fetch(`${target.url}${path}`, { ...init, method: 'POST', headers: { ...JSON_AUTH, ...(prefer ? { Prefer: prefer } : {}) }, body });
  const listing = async (target: MockServer, resource: string): Promise<unknown[]> =>
    (await (await fetch(`${target.url}/__mock/${resource}`)).json()) as unknown[];

  it('status: answers 500, 502, 503, 504 with a problem naming the injected fault, marked, recording nothing', async () => {
    for (const status of [500, 502, 503, 504]) {
      for (const answer of [
        await get(`fault=status:${status}`),
        await create(server, TRANSFERS_PATH, transfer, `fault=status:${status}`),
        await create(server, SAMPLES_PATH, sample, `fault="status:${status}"`),
      ]) {
        assert.equal(answer.status, status);
        assert.equal(answer.headers.get('content-type'), 'application/problem+json');
        assert.equal(answer.headers.get('x-mock-fault'), `status:${status}; prefer`);
        assert.equal(answer.headers.get('retry-after'), status === 503 ? '1' : null);
        const body = (await answer.json()) as { type: string; status: number; detail: string };
        assert.match(body.type, /^https:\/\/goods\.example\/problems\/injected-/);
        assert.equal(body.status, status);
        assert.match(
          body.detail,
          new RegExp(`^Prefer: fault=status:${status} answered ${status} instead of the real answer: an injected fault`),
        );
      }
    }
    assert.deepEqual(await listing(server, 'lot-transfers'), [], 'a replaced create records nothing');
    assert.deepEqual(await listing(server, 'test-samples'), []);
    assert.ok(
      logs.some((line) =>
        line.includes(
          'fault status:503; prefer on POST /goodsReception/rest/v1/lot-transfers/create: answered 503; not handled, nothing recorded',
        ),
      ),
    );
  });

  it('delay: the real answer, marked, no sooner than asked (fixed or within a range)', async () => {
    let started = Date.now();
    const late = await get('fault=delay:600');
    const waited = Date.now() - started;
    assert.equal(late.status, 200);
    assert.equal(late.headers.get('x-mock-fault'), 'delay:600; prefer');
    assert.equal(await late.text(), orderBody);
    assert.ok(waited >= 550, `answered after ${waited} ms`);
    started = Date.now();
    const ranged = await create(server, SAMPLES_PATH, sample, 'fault=delay:200-400');
    assert.ok(Date.now() - started >= 150, `answered after ${Date.now() - started} ms`);
    assert.equal(ranged.status, 201);
    assert.equal(ranged.headers.get('x-mock-fault'), 'delay:200-400; prefer');
    assert.deepEqual(await listing(server, 'test-samples'), [await ranged.json()], 'a delayed create is recorded');
  });

  it('delay: a create whose client leaves during the delay is not handled and records nothing', async () => {
    await assert.rejects(create(server, TRANSFERS_PATH, transfer, 'fault=delay:1500', { signal: AbortSignal.timeout(200) }), {
      name: 'TimeoutError',
    });
    await until(() => logs.some((line) => line.includes('the client left during the 1500 ms delay; not handled, nothing recorded')), {
      what: 'the log line of the abandoned delay',
    });
    assert.deepEqual(await listing(server, 'lot-transfers'), []);
  });

  it('drop: the connection closes without an answer byte; a create records nothing', async () => {
    await assert.rejects(get('fault=drop'), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(String(error.cause), /other side closed/);
      return true;
    });
    await assert.rejects(create(server, TRANSFERS_PATH, transfer, 'fault=drop'), TypeError);
    const raw = await rawExchange(server, getOrder('fault=drop'));
    assert.equal(raw.head, '', 'not one byte');
    assert.equal(raw.error, undefined, 'closed (FIN), not reset');
    assert.deepEqual(await listing(server, 'lot-transfers'), []);
    assert.ok(logs.some((line) => line.includes('closed the connection without an answer; not handled, nothing recorded')));
  });

  it('reset: the connection is reset (ECONNRESET) without an answer byte; a create records nothing', async () => {
    await assert.rejects(get('fault=reset'), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal(codeOf(error.cause), 'ECONNRESET');
      return true;
    });
    await assert.rejects(create(server, SAMPLES_PATH, sample, 'fault=reset'), TypeError);
    const raw = await rawExchange(server, getOrder('fault=reset'));
    assert.equal(raw.head, '');
    assert.equal(raw.error, 'ECONNRESET');
    assert.deepEqual(await listing(server, 'test-samples'), []);
  });

  it('empty: the real status and headers with no body; a create is recorded and the log says so, even --quiet', async () => {
    const empty = await get('fault=empty');
    assert.equal(empty.status, 200);
    assert.equal(empty.headers.get('content-length'), '0');
    assert.equal(empty.headers.get('content-type'), 'application/json');
    assert.equal(empty.headers.get('x-mock-fault'), 'empty; prefer');
    await assert.rejects(empty.json(), SyntaxError);
    const created = await create(quietServer, TRANSFERS_PATH, transfer, 'fault=empty');
    assert.equal(created.status, 201);
    assert.equal(await created.text(), '');
    const recorded = (await listing(quietServer, 'lot-transfers')) as { id: number }[];
    assert.equal(recorded.length, 1, 'a damaged answer of a create: the create happened');
    assert.deepEqual(quietLogs, [
      `fault empty; prefer on POST ${TRANSFERS_PATH}: the create was recorded and stays recorded (see the /__mock listings); answered 201 without its body (${JSON.stringify(recorded[0]).length} bytes)`,
    ]);
  });

  it('truncate: the real head with the full Content-Length, half the body (or BYTES), then the connection closes', async () => {
    const half = await rawExchange(server, getOrder('fault=truncate'));
    assert.match(half.head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(half.headers['content-length'], String(Buffer.byteLength(orderBody)));
    assert.equal(half.headers['x-mock-fault'], 'truncate; prefer');
    assert.equal(half.body.toString('utf8'), orderBody.slice(0, Math.floor(orderBody.length / 2)));
    const ten = await rawExchange(server, getOrder('fault=truncate:10'));
    assert.equal(ten.body.toString('utf8'), orderBody.slice(0, 10));
    const none = await rawExchange(server, getOrder('fault=truncate:0'));
    assert.equal(none.headers['x-mock-fault'], 'truncate:0; prefer');
    assert.equal(none.body.length, 0);
    const all = await rawExchange(server, getOrder('fault=truncate:1000000'));
    assert.equal(all.body.length, Buffer.byteLength(orderBody) - 1, 'never the whole body');

    const fetched = await get('fault=truncate');
    assert.equal(fetched.status, 200);
    await assert.rejects(fetched.json(), TypeError, 'the body breaks off');
    const created = await create(quietServer, SAMPLES_PATH, sample, 'fault=truncate');
    assert.equal(created.status, 201);
    await assert.rejects(created.text(), TypeError);
    assert.equal((await listing(quietServer, 'test-samples')).length, 1);
    assert.equal(quietLogs.length, 1);
    assert.match(
      quietLogs[0] ?? '',
      /^fault truncate; prefer on POST .*: the create was recorded and stays recorded .*; answered 201 with \d+ of its \d+ body bytes, then closed the connection$/,
    );
  });

  it('drip: the whole real answer, its body a slice at a time, no faster than asked', async () => {
    const rate = 2000;
    const started = Date.now();
    const dripped = await get(`fault=drip:${rate}`);
    assert.equal(dripped.status, 200);
    assert.equal(dripped.headers.get('x-mock-fault'), `drip:${rate}; prefer`);
    assert.equal(await dripped.text(), orderBody);
    const least = (Buffer.byteLength(orderBody) / rate) * 1000 * 0.8;
    assert.ok(Date.now() - started >= least, `${Date.now() - started} ms for ${orderBody.length} bytes at ${rate} bytes/s`);
    const raw = await rawExchange(server, getOrder(`fault=drip:${rate}`));
    assert.equal(raw.body.toString('utf8'), orderBody);
    assert.ok(raw.chunks >= 3, `the body came in ${raw.chunks} pieces`);
    const created = await create(server, TRANSFERS_PATH, transfer, 'fault=drip:5000');
    assert.equal(created.status, 201);
    assert.deepEqual(await listing(server, 'lot-transfers'), [await created.json()]);
  });

  it('never before security or validation: a refused request stays refused whatever fault it asks for', async () => {
    for (const fault of ['status:503', 'delay:100', 'drop', 'reset', 'empty', 'truncate', 'drip:10']) {
      const noToken = await fetch(`${server.url}${ORDER}`, { headers: { Prefer: `fault=${fault}` } });
      assert.equal(noToken.status, 401, fault);
      assert.equal(noToken.headers.get('x-mock-fault'), null);
      assert.equal(((await noToken.json()) as { type: string }).type, 'https://goods.example/problems/unauthorized');
      const rejected = await fetch(`${server.url}${TRANSFERS_PATH}`, {
        method: 'POST',
        headers: { Authorization: 'Bearer invalid', 'Content-Type': 'application/json', Prefer: `fault=${fault}` },
        body: transfer,
      });
      assert.equal(rejected.status, 401, fault);
      const invalid = await create(server, SAMPLES_PATH, '{"fk_lot_id":"x"}', `fault=${fault}`);
      assert.equal(invalid.status, 400, fault);
      assert.equal(((await invalid.json()) as { type: string }).type, 'https://goods.example/problems/invalid-body');
      const unknownLot = await create(server, SAMPLES_PATH, JSON.stringify({ fk_lot_id: 1, fk_user_id: 1 }), `fault=${fault}`);
      assert.equal(unknownLot.status, 422, fault);
      await unknownLot.body?.cancel();
    }
  });

  it('answers a fault the catalogue does not allow with a 400 invalid-fault, and keeps Prefer: code= as it was', async () => {
    const bad = await get('fault=status:418');
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { type: string; detail: string };
    assert.equal(body.type, 'https://goods.example/problems/invalid-fault');
    assert.match(
      body.detail,
      /^Prefer: fault="status:418" is not a fault: status must be one of status:500 \| status:502 \| status:503 \| status:504\. Faults: /,
    );
    const both = await get('code=404, fault=drop');
    assert.equal(both.status, 400);
    assert.match(((await both.json()) as { detail: string }).detail, /both code= and fault=/);
    const code500 = await get('code=500');
    assert.equal(code500.status, 400, 'an undocumented code stays a 400');
    const hint = (await code500.json()) as { type: string; detail: string };
    assert.equal(hint.type, 'https://goods.example/problems/invalid-prefer');
    assert.match(hint.detail, /To inject a 500, send Prefer: fault=status:500 \(docs\/faults\.md\)\.$/);
    const code404 = await get('code=404');
    assert.equal(code404.status, 404, 'a documented code answers as before');
  });

  it('refuses a fault with trailing text or inner spaces (400 invalid-fault, no X-Mock-Fault), and a code with trailing text', async () => {
    for (const prefer of ['fault=delay: 10', 'fault=delay:2000 x', 'fault=status:503 junk', 'fault = "drip:10 "']) {
      const answer = await get(prefer);
      assert.equal(answer.status, 400, prefer);
      assert.equal(answer.headers.get('x-mock-fault'), null, prefer);
      const body = (await answer.json()) as { type: string; detail: string };
      assert.equal(body.type, 'https://goods.example/problems/invalid-fault', prefer);
      assert.match(body.detail, /^Prefer: fault=".*" is not a fault: .*Faults: /, prefer);
    }
    const code = await get('code=404 junk');
    assert.equal(code.status, 400);
    assert.equal(((await code.json()) as { type: string }).type, 'https://goods.example/problems/invalid-prefer');
  });
});
