import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { send } from './http-probe.js';
import { listen, listenOn } from './loopback.js';

describe('support/loopback: loopback servers', () => {
  it('listen: serves the handler at http://127.0.0.1:port (a free port), and close stops it', async () => {
    const server = await listen((req, res) => res.writeHead(200).end(`seen ${req.url}`));
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    assert.ok(server.port > 0);
    assert.deepEqual(await send(`${server.url}/x`, { method: 'GET', headers: {} }), { status: 200, body: 'seen /x' });
    await server.close();
    await assert.rejects(send(server.url, { method: 'GET', headers: {} }), { code: 'ECONNREFUSED' });
  });

  it('close ends open connections, a request still unanswered included (it does not wait for them)', async () => {
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const server = await listen(() => arrived()); // never answers
    const pending = new Promise<unknown>((resolve) => {
      get(server.url, { agent: false }, () => resolve('answered')).on('error', resolve);
    });
    await reached;
    const started = performance.now();
    await server.close();
    assert.ok(performance.now() - started < 1000, 'closed at once');
    assert.match(String(await pending), /socket hang up|ECONNRESET/);
  });

  it('listenOn: takes an existing server; an HTTPS server gets an https:// URL', async () => {
    const here = join(PROJECT_ROOT, 'conformance', 'testing');
    const tls = createHttpsServer(
      { key: readFileSync(join(here, 'tls-test-key.pem')), cert: readFileSync(join(here, 'tls-test-cert.pem')) },
      (_req, res) => res.end(),
    );
    const server = await listenOn(tls);
    try {
      assert.equal(server.url, `https://127.0.0.1:${server.port}`);
      assert.ok(tls.listening);
    } finally {
      await server.close();
    }
    assert.equal(tls.listening, false);
  });

  it('a listen error rejects (a port in use), and the server is left not listening', async () => {
    const first = await listen((_req, res) => res.end());
    const second = createServer();
    try {
      await assert.rejects(listenOn(second, first.port), { code: 'EADDRINUSE' });
      assert.equal(second.listening, false);
    } finally {
      await first.close();
    }
  });

  it('close rejects when the server is not listening', async () => {
    const server = await listen((_req, res) => res.end());
    await server.close();
    await assert.rejects(server.close(), { code: 'ERR_SERVER_NOT_RUNNING' });
  });
});
