/**
 * Bounded time and garbage: a server that never answers one operation, and one that answers
 * garbage (not JSON, wrong types, closed connections, huge bodies), make checks fail; the run ends
 * and never crashes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { listenOn } from '../support/loopback.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

describe('conformance run against misbehaving servers', () => {
  it('a server that never answers one operation: its first check fails as timed out, its other checks are not run (blocked by it), the others still run', async () => {
    const server = await startReferenceServer(['hang-order-info']);
    try {
      const config = resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level: 'strict', timeoutMs: 300 });
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.equal(exitCode, 1);
      const order = verdict.checks.filter((c) => c.operation === 'getOrderInfo');
      assert.ok(order.length > 0);
      const [first, ...rest] = order;
      assert.equal(first?.status, 'failed');
      assert.match(first?.message ?? '', /timed out/);
      for (const check of rest) {
        assert.equal(check.status, 'not-run', check.id);
        assert.match(check.blockedBy ?? '', new RegExp(`${first?.id ?? ''}.*timed out`), check.id);
      }
      // Create checks need the order's lots, which could not be discovered: not run, with that reason.
      const echo = verdict.checks.find((c) => c.id === 'createLotTransfer.echo');
      assert.equal(echo?.status, 'not-run');
      assert.match(echo?.message ?? '', /lots could not be discovered/);
      assert.equal(verdict.checks.find((c) => c.id === 'createLotTransfer.wrong-method-405')?.status, 'passed');
      assert.equal(verdict.checks.find((c) => c.id === 'server.unknown-path-404')?.status, 'passed');
    } finally {
      await server.close();
    }
  });

  it('garbage answers (not JSON, wrong types, closed connections, huge bodies) are failures, not crashes', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const url = req.url ?? '';
        if (url.includes('/orders/info/')) {
          if (req.headers.authorization !== `Bearer ${REFERENCE_TOKEN}`)
            return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>welcome</html>');
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ order: 5, containers: 'none', lots: [{ id: 2001 }] }));
        }
        if (url.includes('lot-transfers')) return req.socket.destroy();
        if (url.includes('test-samples')) {
          res.writeHead(201, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const pump = (): void => {
            while (sent < 200 && !res.destroyed) {
              sent++;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          res.on('error', () => undefined);
          return pump();
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"broken":');
      });
    });
    const { url, close } = await listenOn(server);
    try {
      const config = resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, level: 'strict', timeoutMs: 2000 });
      const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
      assert.equal(exitCode, 1);
      const message = (id: string): string => verdict.checks.find((c) => c.id === id)?.message ?? '';
      assert.match(message('getOrderInfo.answer-shape'), /breaks the schema/);
      assert.match(message('getOrderInfo.auth-missing-no-2xx'), /status 200/);
      assert.match(message('createLotTransfer.valid-request-2xx'), /no answer/);
      assert.match(message('createTestSample.valid-request-2xx'), /larger than 1 MiB/);
      assert.match(message('server.unknown-path-404'), /status 200/);
      assert.ok(
        verdict.checks.every((c) => !/could not complete/.test(c.message ?? '')),
        'no check crashed',
      );
    } finally {
      await close();
    }
  });
});
