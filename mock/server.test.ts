import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readContract } from '../contract/document.js';
import { compileContract } from '../contract/schemas.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, postJson, rawRequest, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const compiled = compileContract(readContract(), 'strict');
const validLotTransfer = compiled.validator({ $ref: '#/components/schemas/LotTransfer' });
const validTestSample = compiled.validator({ $ref: '#/components/schemas/TestSample' });
const validProblem = compiled.validator({ $ref: '#/components/schemas/Problem' });
const validValidationProblem = compiled.validator({ $ref: '#/components/schemas/ValidationProblem' });
const validOrderInfo = compiled.validator({ $ref: '#/components/schemas/OrderInfo' });

async function problemOf(response: Response, status: number): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(validProblem(body), []);
  assert.equal(body['status'], status);
  return body;
}

describe('mock server: core request path', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());
  beforeEach(async () => {
    assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
  });

  it('starts on loopback with a url without trailing slash', () => {
    assert.equal(server.host, '127.0.0.1');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(server.port > 0);
  });

  it('answers every fixture order, URL-decoding the number (space in "WE 2026-0003")', async () => {
    for (const number of server.orderNumbers) {
      const response = await fetch(`${server.url}${ORDER_PATH}${encodeURIComponent(number)}`, { headers: AUTH });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json');
      const body = (await response.json()) as { order: { orderNumber: string } };
      assert.deepEqual(validOrderInfo(body), []);
      assert.equal(body.order.orderNumber, number);
    }
    assert.ok(server.orderNumbers.includes('WE 2026-0003'));
  });

  /**
   * The status line answering `request`, sent on a fresh connection whose sending side is closed with it
   * (`holdMs`: this process, the mock's too, then busy for that long, so the mock finds all of it at once).
   */
  const halfClosedStatus = (request: string, holdMs = 0) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect({ host: '127.0.0.1', port: server.port }, () => {
        socket.end(request);
        const until = Date.now() + holdMs;
        while (Date.now() < until);
      });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').split('\r\n')[0] ?? ''));
    });
  const head = `Host: 127.0.0.1\r\nAuthorization: ${AUTH.Authorization}`;
  const sampleCreate = (body: string) =>
    `POST ${SAMPLES_PATH} HTTP/1.1\r\n${head}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const SAMPLE = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 42 });

  it('answers clients that close their sending side right after their request', async () => {
    const requests = [`GET ${ORDER_PATH}ORD-2026-0001 HTTP/1.1\r\n${head}\r\n\r\n`, sampleCreate(SAMPLE)];
    const lines = await Promise.all(Array.from({ length: 20 }, (_, i) => halfClosedStatus(requests[i % 2] ?? '')));
    assert.deepEqual(new Set(lines), new Set(['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created']), lines.join(', '));
  });

  it('answers a request whose bytes fill a whole read and its FIN read in the same turn (answers written before Node ends the connection)', async () => {
    // libuv reads on while a read fills its 64 KiB buffer, so a request of exactly 64 KiB found whole in
    // the kernel is read with its FIN in one turn, before the batch of answers of that turn is written.
    let padding = 65_536 - sampleCreate(SAMPLE).length;
    while (sampleCreate(SAMPLE + ' '.repeat(padding)).length > 65_536) padding -= 1;
    const request = sampleCreate(SAMPLE + ' '.repeat(padding));
    assert.equal(Buffer.byteLength(request), 65_536);
    assert.equal(await halfClosedStatus(request, 100), 'HTTP/1.1 201 Created');
  });

  it('answers 404 problem for an unknown order and for invalid percent-encoding', async () => {
    const unknown = await problemOf(await fetch(`${server.url}${ORDER_PATH}ORD-0000`, { headers: AUTH }), 404);
    assert.equal(unknown['type'], 'https://goods.example/problems/order-not-found');
    assert.match(String(unknown['detail']), /ORD-0000/);
    const broken = await rawRequest(server.url, { path: `${ORDER_PATH}%E0%A4%A`, headers: AUTH });
    assert.equal(broken.status, 404);
    assert.equal(broken.headers['content-type'], 'application/problem+json');
  });

  it('answers 404 for an unknown path and 405 with Allow for a known path with another method', async () => {
    await problemOf(await fetch(`${server.url}/nothing/here`, { headers: AUTH }), 404);
    const wrong = await fetch(`${server.url}${TRANSFERS_PATH}`, { method: 'PUT', headers: JSON_AUTH, body: '{}' });
    await problemOf(wrong, 405);
    assert.equal(wrong.headers.get('allow'), 'POST, OPTIONS');
    const del = await fetch(`${server.url}${ORDER_PATH}ORD-2026-0001`, { method: 'DELETE', headers: AUTH });
    await problemOf(del, 405);
    assert.equal(del.headers.get('allow'), 'GET, HEAD, OPTIONS');
  });

  it('creates a lot transfer: id, timestamps, contract defaults, readOnly members ignored, 201 with the stored object', async () => {
    const before = Date.now();
    const response = await postJson(server, TRANSFERS_PATH, {
      fk_lot_id: 2001,
      source_scancode: 'SRC-1',
      target_scancode: 'TGT-1',
      amount: 12.5,
      id: 999,
      created: '2000-01-01T00:00:00Z',
    });
    assert.equal(response.status, 201);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(validLotTransfer(body), []);
    assert.equal(typeof body['id'], 'number');
    assert.equal(body['completed'], false);
    assert.equal(body['lotnumber'], 'L-240101');
    assert.equal(body['created'], body['modified']);
    assert.match(String(body['created']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(String(body['created'])) >= before - 1000);
    const second = (await (
      await postJson(server, TRANSFERS_PATH, {
        fk_lot_id: 2201,
        source_scancode: 'a',
        target_scancode: 'b',
        amount: 1,
        completed: true,
        lotnumber: 'MINE',
      })
    ).json()) as Record<string, unknown>;
    assert.equal(second['id'], Number(body['id']) + 1);
    assert.equal(second['completed'], true);
    assert.equal(second['lotnumber'], 'MINE');
    const listed = (await (await fetch(`${server.url}/__mock/lot-transfers`)).json()) as unknown[];
    assert.deepEqual(listed, [body, second]);
  });

  it('creates test samples with the sequence default and status/notes defaults', async () => {
    const first = (await (await postJson(server, SAMPLES_PATH, { fk_lot_id: 2202, fk_user_id: 42 })).json()) as Record<string, unknown>;
    const second = (await (
      await postJson(server, SAMPLES_PATH, { fk_lot_id: 2101, fk_user_id: 7, status: 'DONE', notes: 'n' })
    ).json()) as Record<string, unknown>;
    assert.deepEqual(validTestSample(first), []);
    assert.deepEqual(validTestSample(second), []);
    assert.equal(second['id'], Number(first['id']) + 1);
    const sequence = /^S-(\d{6})$/.exec(String(first['sample_number']));
    assert.ok(sequence, 'sample_number follows x-default-sequence S- + 6 digits');
    assert.equal(second['sample_number'], `S-${String(Number(sequence[1]) + 1).padStart(6, '0')}`);
    assert.deepEqual([first['status'], first['notes'], first['lotnumber']], ['NEW', '', 'L-241502']);
    assert.deepEqual([second['status'], second['notes']], ['DONE', 'n']);
  });

  it('answers 400 with every schema problem as errors[].pointer, and records nothing', async () => {
    const response = await postJson(server, TRANSFERS_PATH, { fk_lot_id: 2001, amount: 0, extra: true });
    const body = await problemOf(response, 400);
    assert.deepEqual(validValidationProblem(body), []);
    const pointers = (body['errors'] as { pointer: string }[]).map((e) => e.pointer).sort();
    assert.deepEqual(pointers, ['/amount', '/extra', '/source_scancode', '/target_scancode']);
    assert.deepEqual(await (await fetch(`${server.url}/__mock/lot-transfers`)).json(), []);
  });

  it('answers 400 for malformed JSON, a non-object, an empty body and invalid UTF-8', async () => {
    for (const body of ['{"fk_lot_id":', '[1,2]', '"text"', 'null', '', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])]) {
      const answer = await rawRequest(server.url, { method: 'POST', path: SAMPLES_PATH, headers: JSON_AUTH, body });
      assert.equal(answer.status, 400, `body ${String(body)}`);
      const problem = JSON.parse(answer.body) as Record<string, unknown>;
      assert.deepEqual(validValidationProblem(problem), []);
    }
  });

  it('answers 422 with /fk_lot_id for a lot of no fixture order', async () => {
    const body = await problemOf(await postJson(server, SAMPLES_PATH, { fk_lot_id: 999999, fk_user_id: 1 }), 422);
    assert.deepEqual(validValidationProblem(body), []);
    assert.deepEqual(
      (body['errors'] as { pointer: string }[]).map((e) => e.pointer),
      ['/fk_lot_id'],
    );
  });

  it('answers 415 for a body that is not application/json, accepting a utf-8 charset', async () => {
    const body = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 1 });
    for (const type of ['text/plain', 'application/xml', 'application/json; charset=latin1']) {
      await problemOf(
        await fetch(`${server.url}${SAMPLES_PATH}`, { method: 'POST', headers: { ...AUTH, 'Content-Type': type }, body }),
        415,
      );
    }
    const missing = await rawRequest(server.url, { method: 'POST', path: SAMPLES_PATH, headers: AUTH, body });
    assert.equal(missing.status, 415);
    const ok = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json; charset=UTF-8' },
      body,
    });
    assert.equal(ok.status, 201);
  });

  it('answers 413 for a body over 1 MiB, declared or streamed (chunked)', async () => {
    const big = `{"notes":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    await problemOf(await fetch(`${server.url}${SAMPLES_PATH}`, { method: 'POST', headers: JSON_AUTH, body: big }), 413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 24; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(100 * 1024)));
        controller.close();
      },
    });
    const chunked = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: stream,
      duplex: 'half',
    });
    await problemOf(chunked, 413);
    assert.equal((await fetch(`${server.url}/__mock/health`)).status, 200);
  });

  it('never crashes on JSON nested 10,000 levels deep or __proto__ members, and pollutes no prototype', async () => {
    const deep = `{"notes":${'['.repeat(10000)}${']'.repeat(10000)},"fk_lot_id":2001,"fk_user_id":1}`;
    await problemOf(await fetch(`${server.url}${SAMPLES_PATH}`, { method: 'POST', headers: JSON_AUTH, body: deep }), 400);
    const hostile = '{"fk_lot_id":2001,"fk_user_id":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    const body = await problemOf(await fetch(`${server.url}${SAMPLES_PATH}`, { method: 'POST', headers: JSON_AUTH, body: hostile }), 400);
    assert.deepEqual((body['errors'] as { pointer: string }[]).map((e) => e.pointer).sort(), ['/__proto__', '/constructor']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.deepEqual(await (await fetch(`${server.url}/__mock/test-samples`)).json(), []);
  });
});

/** A raw connection: sends `data`, collects what comes back, resolves once the mock closed it (or after `ms`). */
function rawConnection(server: MockServer, data: string, ms = 2000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    let text = '';
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('connect', () => socket.end(data));
  });
}

function createRequest(body: string): string {
  return `POST ${TRANSFERS_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe('mock server: a refusal records nothing; a recorded create whose answer was lost is logged', () => {
  it('a create sent on a connection past --max-connections is answered 503 mock-busy and never recorded', async () => {
    const server = await startMock({ maxConnections: 1 });
    const held = connect({ host: server.host, port: server.port });
    try {
      await new Promise((resolve) => held.once('connect', resolve));
      const body = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'REFUSED', target_scancode: 'T', amount: 1 });
      const answer = await rawConnection(server, createRequest(body));
      assert.match(answer, /^HTTP\/1\.1 503 /);
      assert.match(answer, /mock-busy/);
      assert.match(answer, /\r\nRetry-After: 1\r\n/);
      assert.doesNotMatch(answer.slice(answer.indexOf('\r\n\r\n') + 4), /HTTP\/1\.1/, 'one answer only: the request was not served');
      held.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(await (await fetch(`${server.url}/__mock/lot-transfers`)).json(), [], 'the refused create is not listed');
    } finally {
      held.destroy();
      await server.close();
    }
  });

  it('a create whose client left before its 201 could be sent stays recorded, and the log names it', async () => {
    const lines: string[] = [];
    const server = await startMock({ latencyMs: 300, log: (line) => lines.push(line) });
    try {
      const body = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'LEFT', target_scancode: 'T', amount: 1 });
      // The client sends the whole create and goes away while the mock is still working on it.
      assert.equal(await rawConnection(server, createRequest(body), 100), '');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const listed = (await (await fetch(`${server.url}/__mock/lot-transfers`)).json()) as Record<string, unknown>[];
      assert.deepEqual(
        listed.map((record) => record['source_scancode']),
        ['LEFT'],
      );
      const logged = lines.filter((line) => line.includes('could not be sent'));
      assert.equal(logged.length, 1, lines.join('\n'));
      assert.match(logged[0] ?? '', /lot-transfers in session "default" \{"id":1,.*"source_scancode":"LEFT".*it stays recorded/);
    } finally {
      await server.close();
    }
  });
});
