/**
 * Concurrency and load: 2,000 concurrent creates over a pool of keep-alive connections are
 * all answered 201, with unique ids, recorded exactly once and listed exactly as answered. A slow
 * client (headers or body trickled byte by byte) does not block others, and the header, request and
 * keep-alive timeouts disconnect clients that never finish or sit idle.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { parseAnswer } from './support/raw-http.js';
import { discoverTarget, listings, RESOURCES, type Listings } from './support/run-corpus.js';
import { CREATE_PATHS, type Resource } from './support/corpus-types.js';
import { postJson, type PostAnswer } from './support/post-json.js';

const TOKEN = 'load-token';
const CREATES = 2000;

function post(agent: Agent, base: URL, path: string, body: string): Promise<PostAnswer> {
  return postJson(agent, base, path, body, TOKEN);
}

describe('hardening: 2,000 concurrent creates (mock CLI in a child process)', function () {
  this.timeout(60_000);
  let mock: MockProcess;
  before(async () => {
    mock = await startMockProcess(['--quiet']);
  });
  after(() => mock.stop());

  it('answers every create 201 with unique, gapless ids, records each exactly once and lists them as answered', async () => {
    const target = await discoverTarget(mock.url, TOKEN);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const url = new URL(mock.url);
    const sockets = new Set<Socket>();
    try {
      const answers = await Promise.all(
        Array.from({ length: CREATES }, (_, i) => {
          const resource: Resource = i % 3 === 0 ? 'test-samples' : 'lot-transfers';
          const lot = target.lotIds[i % target.lotIds.length];
          const body =
            resource === 'lot-transfers'
              ? { fk_lot_id: lot, source_scancode: `LOAD-${i}`, target_scancode: 'T', amount: i + 1 }
              : { fk_lot_id: lot, fk_user_id: i + 1, notes: `LOAD-${i}` };
          return post(agent, url, CREATE_PATHS[resource], JSON.stringify(body)).then((answer) => {
            sockets.add(answer.socket);
            return { resource, i, ...answer };
          });
        }),
      );
      const statuses = new Map<number, number>();
      for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      assert.deepEqual([...statuses], [[201, CREATES]], 'every create answered 201');
      assert.ok(sockets.size > 1 && sockets.size <= 16, `${sockets.size} keep-alive connections carried the ${CREATES} requests`);

      const answered: Listings = { 'lot-transfers': [], 'test-samples': [] };
      for (const a of answers) {
        const record = JSON.parse(a.body) as Record<string, unknown>;
        const marker = a.resource === 'lot-transfers' ? record['source_scancode'] : record['notes'];
        assert.equal(marker, `LOAD-${a.i}`, 'each answer is the object that request created');
        answered[a.resource].push(record);
      }
      const listed = await listings(mock.url);
      for (const resource of RESOURCES) {
        const ids = answered[resource].map((r) => Number(r['id'])).sort((x, y) => x - y);
        assert.equal(new Set(ids).size, ids.length, `${resource}: ids unique`);
        assert.deepEqual(
          ids,
          Array.from({ length: ids.length }, (_, k) => k + 1),
          `${resource}: ids 1..${ids.length}, no gap, no reuse`,
        );
        const byId = (x: Record<string, unknown>, y: Record<string, unknown>) => Number(x['id']) - Number(y['id']);
        assert.deepEqual(
          [...listed[resource]].sort(byId),
          [...answered[resource]].sort(byId),
          `${resource}: /__mock lists exactly the answered objects`,
        );
        assert.deepEqual(
          listed[resource].map((r) => Number(r['id'])),
          ids,
          `${resource}: listed in creation (id) order`,
        );
      }
      const samples = answered['test-samples'].map((r) => String(r['sample_number']));
      assert.equal(new Set(samples).size, samples.length, 'sample numbers unique');
      assert.ok(mock.alive());
    } finally {
      agent.destroy();
    }
  });
});

/** Connects and resolves with the socket, collecting what comes back. */
function open(server: MockServer): Promise<{ socket: Socket; received: () => Buffer; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks), closed }));
    socket.once('error', reject);
  });
}

function write(socket: Socket, data: string): Promise<void> {
  return new Promise((resolve) => socket.write(data, () => resolve()));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves true when `closed` settles within `limitMs`, false otherwise. */
async function closesWithin(closed: Promise<void>, limitMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    closed.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), limitMs))),
  ]);
  clearTimeout(timer);
  return outcome;
}

describe('hardening: slow clients and server timeouts (in-process mock)', function () {
  this.timeout(30_000);
  let server: MockServer;
  before(async () => {
    server = await createMockServer({ port: 0, quiet: true, headersTimeoutMs: 600, requestTimeoutMs: 1200, keepAliveTimeoutMs: 400 });
  });
  after(() => server.close());

  const order = () => `${server.url}/manualProduction/rest/v1/orders/info/${encodeURIComponent(server.orderNumbers[0] ?? '')}`;

  async function fastRequests(count: number): Promise<number[]> {
    return Promise.all(
      Array.from({ length: count }, async () => (await fetch(order(), { headers: { Authorization: `Bearer ${TOKEN}` } })).status),
    );
  }

  it('answers other clients while one trickles its headers, then answers the slow one too', async () => {
    const slow = await open(server);
    const head = `GET /manualProduction/rest/v1/orders/info/${encodeURIComponent(server.orderNumbers[0] ?? '')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`;
    let sent = 0;
    let fastDone = false;
    const fast = fastRequests(40).finally(() => (fastDone = true));
    // Byte by byte, until every fast request has been answered (at most the head minus its last byte).
    while (!fastDone && sent < head.length - 1) {
      await write(slow.socket, head[sent] ?? '');
      sent++;
      await pause(5);
    }
    assert.deepEqual(new Set(await fast), new Set([200]), 'the fast requests were answered');
    assert.equal(slow.received().length, 0, 'while the slow request, still incomplete, had no answer');
    await write(slow.socket, head.slice(sent));
    await slow.closed;
    assert.equal(parseAnswer(slow.received(), true)?.status, 200, 'the slow client is answered too');
  });

  it('answers other clients while one trickles its body, then records the slow create', async () => {
    const slow = await open(server);
    const body = JSON.stringify({ fk_lot_id: server.lotIds[0], fk_user_id: 1, notes: 'slow-body' });
    await write(
      slow.socket,
      `POST ${CREATE_PATHS['test-samples']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    let sent = 0;
    let fastDone = false;
    const fast = fastRequests(40).finally(() => (fastDone = true));
    while (!fastDone && sent < body.length - 1) {
      await write(slow.socket, body[sent] ?? '');
      sent++;
      await pause(5);
    }
    assert.deepEqual(new Set(await fast), new Set([200]));
    assert.equal(slow.received().length, 0, 'the fast requests were answered while the slow body was incomplete');
    await write(slow.socket, body.slice(sent));
    await slow.closed;
    const answer = parseAnswer(slow.received(), true);
    assert.equal(answer?.status, 201);
    assert.equal((JSON.parse(answer.body.toString()) as Record<string, unknown>)['notes'], 'slow-body');
  });

  it('disconnects a client that never finishes its headers (headersTimeout), with a 408 problem', async () => {
    const client = await open(server);
    await write(client.socket, 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    assert.ok(await closesWithin(client.closed, 8000), 'disconnected (the default would take 10-40 s)');
    const answer = parseAnswer(client.received(), true);
    assert.equal(answer?.status, 408);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
  });

  it('disconnects a client whose body never completes (requestTimeout) without recording anything', async () => {
    const before = await listings(server.url);
    const client = await open(server);
    await write(
      client.socket,
      `POST ${CREATE_PATHS['test-samples']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"fk_lot_id":`,
    );
    assert.ok(await closesWithin(client.closed, 8000), 'disconnected');
    const answer = parseAnswer(client.received(), true);
    if (answer) assert.ok([400, 408].includes(answer.status), `answered ${answer.status}`);
    assert.deepEqual(await listings(server.url), before);
  });

  it('closes an idle keep-alive connection (keepAliveTimeout)', async () => {
    const client = await open(server);
    await write(client.socket, 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    while (!parseAnswer(client.received(), false)) await pause(10);
    assert.equal(parseAnswer(client.received(), false)?.status, 200);
    assert.match(client.received().toString('latin1'), /keep-alive/i, 'the connection was kept alive after the answer');
    assert.ok(await closesWithin(client.closed, 8000), 'closed once idle');
  });
});
