/**
 * A connection the mock closes after its answer lingers: the client still uploading reads the answer
 * instead of a broken pipe, what it still sends is dropped, a request parsed meanwhile is never handled,
 * and the lingering ends when the client closes, goes quiet, or the time limit passes. The same check
 * before closing keeps a kept-alive connection whose idle limit passed in a stall (util/idle-close.ts).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Lingering } from './linger.js';
import type { MockServer } from './server.js';
import { AUTH, SAMPLES_PATH, startMock } from './testing.js';

const KiB = 1024;

interface Client {
  socket: Socket;
  /** Every byte received so far. */
  received(): string;
  /** The first socket error (EPIPE when the mock reset the connection), if any. */
  error(): string | undefined;
  /** Resolves when the server closed its sending half ('end') or the connection broke. */
  ended: Promise<void>;
}

/** A raw connection; `halfOpen` keeps its sending half open after the server's FIN (Node would end it at once). */
async function client(port: number, halfOpen = false): Promise<Client> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen });
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  let failure: string | undefined;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message));
  const ended = new Promise<void>((resolve) => {
    socket.once('end', resolve);
    socket.once('close', resolve);
  });
  return { socket, received: () => Buffer.concat(chunks).toString('latin1'), error: () => failure, ended };
}

/** Writes `data` unless the socket broke; resolves once it was handed to the kernel (or failed). */
function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.write(data, () => resolve());
  });
}

/**
 * Sends four parts of `size` bytes to a connection the mock has answered and closed, then reads. Without
 * lingering the first part is answered with a reset and the next write fails (EPIPE), and the client
 * drops the answer it never read.
 */
async function sendOnThenRead(paused: Client, size: number): Promise<void> {
  for (let part = 0; part < 4; part++) {
    await write(paused.socket, Buffer.alloc(size, 'x'));
    await sleep(30);
  }
  paused.socket.resume();
  await paused.ended;
}

/** Resolves once `lines` holds a line matching `pattern` (the mock's access log). */
async function logged(lines: string[], pattern: RegExp): Promise<void> {
  while (!lines.some((line) => pattern.test(line))) await sleep(10);
}

describe('mock/linger: a connection closed after its answer lingers (RFC 9112 §9.6)', function () {
  this.timeout(20_000);
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('a client still uploading after a 413 with Connection: close reads the 413, not a broken pipe', async () => {
    const lines: string[] = [];
    mock = await startMock({ quiet: false, log: (line) => lines.push(line) });
    const upload = await client(mock.port);
    // The client reads nothing until it has sent what it meant to: the answer waits in its buffers.
    upload.socket.pause();
    await write(
      upload.socket,
      `POST ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${mock.port}\r\nAuthorization: ${AUTH.Authorization}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\nContent-Length: ${2048 * KiB}\r\n\r\n`,
    );
    // Refused on its declared length, before a byte of the body is read; the answer closes the connection.
    await logged(lines, / 413 /);
    await sleep(50);
    await sendOnThenRead(upload, 64 * KiB);
    assert.equal(upload.error(), undefined, 'no broken pipe, no reset');
    assert.match(upload.received(), /^HTTP\/1\.1 413 /);
    assert.match(upload.received(), /payload-too-large/);
    upload.socket.destroy();
  });

  it('a client still sending headers past the limit reads the 431 (an answer to what Node could not parse)', async () => {
    mock = await startMock();
    const sender = await client(mock.port);
    sender.socket.pause();
    await write(sender.socket, `GET ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${mock.port}\r\nX-Big: ${'a'.repeat(20 * KiB)}`);
    // The head passed the 16 KiB limit: answered 431 and closing. What still comes cannot be parsed either.
    await sleep(100);
    await sendOnThenRead(sender, 60 * KiB);
    assert.equal(sender.error(), undefined, 'no broken pipe, no reset');
    assert.match(sender.received(), /^HTTP\/1\.1 431 [^]*headers-too-large/);
    sender.socket.destroy();
  });

  it('drops a request the client pipelined after an answer that closed the connection (never handled, never recorded)', async () => {
    const server = (mock = await startMock({ maxBodyBytesInFlight: 100 * KiB }));
    const lot = server.lotIds[0] ?? 0;
    // Half-open: it goes on sending after the mock's FIN, as a client that has not read the answer yet does.
    const pipelined = await client(server.port, true);
    const head = (length: number) =>
      `POST ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: ${AUTH.Authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    // A keep-alive create whose declared 200 KiB cannot fit the budget: 503 with Connection: close, unread.
    await write(pipelined.socket, head(200 * KiB));
    while (!pipelined.received().includes('\r\n\r\n')) await sleep(10);
    assert.match(pipelined.received(), /^HTTP\/1\.1 503 [^]*Connection: close/i);
    // Its body, then a valid create on the same connection: the mock said it answers no more.
    const create = JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes: 'sent after the connection was closing' });
    await write(pipelined.socket, Buffer.alloc(200 * KiB, ' '));
    await write(pipelined.socket, `${head(Buffer.byteLength(create))}${create}`);
    pipelined.socket.end();
    await once(pipelined.socket, 'close');
    assert.equal(pipelined.error(), undefined);
    assert.equal(pipelined.received().match(/HTTP\/1\.1 /g)?.length, 1, 'one answer: the 503');
    const samples = (await (await fetch(`${server.url}/__mock/test-samples`)).json()) as { notes?: string }[];
    assert.ok(!samples.some((sample) => sample.notes === 'sent after the connection was closing'), 'the pipelined create was not recorded');
  });

  it('a create sent on a kept-alive connection just as its idle limit passed in a stall is answered, not reset', async () => {
    const server = (mock = await startMock({ keepAliveTimeoutMs: 200 }));
    const lot = server.lotIds[0] ?? 0;
    const create = (notes: string): string => {
      const body = JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes });
      return (
        `POST ${SAMPLES_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: ${AUTH.Authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    const kept = await client(server.port);
    await write(kept.socket, create('first'));
    while (!/^HTTP\/1\.1 201 [^]*\r\n\r\n\{[^]*\}$/.test(kept.received())) await sleep(5);
    // The process stalls past the idle limit (a busy process; Node's timer allows about a second more),
    // and the client sends its next create on the kept-alive connection at once: the idle timer is due
    // before the loop reads it.
    const until = performance.now() + 1_500;
    while (performance.now() < until);
    await write(kept.socket, create('after the stall'));
    await Promise.race([kept.ended, sleep(2_000)]);
    assert.equal(kept.error(), undefined, 'not reset (ECONNRESET without the check)');
    assert.equal(kept.received().match(/HTTP\/1\.1 201 /g)?.length, 2, `both creates answered: ${kept.received().slice(0, 300)}`);
    const samples = (await (await fetch(`${server.url}/__mock/test-samples`)).json()) as { notes?: string }[];
    assert.ok(samples.some((sample) => sample.notes === 'after the stall'));
    // A connection that stays quiet is still closed at its idle limit.
    await Promise.race([kept.ended, sleep(3_000).then(() => assert.fail('the idle connection was not closed'))]);
    kept.socket.destroy();
  });
});

describe('mock/linger: Lingering bounds (a plain Node server)', function () {
  this.timeout(20_000);
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
  });

  /**
   * A server answering 413 with Connection: close before reading the body, its connections lingering
   * within `limits`; `closed` resolves when the server closed its side of its next connection.
   */
  async function refusing(limits: { idleMs: number; totalMs: number }): Promise<{ port: number; closed(): Promise<void> }> {
    const lingering = new Lingering(limits);
    const closes: (() => void)[] = [];
    server = createServer((_req, res) => {
      res.writeHead(413, { 'Content-Length': '0', Connection: 'close' });
      res.end();
    });
    server.on('connection', (socket: Socket) => {
      lingering.watch(socket);
      const closed = closes.shift();
      if (closed) socket.once('close', closed);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      port: (server.address() as AddressInfo).port,
      closed: () => new Promise<void>((resolve) => closes.push(resolve)),
    };
  }

  const head = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n';

  it('closes a lingering connection whose client goes quiet, and ends when the client closes its half', async () => {
    const target = await refusing({ idleMs: 100, totalMs: 60_000 });
    // Half-open on the client's side: it neither sends nor closes; only the idle limit ends it.
    let closed = target.closed();
    const quiet = await client(target.port, true);
    await write(quiet.socket, head);
    await closed;
    await quiet.ended;
    assert.match(quiet.received(), /^HTTP\/1\.1 413 /);
    assert.equal(quiet.error(), undefined);
    quiet.socket.destroy();

    // A client that closes its half when the server did (Node's default): the lingering ends then.
    closed = target.closed();
    const polite = await client(target.port);
    await write(polite.socket, head);
    await once(polite.socket, 'close');
    await closed;
    assert.match(polite.received(), /^HTTP\/1\.1 413 /);
  });

  it('closes a lingering connection whose client keeps sending, once the time limit passed', async () => {
    const target = await refusing({ idleMs: 1_000, totalMs: 300 });
    const closed = target.closed();
    const endless = await client(target.port, true);
    await write(endless.socket, head);
    let sending = true;
    void closed.then(() => (sending = false));
    // A byte every 20 ms: never idle for 1 s; the 300 ms limit ends it.
    while (sending) {
      await write(endless.socket, 'x');
      await sleep(20);
    }
    assert.match(endless.received(), /^HTTP\/1\.1 413 /);
    endless.socket.destroy();
  });

  it('keeps a connection lingering while its client sends on, past the idle limit, though the HTTP parser reads it', async () => {
    // Node's parser reads the socket's stream itself (no 'data' events): what it reads still counts as sent.
    const target = await refusing({ idleMs: 200, totalMs: 60_000 });
    const slow = await client(target.port);
    // It reads nothing until it has sent what it meant to: the 413 waits in its buffers.
    slow.socket.pause();
    await write(slow.socket, head);
    // 64 KiB every 100 ms for about 1.2 s: never quiet for 200 ms, six times longer than that.
    for (let part = 0; part < 12; part++) {
      await write(slow.socket, Buffer.alloc(64 * KiB, 'x'));
      await sleep(100);
    }
    slow.socket.resume();
    slow.socket.end();
    await slow.ended;
    assert.equal(slow.error(), undefined, 'no reset while it was still sending, no broken pipe');
    assert.match(slow.received(), /^HTTP\/1\.1 413 /);
    slow.socket.destroy();
  });

  it('after a stall past the idle limit, reads what arrived meanwhile before closing (no reset of a client still sending)', async () => {
    // A busy or descheduled process runs its due timers before it reads its sockets: the idle limit then
    // passes with bytes already waiting, and closing on them resets the connection.
    const target = await refusing({ idleMs: 100, totalMs: 60_000 });
    const closed = target.closed();
    const stalled = await client(target.port, true);
    await write(stalled.socket, head);
    while (!stalled.received().includes('\r\n\r\n')) await sleep(5);
    await write(stalled.socket, Buffer.alloc(8 * KiB, 'x'));
    // This process (server and client) stalls for three idle limits, with those 8 KiB unread.
    const until = Date.now() + 300;
    while (Date.now() < until);
    // The client sends on: a reset connection fails this write (EPIPE).
    await sleep(30);
    await write(stalled.socket, Buffer.alloc(8 * KiB, 'x'));
    await closed;
    stalled.socket.end();
    await once(stalled.socket, 'close');
    assert.equal(stalled.error(), undefined, 'still read after the stall, closed once quiet, never reset');
    assert.match(stalled.received(), /^HTTP\/1\.1 413 /);
  });
});
