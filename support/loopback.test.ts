import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, get } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { send } from './http-probe.js';
import { closedPort, ephemeralLow, listen, listenOn } from './loopback.js';

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

  it('closedPort: a port that refuses connections, below the range listen(0) hands out', async () => {
    const low = await ephemeralLow();
    const ports = await Promise.all([closedPort(), closedPort(), closedPort()]);
    for (const port of ports) {
      assert.ok(port >= 1024 && port < low, `${port} lies below ${low}`);
      await assert.rejects(send(`http://127.0.0.1:${port}`, { method: 'GET', headers: {} }), { code: 'ECONNREFUSED' });
    }
    const handedOut = await listen((_req, res) => res.end());
    try {
      assert.ok(handedOut.port >= low, `listen(0) gave ${handedOut.port}, within the range from ${low}`);
    } finally {
      await handedOut.close();
    }
  });

  it('ephemeralLow: the first number of the range file; 32768 when the file is missing or says no port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopback-range-'));
    try {
      const file = join(dir, 'range');
      writeFileSync(file, '40000\t50000\n');
      assert.equal(await ephemeralLow(file), 40000);
      for (const text of ['', 'x y', '80 1000', '70000 70001']) {
        writeFileSync(file, text);
        assert.equal(await ephemeralLow(file), 32768, JSON.stringify(text));
      }
      assert.equal(await ephemeralLow(join(dir, 'missing')), 32768);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
