import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, rawRequest, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

/** Writes `data` on one connection and collects everything the server sends until it closes. */
function exchange(server: MockServer, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no close within 10 s')));
    socket.write(data);
  });
}

const statusLines = (text: string): string[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1] ?? '');

describe('mock HTTP details: pipelining, HEAD, absolute-form targets, Host', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  it('answers pipelined requests in order, each with its own answer, also when a later one is unparsable', async () => {
    const body = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 5 });
    const create = `POST ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const get = `GET ${ORDER_PATH}ORD-2026-0001 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\n\r\n`;
    const text = await exchange(server, `${create}${get}GARBAGE \x01\x02 HTTP/9\r\n\r\n`);
    assert.deepEqual(statusLines(text), ['201', '200', '400'], text.slice(0, 400));
    const created = /\{"id":(\d+)[^\r\n]*"fk_user_id":5/.exec(text);
    assert.ok(created, 'the 201 carries the created sample');
    const listed = (await (await fetch(`${server.url}/__mock/test-samples`)).json()) as { id: number }[];
    assert.ok(
      listed.some((sample) => sample.id === Number(created[1])),
      'the answered create is recorded',
    );
  });

  it('answers HEAD wherever GET works: the GET status and headers, no body', async () => {
    for (const [path, headers] of [
      [`${ORDER_PATH}ORD-2026-0001`, AUTH],
      [`${ORDER_PATH}NOPE`, AUTH],
      [`${ORDER_PATH}ORD-2026-0001`, {}],
      ['/__mock/health', {}],
      ['/__mock/orders', {}],
      ['/__mock/lots', {}],
      ['/__mock/test-samples', {}],
      ['/__mock/', {}],
    ] as const) {
      const get = await rawRequest(server.url, { path, headers });
      const head = await rawRequest(server.url, { method: 'HEAD', path, headers });
      assert.equal(head.status, get.status, path);
      assert.equal(head.body, '', path);
      assert.equal(head.headers['content-type'], get.headers['content-type'], path);
      assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), path);
    }
    const headCreate = await rawRequest(server.url, { method: 'HEAD', path: TRANSFERS_PATH, headers: AUTH });
    assert.equal(headCreate.status, 405);
    assert.equal(headCreate.headers['allow'], 'POST, OPTIONS');
  });

  it('accepts absolute-form request targets (RFC 9112 §3.2.2)', async () => {
    const target = `http://127.0.0.1:${server.port}${ORDER_PATH}ORD-2026-0002?x=1`;
    const text = await exchange(
      server,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual(statusLines(text), ['200']);
    assert.match(text, /"orderNumber":"ORD-2026-0002"/);
    const foreign = await exchange(
      server,
      `GET http://evil.test${ORDER_PATH}ORD-2026-0002 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual(statusLines(foreign), ['421'], 'the authority of the target stands for Host');
  });

  it('answers 421 to a Host that does not name the mock (DNS rebinding), on the API and on /__mock', async () => {
    for (const path of ['/__mock/test-samples', '/__mock/health', `${ORDER_PATH}ORD-2026-0001`]) {
      const refused = await rawRequest(server.url, { path, headers: { ...AUTH, Host: `rebind.evil.test:${server.port}` } });
      assert.equal(refused.status, 421, path);
      assert.equal(refused.headers['content-type'], 'application/problem+json');
      assert.match((JSON.parse(refused.body) as { detail: string }).detail, /--allowed-host rebind\.evil\.test/);
    }
    for (const host of [
      'localhost',
      `localhost:${server.port}`,
      `127.0.0.1:${server.port}`,
      `[::1]:${server.port}`,
      'LOCALHOST.',
      '10.1.2.3:80',
    ]) {
      const ok = await rawRequest(server.url, { path: '/__mock/health', headers: { Host: host } });
      assert.equal(ok.status, 200, host);
    }
    const named = await startMock({ allowedHosts: ['mock.test'] });
    try {
      assert.equal((await rawRequest(named.url, { path: '/__mock/health', headers: { Host: 'mock.test:8080' } })).status, 200);
      assert.equal((await rawRequest(named.url, { path: '/__mock/health', headers: { Host: 'other.test' } })).status, 421);
    } finally {
      await named.close();
    }
  });

  it('answers 400 problem+json to the framing RFC 9112 forbids: no version, no or two Host lines on HTTP/1.1, chunked on HTTP/1.0', async () => {
    const body = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 9 });
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const before = ((await (await fetch(`${server.url}/__mock/test-samples`)).json()) as unknown[]).length;
    const refused: [string, string, RegExp][] = [
      ['no version (HTTP/0.9)', 'GET /__mock/health\r\n\r\n', /no HTTP version/],
      [
        'no version, with headers',
        `GET ${ORDER_PATH}ORD-2026-0001\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\n\r\n`,
        /no HTTP version/,
      ],
      ['HTTP/2.0 on HTTP/1', 'GET /__mock/health HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n', /HTTP\/2\.0/],
      ['no Host on HTTP/1.1', 'GET /__mock/health HTTP/1.1\r\nConnection: close\r\n\r\n', /needs a Host/],
      ['two Host lines', 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', /2 Host/],
      ['two Host lines, other names', 'GET /__mock/health HTTP/1.0\r\nhost: 127.0.0.1\r\nHOST: evil.test\r\n\r\n', /2 Host/],
      [
        'chunked on HTTP/1.0',
        `POST ${SAMPLES_PATH} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n${chunked}`,
        /Transfer-Encoding/,
      ],
    ];
    for (const [label, request, detail] of refused) {
      const text = await exchange(server, request);
      assert.deepEqual(statusLines(text), ['400'], `${label}: ${text.slice(0, 300)}`);
      assert.match(text, /\r\nContent-Type: application\/problem\+json\r\n/, label);
      const problem = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { type: string; detail: string };
      assert.equal(problem.type, 'https://goods.example/problems/bad-request', label);
      assert.match(problem.detail, detail, label);
      if (label.startsWith('chunked')) assert.match(text, /\r\nConnection: close\r\n/, 'the faulty framing closes the connection');
    }
    const after = ((await (await fetch(`${server.url}/__mock/test-samples`)).json()) as unknown[]).length;
    assert.equal(after, before, 'the chunked HTTP/1.0 create was not recorded');
    // What RFC 9112 allows still passes: HTTP/1.0 without Host, HTTP/1.1 with one, chunked on HTTP/1.1.
    assert.deepEqual(statusLines(await exchange(server, 'GET /__mock/health HTTP/1.0\r\n\r\n')), ['200']);
    assert.deepEqual(statusLines(await exchange(server, 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')), [
      '200',
    ]);
    const created = await exchange(
      server,
      `POST ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`,
    );
    assert.deepEqual(statusLines(created), ['201']);
  });

  it('requires X-Mock-Reset for POST /__mock/reset (a plain HTML form cannot send it)', async () => {
    const form = await fetch(`${server.url}/__mock/reset`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    assert.equal(form.status, 403);
    assert.equal(((await form.json()) as { type: string }).type, 'https://goods.example/problems/reset-not-confirmed');
    assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
  });
});

describe('mock messages and read-only members', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  it('says how many problems it does not list in the detail ("and N more"), and lists all in errors', async () => {
    const body = { fk_lot_id: 'x', source_scancode: 1, target_scancode: 2, amount: 'y', completed: 'z', lotnumber: 3, extra: 1, other: 2 };
    const answer = await fetch(`${server.url}${TRANSFERS_PATH}`, { method: 'POST', headers: JSON_AUTH, body: JSON.stringify(body) });
    assert.equal(answer.status, 400);
    const problem = (await answer.json()) as { detail: string; errors: unknown[] };
    assert.ok(problem.errors.length > 5, `${problem.errors.length} errors`);
    assert.match(problem.detail, new RegExp(`has ${problem.errors.length} problems: .*; and ${problem.errors.length - 5} more`));
  });

  it('points the 422 detail at GET /__mock/lots, which lists the known lots with their orders', async () => {
    const answer = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: '{"fk_lot_id":424242,"fk_user_id":1}',
    });
    assert.equal(answer.status, 422);
    assert.match(((await answer.json()) as { detail: string }).detail, /GET \/__mock\/lots/);
    const lots = (await (await fetch(`${server.url}/__mock/lots`)).json()) as { id: number; lotNumber: string; orderNumber: string }[];
    assert.deepEqual(lots.map((lot) => lot.id).sort(), [...server.lotIds].sort());
    assert.ok(lots.every((lot) => server.orderNumbers.includes(lot.orderNumber) && typeof lot.lotNumber === 'string'));
  });

  it('rejects read-only members of the wrong type or null (400, one shape), ignores well-typed ones', async () => {
    for (const extra of [{ id: null }, { id: 'x' }, { created: 5 }, { modified: null }]) {
      const answer = await fetch(`${server.url}${SAMPLES_PATH}`, {
        method: 'POST',
        headers: JSON_AUTH,
        body: JSON.stringify({ fk_lot_id: 2001, fk_user_id: 1, ...extra }),
      });
      assert.equal(answer.status, 400, JSON.stringify(extra));
      const pointers = ((await answer.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer);
      assert.deepEqual(pointers, [`/${Object.keys(extra)[0] ?? ''}`]);
    }
    const ignored = await fetch(`${server.url}${SAMPLES_PATH}`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ fk_lot_id: 2001, fk_user_id: 1, id: 999999, created: '2001-01-01T00:00:00Z' }),
    });
    assert.equal(ignored.status, 201);
    const record = (await ignored.json()) as { id: number; created: string };
    assert.notEqual(record.id, 999999);
    assert.notEqual(record.created, '2001-01-01T00:00:00Z');
  });
});

/**
 * Uploads a chunked body of `mebibytes` on one connection, writing without waiting for an answer (as a
 * browser or an HTTP client does), then, when `trickle`, keeps sending 1 KiB every 50 ms. Answers the
 * status lines received and how the connection ended.
 */
function upload(server: MockServer, mebibytes: number, trickle = false): Promise<{ statuses: string[]; error: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ host: server.host, port: server.port });
    let received = '';
    let error = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ||= e.code ?? e.message));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ statuses: statusLines(received), error, ms: Date.now() - started });
    });
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on('connect', () => {
      socket.write(
        `POST ${TRANSFERS_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(65536, 'x'), Buffer.from('\r\n')]);
      let left = mebibytes * 16;
      const pump = (): void => {
        while (left > 0) {
          left--;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
        if (trickle) {
          const small = Buffer.concat([Buffer.from('400\r\n'), Buffer.alloc(1024, 'y'), Buffer.from('\r\n')]);
          timer = setInterval(() => socket.write(small), 50);
        } else socket.end('0\r\n\r\n');
      };
      pump();
    });
  });
}

describe('mock HTTP details: a body over the limit', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock({ requestTimeoutMs: 2000, headersTimeoutMs: 2000 });
  });
  after(() => server.close());

  it('answers 413 to a client that keeps uploading, every time (the rest of the body is read and dropped, not reset)', async () => {
    // Closing the connection with the upload still coming made the kernel reset it, and the 413 was
    // lost for about one client in ten (EPIPE, no answer).
    for (let i = 0; i < 20; i++) {
      const outcome = await upload(server, 8);
      assert.deepEqual(outcome.statuses, ['413'], `upload ${i}: ${JSON.stringify(outcome)}`);
      assert.equal(outcome.error, '', `upload ${i}`);
    }
  });

  it('cuts a body that never ends with the request time-out: 413 at once, then 408 and the connection closed', async () => {
    const outcome = await upload(server, 2, true);
    assert.deepEqual(outcome.statuses, ['413', '408']);
    assert.ok(outcome.ms < 15_000, `closed after ${outcome.ms} ms`);
  });
});
