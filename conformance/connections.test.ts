/**
 * Connections as real clients use them: requests reuse kept-alive connections (a pool), credential
 * cases go out right after an authenticated request on the same connection (and on fresh ones), so a
 * server that keeps authentication per connection fails; a server that closes idle connections stays
 * a correct server (a request that meets a closed kept-alive connection is sent again on a new one).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen } from '../support/loopback.js';
import { resolveConformanceConfig } from './config.js';
import { HttpClient } from './http.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const OPERATIONS = ['getOrderInfo', 'createLotTransfer', 'createTestSample'];

describe('connections as clients use them', function () {
  this.timeout(120_000);

  it('requests reuse kept-alive connections: a strict run opens far fewer connections than it sends requests', async () => {
    const counters = { connections: 0, idleClosed: 0 };
    const server = await startReferenceServer([], { counters });
    try {
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', seed: 5 });
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.equal(exitCode, 0);
      const requests = verdict.requests ?? 0;
      // The server saw one connection more: the probe that something listens at --base-url.
      assert.equal(verdict.traffic?.connections, counters.connections - 1, 'the run counts the connections its requests opened');
      // Fresh connections: one per credential case sent on one (half of them), each primed case's own connection, the pool (≤ --concurrency).
      assert.ok(counters.connections < requests / 3, `${counters.connections} connections for ${requests} requests`);
    } finally {
      await server.close();
    }
  });

  it('a server that keeps authentication per connection (a kept-alive connection that carried the token serves the next request without credentials) fails, at both levels', async () => {
    const server = await startReferenceServer(OPERATIONS.map((op) => `auth-per-connection:${op}`));
    try {
      for (const level of ['spec', 'strict'] as const) {
        const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level, seed: 5 });
        const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
        assert.equal(exitCode, 1, level);
        const failed = verdict.checks.filter((c) => c.status === 'failed');
        assert.deepEqual(
          failed.map((c) => c.id).sort(),
          OPERATIONS.flatMap((op) =>
            level === 'spec' ? [`${op}.auth-missing-no-2xx`] : [`${op}.auth-missing-401`, `${op}.auth-missing-no-2xx`],
          ).sort(),
          level,
        );
        for (const check of failed) {
          // The case sent right after an authenticated request on the same kept-alive connection, and it says so.
          const failedCase = check.cases.find((c) => c.status === 'failed');
          assert.equal(failedCase?.name, 'no Authorization header', check.id);
          assert.match(
            check.failure?.note ?? '',
            /^sent on a kept-alive connection right after GET \S+ with the token \(answered 200\) on it/,
            check.id,
          );
          // The same class sent on a fresh connection is refused.
          assert.equal(check.cases.find((c) => c.name === 'an empty Authorization header')?.status, 'passed', check.id);
        }
      }
    } finally {
      await server.close();
    }
  });

  for (const how of ['eager', 'lazy'] as const) {
    it(`a server that closes idle kept-alive connections (${how}: ${how === 'eager' ? 'when idle too long' : 'when the next request crosses the close'}) passes strict, the closes never counted against it`, async () => {
      const counters = { connections: 0, idleClosed: 0 };
      // 20 ms instead of a server's usual second: many closes in a short run.
      const server = await startReferenceServer([], { idleClose: { ms: 20, how }, counters });
      try {
        const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', seed: 5 });
        const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
        assert.deepEqual(
          verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message ?? ''}`),
          [],
        );
        assert.equal(exitCode, 0);
        assert.ok(counters.idleClosed > 0, 'the server did close idle connections');
        if (how === 'lazy') assert.equal(verdict.traffic?.resent, counters.idleClosed, 'each request the server dropped was sent again');
      } finally {
        await server.close();
      }
    });
  }

  it('a request on a kept-alive connection the server closed after 1 s idle is sent again on a new connection, once', async () => {
    const counters = { connections: 0, idleClosed: 0 };
    const server = await startReferenceServer([], { idleClose: { ms: 1000, how: 'lazy' }, counters });
    const client = new HttpClient({ baseUrl: server.url, timeoutMs: 5000 });
    try {
      const request = { operation: 'server' as const, method: 'GET', path: '/nowhere', headers: {} };
      const first = await client.send(request);
      const second = await client.send(request);
      assert.deepEqual([first.connection, second.connection], ['new', 'reused']);
      await sleep(1100);
      const third = await client.send(request);
      assert.equal(third.answer?.status, 404, third.error);
      assert.equal(third.resent, true);
      assert.equal(third.connection, 'new');
      assert.deepEqual([counters.idleClosed, counters.connections], [1, 2]);
      assert.equal(client.traffic.resent, 1);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a body sent chunked goes out with Transfer-Encoding: chunked and no Content-Length; a plain one with its Content-Length', async () => {
    const seen: { te: string | undefined; length: string | undefined; body: string }[] = [];
    const server = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ te: req.headers['transfer-encoding'], length: req.headers['content-length'], body: Buffer.concat(chunks).toString() });
        res.end('ok');
      });
    });
    const client = new HttpClient({ baseUrl: server.url, timeoutMs: 5000 });
    try {
      const request = { operation: 'server' as const, method: 'POST', path: '/x', headers: {}, body: Buffer.from('{"a":1}') };
      await client.send({ ...request, chunked: true });
      await client.send(request);
      assert.deepEqual(seen, [
        { te: 'chunked', length: undefined, body: '{"a":1}' },
        { te: undefined, length: '7', body: '{"a":1}' },
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a request whose answer had begun is never sent again, nor one that fails on a new connection', async () => {
    let requests = 0;
    const server = await listen((req, res) => {
      requests += 1;
      req.resume();
      // Headers and part of the body, then the connection is cut.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const client = new HttpClient({ baseUrl: server.url, timeoutMs: 2000 });
    try {
      const request = { operation: 'server' as const, method: 'GET', path: '/x', headers: {} };
      const exchange = await client.send(request);
      assert.equal(exchange.answer, undefined);
      assert.match(exchange.error ?? '', /^no answer: /);
      assert.equal(exchange.resent, undefined);
      assert.equal(requests, 1);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
