/**
 * The upstream hop (forward.ts, undici's Pool): answers streamed to the client as they arrive and
 * request bodies streamed upstream as they arrive, upstream connections kept alive and reused, and
 * every way the upstream can fail still answered with a problem (502/504) while the proxy keeps
 * running; a method the upstream client cannot send is refused here, never forwarded.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBody } from '../../test/support/http.js';
import { createMockServer, type MockServer } from '../server.js';
import { AUTH, ORDER_PATH, TRANSFERS_PATH } from '../testing.js';
import { DEFAULT_PROXY, type ProxyConfig } from './config.js';
import { endToEnd, Relay, scanHeaders } from './forward.js';
import { Capture, type SeenExchange } from './seen.js';

/** A fallback that ends a wait which a buffering proxy would never end by itself (the test then fails on its assertion, not on a time-out). */
const NEVER_MS = 3000;

function proxyTo(upstream: string, options: Partial<ProxyConfig> = {}, lines: string[] = []): Promise<MockServer> {
  return createMockServer({
    port: 0,
    quiet: true,
    log: (line) => lines.push(line),
    proxy: { ...DEFAULT_PROXY, outputDir: mkdtempSync(join(tmpdir(), 'proxy-forward-test-')), ...options, upstream },
  });
}

async function upstreamServer(
  handler: RequestListener,
): Promise<{ server: Server; url: string; connections: () => number; close: () => void }> {
  const server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A promise and the function that settles it, with a fallback after NEVER_MS. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    const fallback = setTimeout(resolve, NEVER_MS);
    fire = () => {
      clearTimeout(fallback);
      resolve();
    };
  });
  return { promise, fire };
}

/** One request through `base`: status, problem type and body text. */
async function send(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; type: string; body: string }> {
  const answer = await fetch(`${base}${path}`, init);
  const body = await answer.text();
  return { status: answer.status, type: answer.headers.get('content-type') ?? '', body };
}

describe('validating proxy: the upstream hop', () => {
  it('drops hop-by-hop headers and those a Connection header names, keeps the rest in order with repeats; sees a body', () => {
    const raw = [
      'Connection',
      'X-A, Keep-Alive',
      'X-A',
      '1',
      'keep-alive',
      't=5',
      'X-B',
      '2',
      'TE',
      'x',
      'Host',
      'h',
      'x-b',
      '3',
      'Expect',
      '100-continue',
    ];
    assert.deepEqual(endToEnd(raw), ['X-B', '2', 'x-b', '3']);
    assert.deepEqual(endToEnd(['Connection', 'keep-alive', 'X-A', '1', 'Keep-Alive', 'timeout=5']), ['X-A', '1']);
    assert.deepEqual(endToEnd(['X-Close', '1', 'Connection', 'close, , X-Close']), []);
    assert.deepEqual(scanHeaders(['X-C', '1', 'Content-Length', '0']), { kept: ['X-C', '1', 'Content-Length', '0'], body: false });
    assert.equal(scanHeaders(['Content-Length', '5']).body, true);
    assert.deepEqual(scanHeaders(['Transfer-Encoding', 'chunked']), { kept: [], body: true });
  });

  it('streams the answer: the client has the first chunk while the upstream has not finished it', async () => {
    const firstSeen = signal();
    let upstreamEnded = false;
    const upstream = await upstreamServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk;');
      void firstSeen.promise.then(() => {
        upstreamEnded = true;
        res.end('the rest');
      });
    });
    const proxy = await proxyTo(upstream.url);
    try {
      const seen = await new Promise<{ endedAtFirstChunk: boolean; body: string }>((resolve, reject) => {
        httpRequest(`${proxy.url}/streamed`, (res) => {
          let body = '';
          let endedAtFirstChunk: boolean | undefined;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (endedAtFirstChunk === undefined) {
              endedAtFirstChunk = upstreamEnded;
              firstSeen.fire();
            }
            body += chunk;
          });
          res.on('end', () => resolve({ endedAtFirstChunk: endedAtFirstChunk ?? true, body }));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      });
      assert.equal(seen.endedAtFirstChunk, false, 'the first chunk reached the client before the upstream ended its answer');
      assert.equal(seen.body, 'first chunk;the rest');
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it('streams the request body: the upstream has its first chunk while the client has not finished sending it', async () => {
    const firstArrived = signal();
    let clientEnded = false;
    let endedAtFirstChunk: boolean | undefined;
    const upstream = await upstreamServer((req, res) => {
      req.once('data', () => {
        endedAtFirstChunk = clientEnded;
        firstArrived.fire();
      });
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`got ${body.length} bytes`);
      });
    });
    const proxy = await proxyTo(upstream.url);
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${proxy.url}/upload`, { method: 'POST', headers: { 'content-type': 'text/plain' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.write('a'.repeat(1000));
        void firstArrived.promise.then(() => {
          clientEnded = true;
          req.end('b'.repeat(1000));
        });
      });
      assert.equal(endedAtFirstChunk, false, 'the first chunk went upstream before the client sent the rest');
      assert.equal(answer, 'got 2000 bytes');
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it('keeps upstream connections alive and reuses them: far fewer connections than requests, GETs and POSTs with bodies alike', async () => {
    const upstream = await upstreamServer((req, res) => {
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, bytes: body.length }));
      });
    });
    const proxy = await proxyTo(upstream.url);
    try {
      const sequential = 20;
      for (let i = 0; i < sequential; i++) {
        const answer = await send(
          proxy.url,
          '/anything',
          i % 2 === 0 ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' },
        );
        assert.equal(answer.status, 200);
      }
      assert.equal(upstream.connections(), 1, `${sequential} requests one after another share one upstream connection`);
      const concurrent = 5;
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all(Array.from({ length: concurrent }, () => send(proxy.url, '/anything')));
        assert.ok(answers.every((a) => a.status === 200));
      }
      assert.ok(
        upstream.connections() <= 1 + concurrent,
        `${sequential + 4 * concurrent} requests, at most ${concurrent} at once, used ${upstream.connections()} upstream connections`,
      );
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it('every upstream failure is a problem (502, or 504 past the time-out), and the proxy keeps forwarding', async () => {
    // Closes each connection as soon as a request arrives: no answer at all.
    const hangUp: NetServer = createNetServer((socket) => socket.once('data', () => socket.destroy()));
    hangUp.listen(0, '127.0.0.1');
    await once(hangUp, 'listening');
    // Sends headers that promise a body, then nothing: past the time-out the client's answer is broken, not whole.
    const slowBody = await upstreamServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
      res.write('{"order":');
    });
    const lines: string[] = [];
    const proxy = await proxyTo(`http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`, {}, lines);
    const slow = await proxyTo(slowBody.url, { timeoutMs: 300 });
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await send(proxy.url, `${ORDER_PATH}ORD-1`, { headers: AUTH });
        assert.equal(answer.status, 502);
        assert.equal(answer.type, 'application/problem+json');
        assert.equal((JSON.parse(answer.body) as { type: string }).type, 'https://goods.example/problems/upstream-unreachable');
      }
      assert.ok(
        lines.some((l) => /the upstream cannot be reached/.test(l)),
        lines.join('\n'),
      );
      const outcome = await new Promise<string>((resolve) => {
        httpRequest(`${slow.url}${ORDER_PATH}ORD-1`, { headers: AUTH }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve('ended'));
          res.on('error', () => resolve('broken'));
        })
          .on('error', () => resolve('broken'))
          .end();
      });
      assert.equal(outcome, 'broken', 'a body that stops past the time-out breaks the client answer');
      assert.equal((await fetch(`${proxy.url}/__mock/health`)).status, 200);
      assert.equal((await fetch(`${slow.url}/__mock/health`)).status, 200);
    } finally {
      await proxy.close();
      await slow.close();
      hangUp.close();
      slowBody.close();
    }
  });

  it('lets go of the request, the answer and the body copies once the answer closed (a relay still reachable keeps nothing alive)', async () => {
    // V8's collector, reachable at run time: a WeakRef tells whether anything still names an object.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const relays: Relay[] = [];
    const seen: SeenExchange[] = [];
    const weak: WeakRef<object>[] = [];
    const server = createServer((req, res) => {
      const relay = new Relay({
        req,
        res,
        method: 'GET',
        target: '/x',
        requestBody: new Capture(),
        started: performance.now(),
        done: (exchange) => seen.push(exchange),
        upstream: new URL('http://127.0.0.1:1'),
        timeoutMs: 1000,
        log: () => undefined,
      });
      relays.push(relay);
      weak.push(new WeakRef(req), new WeakRef(res));
      relay.onConnect(() => undefined);
      relay.onHeaders(200, [Buffer.from('content-type'), Buffer.from('application/json')], () => undefined, 'OK');
      relay.onData(Buffer.from('{"a":1}'));
      relay.onComplete();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<IncomingMessage>((resolve, reject) =>
        httpRequest({ port, host: '127.0.0.1', path: '/x', agent: false, headers: { connection: 'close' } }, resolve)
          .on('error', reject)
          .end(),
      );
      assert.equal(await readBody(answer), '{"a":1}');
      await once(answer.socket, 'close');
      // The server's side of the connection closed too (its parser names the last request until then).
      const open = () =>
        new Promise<number>((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
      for (let turns = 0; seen.length === 0 || (await open()) > 0; turns++) {
        assert.ok(turns < 1000, 'the exchange never ended');
        await new Promise((resolve) => setImmediate(resolve));
      }
      collect();
      await new Promise((resolve) => setImmediate(resolve));
      collect();
      assert.equal(relays.length, 1, 'the relay is still held, as one promoted to the old generation is until the next full collection');
      assert.equal(seen[0]?.status, 200, 'the exchange was handed over whole');
      assert.deepEqual(
        weak.map((w) => w.deref() === undefined),
        [true, true],
        'the request and the answer are collected although the relay is still reachable',
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('answers a method its upstream client cannot send 405 with the methods it forwards, and forwards nothing', async () => {
    const seen: IncomingMessage[] = [];
    const upstream = await upstreamServer((req, res) => {
      seen.push(req);
      res.end();
    });
    const proxy = await proxyTo(upstream.url);
    try {
      const answer = await new Promise<{ status: number; allow: string; type: string }>((resolve, reject) => {
        httpRequest(`${proxy.url}${TRANSFERS_PATH}`, { method: 'PROPFIND', headers: AUTH }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, allow: String(res.headers.allow), type: String(res.headers['content-type']) }),
          );
        })
          .on('error', reject)
          .end();
      });
      assert.deepEqual(answer, {
        status: 405,
        allow: 'GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE',
        type: 'application/problem+json',
      });
      assert.equal(seen.length, 0, 'nothing reached the upstream');
    } finally {
      await proxy.close();
      upstream.close();
    }
  });
});
