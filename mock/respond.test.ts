/**
 * mock/respond.ts: how answers are written. Each case runs one writer on a real loopback server and
 * reads the exact bytes that came back (status, Content-Type, Content-Length, body).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { rawExchange, type RawAnswer, type RawOutcome } from '../test/hardening/support/raw-http.js';
import { listen, type RunningServer } from '../test/support/http.js';
import { problem } from './problems.js';
import {
  BATCHED_BODY_BYTES,
  deliverThrough,
  sendBody,
  sendEmpty,
  sendJson,
  sendProblem,
  whenUndelivered,
  type Delivery,
} from './respond.js';

describe('mock/respond: writing answers', () => {
  let server: RunningServer;
  let port = 0;
  /** What the server does with the next request. */
  let write: (res: ServerResponse) => void = () => undefined;
  before(async () => {
    server = await listen((req, res) => {
      req.resume();
      write(res);
    });
    port = Number(new URL(server.url).port);
  });
  after(() => server.close());

  async function answer(writer: (res: ServerResponse) => void, method = 'GET'): Promise<RawAnswer & { raw: Buffer }> {
    write = writer;
    const outcome = await rawExchange({
      host: '127.0.0.1',
      port,
      data: Buffer.from(`${method} / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      timeoutMs: 5000,
    });
    assert.ok(outcome.answer, `an answer: ${outcome.ended}`);
    return { ...outcome.answer, raw: outcome.received };
  }

  describe('sendBody', () => {
    it('writes a string body with its Content-Type and its length in bytes (not characters)', async () => {
      const body = '{"name":"Größe €"}';
      const got = await answer((res) => sendBody(res, 201, 'application/json', body));
      assert.equal(got.status, 201);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['content-length'], String(Buffer.byteLength(body)));
      assert.notEqual(Buffer.byteLength(body), body.length, 'the case needs multi-byte characters');
      assert.deepEqual(got.body, Buffer.from(body));
      assert.equal(got.headers['transfer-encoding'], undefined, 'never chunked');
    });

    it('writes a Buffer body byte for byte, and no Content-Type when none is given', async () => {
      const body = Buffer.from([0, 1, 0xfe, 0xff, 0x0d, 0x0a, 0x0d, 0x0a, 0x41]);
      const got = await answer((res) => sendBody(res, 200, undefined, body));
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-type'], undefined);
      assert.equal(got.headers['content-length'], '9');
      assert.deepEqual(got.body, body);
      assert.ok(got.raw.subarray(-9).equals(body), 'the body is the last bytes on the wire');
    });

    it('adds the given headers and keeps those set earlier with setHeader', async () => {
      const got = await answer((res) => {
        res.setHeader('Access-Control-Allow-Origin', 'http://a.example');
        sendBody(res, 404, 'application/problem+json', '{}', { 'Retry-After': '3' });
      });
      assert.equal(got.status, 404);
      assert.equal(got.headers['retry-after'], '3');
      assert.equal(got.headers['access-control-allow-origin'], 'http://a.example');
      assert.equal(got.headers['content-length'], '2');
    });

    it('does nothing once an answer was sent (the first one stands)', async () => {
      const got = await answer((res) => {
        sendBody(res, 200, 'text/plain', 'first');
        sendBody(res, 500, 'text/plain', 'second answer');
      });
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), 'first');
    });

    it('sets the header at once; writes a small body at the end of the turn, a large one at once', async () => {
      const seen: string[] = [];
      const look = (res: ServerResponse, when: string) => seen.push(`${when}: headersSent ${res.headersSent}, ended ${res.writableEnded}`);
      const small = await answer((res) => {
        sendBody(res, 200, 'text/plain', 'x'.repeat(BATCHED_BODY_BYTES));
        look(res, 'small, at once');
        setImmediate(() => look(res, 'small, next turn'));
      });
      const large = await answer((res) => {
        sendBody(res, 200, 'text/plain', 'x'.repeat(BATCHED_BODY_BYTES + 1));
        look(res, 'large, at once');
      });
      assert.deepEqual(seen, [
        'small, at once: headersSent true, ended false',
        'small, next turn: headersSent true, ended true',
        'large, at once: headersSent true, ended true',
      ]);
      assert.equal(small.body.length, BATCHED_BODY_BYTES);
      assert.equal(large.body.length, BATCHED_BODY_BYTES + 1);
    });

    /**
     * Two requests on two connections, their answers held unsent: `outcomes` settles once both are
     * answered. The clients keep their sending side open: one that closes it while its answer is held
     * is not what these cases are about.
     */
    async function twoHeld(): Promise<{ held: [ServerResponse, ServerResponse]; outcomes: Promise<RawOutcome[]> }> {
      const held: ServerResponse[] = [];
      let both!: () => void;
      const ready = new Promise<void>((resolve) => (both = resolve));
      write = (res) => {
        held.push(res);
        if (held.length === 2) both();
      };
      const data = Buffer.from('GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
      const exchange = () => rawExchange({ host: '127.0.0.1', port, data, timeoutMs: 5000, after: 'keep' });
      const outcomes = Promise.all([exchange(), exchange()]);
      await ready;
      const [first, second] = held;
      assert.ok(first && second);
      return { held: [first, second], outcomes };
    }

    it('writes the bodies sent in one turn in the order they were sent', async () => {
      const finished: string[] = [];
      const {
        held: [first, second],
        outcomes,
      } = await twoHeld();
      second.on('finish', () => finished.push('sent first'));
      first.on('finish', () => finished.push('sent second'));
      sendBody(second, 200, 'text/plain', 'one');
      sendBody(first, 200, 'text/plain', 'two');
      const bodies = (await outcomes).map((o) => o.answer?.body.toString()).sort();
      assert.deepEqual(bodies, ['one', 'two']);
      assert.deepEqual(finished, ['sent first', 'sent second']);
    });

    it('ends the connection of an answer whose write throws; the others of its turn still go out', async () => {
      const {
        held: [refused, fine],
        outcomes,
      } = await twoHeld();
      let undelivered = 0;
      sendBody(refused, 200, 'text/plain', 'refused');
      refused.end = () => {
        throw new Error('the write is refused');
      };
      whenUndelivered(refused, () => undelivered++);
      sendBody(fine, 200, 'text/plain', 'fine');
      const got = (await outcomes).map((o) => o.answer?.body.toString() ?? o.ended).sort();
      assert.deepEqual(got, ['closed', 'fine']);
      assert.equal(undelivered, 1);
    });

    it('does nothing on a destroyed answer', async () => {
      let threw: unknown = 'not run';
      write = (res) => {
        res.destroy();
        try {
          sendBody(res, 200, 'text/plain', 'late');
          threw = undefined;
        } catch (error) {
          threw = error;
        }
      };
      const outcome = await rawExchange({
        host: '127.0.0.1',
        port,
        data: Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
        timeoutMs: 5000,
      });
      assert.equal(outcome.answer, undefined);
      assert.equal(threw, undefined);
    });
  });

  it('sendJson writes JSON.stringify of the value as application/json', async () => {
    const value = { a: [1, 'two', null], b: { c: true }, d: 'é' };
    const got = await answer((res) => sendJson(res, 200, value, { 'X-Extra': 'yes' }));
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-extra'], 'yes');
    assert.equal(got.body.toString('utf8'), JSON.stringify(value));
    assert.equal(got.headers['content-length'], String(Buffer.byteLength(JSON.stringify(value))));
  });

  it("sendProblem writes the problem's status, its body as application/problem+json, and its headers", async () => {
    const error = problem('busy', 'Retry shortly.', undefined, { 'Retry-After': '1' });
    const got = await answer((res) => sendProblem(res, error));
    assert.equal(got.status, 503);
    assert.equal(got.headers['content-type'], 'application/problem+json');
    assert.equal(got.headers['retry-after'], '1');
    assert.equal(
      got.body.toString('utf8'),
      '{"type":"https://goods.example/problems/mock-busy","title":"The mock is at a limit of concurrent work","status":503,"detail":"Retry shortly."}',
    );
  });

  it('sendProblem includes the errors of a validation problem', async () => {
    const error = problem('invalidBody', 'One problem.', [{ pointer: '/amount', detail: 'must be number' }]);
    const got = await answer((res) => sendProblem(res, error));
    assert.equal(got.status, 400);
    assert.deepEqual(JSON.parse(got.body.toString()), {
      type: 'https://goods.example/problems/invalid-body',
      title: 'Request body does not match the contract',
      status: 400,
      detail: 'One problem.',
      errors: [{ pointer: '/amount', detail: 'must be number' }],
    });
  });

  it('sendEmpty writes a status and headers without a body, once', async () => {
    const got = await answer((res) => {
      sendEmpty(res, 204, { Allow: 'GET, POST' });
      sendEmpty(res, 500);
    });
    assert.equal(got.status, 204);
    assert.equal(got.headers['allow'], 'GET, POST');
    assert.equal(got.body.length, 0);
    assert.match(got.raw.toString('latin1'), /^HTTP\/1\.1 204 No Content\r\n/);
    const plain = await answer((res) => sendEmpty(res, 200));
    assert.equal(plain.headers['content-length'], '0');
  });

  it('deliverThrough: sendBody hands the status, every header and the body (a Buffer) to the delivery', async () => {
    const calls: Parameters<Delivery>[] = [];
    const got = await answer((res) => {
      deliverThrough(res, (r, status, headers, body) => {
        calls.push([r, status, headers, body]);
        r.writeHead(status, { ...headers, 'X-Delivered-By': 'test' });
        r.end(body);
      });
      sendBody(res, 201, 'application/json', '{"id":1}', { Location: '/x/1' });
    });
    assert.equal(calls.length, 1);
    const [, status, headers, body] = calls[0] ?? [];
    assert.equal(status, 201);
    assert.deepEqual(headers, { Location: '/x/1', 'Content-Length': 8, 'Content-Type': 'application/json' });
    assert.ok(Buffer.isBuffer(body));
    assert.equal(body.toString(), '{"id":1}');
    assert.equal(got.status, 201);
    assert.equal(got.headers['x-delivered-by'], 'test', 'the delivery wrote the answer');
    assert.equal(got.body.toString(), '{"id":1}');
  });

  it('deliverThrough: a Buffer body reaches the delivery as that very Buffer', async () => {
    const body = Buffer.from([1, 2, 3]);
    let seen: Buffer | undefined;
    await answer((res) => {
      deliverThrough(res, (r, status, headers, given) => {
        seen = given;
        r.writeHead(status, headers);
        r.end(given);
      });
      sendBody(res, 200, undefined, body);
    });
    assert.equal(seen, body);
  });

  describe('whenUndelivered', () => {
    it('never calls back for an answer written at once', async () => {
      let called = 0;
      let finished!: () => void;
      const done = new Promise<void>((resolve) => (finished = resolve));
      await answer((res) => {
        sendBody(res, 200, 'text/plain', 'ok');
        whenUndelivered(res, () => called++);
        res.on('close', () => finished());
      });
      await done;
      assert.equal(called, 0);
    });

    it('calls back at once for an answer whose connection is gone, unless a delivery says itself', async () => {
      let called = 0;
      let delivered = 0;
      write = (res) => {
        res.destroy();
        sendBody(res, 200, 'text/plain', 'lost');
        whenUndelivered(res, () => called++);
        deliverThrough(res, () => undefined);
        whenUndelivered(res, () => delivered++);
      };
      await rawExchange({ host: '127.0.0.1', port, data: Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n\r\n'), timeoutMs: 5000 });
      assert.equal(called, 1);
      assert.equal(delivered, 0);
    });

    it('calls back once, after the turn, when the connection goes before a small body is written', async () => {
      let called = 0;
      let atOnce = -1;
      let turned!: () => void;
      const turn = new Promise<void>((resolve) => (turned = resolve));
      write = (res) => {
        sendBody(res, 200, 'text/plain', 'never written');
        res.destroy();
        whenUndelivered(res, () => called++);
        atOnce = called;
        setImmediate(turned);
      };
      const outcome = await rawExchange({
        host: '127.0.0.1',
        port,
        data: Buffer.from('GET / HTTP/1.1\r\nHost: h\r\n\r\n'),
        timeoutMs: 5000,
      });
      await turn;
      assert.equal(outcome.answer, undefined, 'nothing written on the destroyed connection');
      assert.equal(atOnce, 0, 'judged when the batch is written, not before');
      assert.equal(called, 1);
    });

    it('calls back at once when no answer was sent yet', async () => {
      let called = 0;
      await answer((res) => {
        whenUndelivered(res, () => called++);
        assert.equal(called, 1);
        sendBody(res, 200, 'text/plain', 'ok');
      });
      assert.equal(called, 1);
    });

    it('calls back when the client leaves while a large answer is still being written', async () => {
      let undelivered!: () => void;
      const called = new Promise<void>((resolve) => (undelivered = resolve));
      let handled!: () => void;
      const written = new Promise<void>((resolve) => (handled = resolve));
      let ended: boolean | undefined;
      write = (res) => {
        sendBody(res, 200, 'application/octet-stream', Buffer.alloc(32 * 1024 * 1024));
        ended = res.writableEnded && !res.writableFinished;
        whenUndelivered(res, undelivered);
        handled();
      };
      const socket = connect({ host: '127.0.0.1', port });
      socket.pause(); // never reads: the answer cannot be flushed
      socket.write('GET / HTTP/1.1\r\nHost: h\r\n\r\n');
      await written;
      assert.equal(ended, true, 'the answer is ended but not yet flushed');
      socket.destroy();
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        called.then(() => 'called'),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve('not called within 5 s'), 5000))),
      ]);
      clearTimeout(timer);
      assert.equal(outcome, 'called');
    });
  });
});
