/**
 * Honest verdicts and exit codes: 0 only when every check of the level ran and passed (--read-only
 * checks listed as left out), 1 on a failure, 2 when the run cannot start (nothing listening, a
 * TLS/plain-HTTP mismatch) or the answers show a configuration error (the main order not found, the
 * token refused), 3 when nothing failed but checks were not run (write budget, no lots). --max-writes
 * serves each operation's spec checks first.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { listenOn } from '../support/loopback.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { StartError } from './start-error.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const here = join(import.meta.dirname, 'testing');

describe('conformance verdicts and exit codes', function () {
  this.timeout(60_000);

  it('exit 0 with --read-only: the write checks are listed as left out, by rule', async () => {
    const { exitCode, verdict } = await runConformance(resolveConformanceConfig({ level: 'strict', readOnly: true }), {
      write: () => undefined,
    });
    assert.equal(exitCode, 0);
    assert.equal(verdict.outcome, 'passed');
    assert.ok(verdict.leftOut.length > 0);
    assert.ok(verdict.leftOut.every((r) => r.reason === 'read-only' && r.checks.length > 0));
    assert.deepEqual(verdict.unchecked, []);
  });

  it("--max-writes 3: each create operation's spec checks get writes before any extra case; the rest is not run, exit 3", async () => {
    let text = '';
    const { exitCode, verdict } = await runConformance(resolveConformanceConfig({ level: 'strict', maxWrites: 3 }), {
      write: (t) => void (text += t),
    });
    assert.equal(verdict.writes, 3);
    assert.equal(exitCode, 3);
    assert.equal(verdict.outcome, 'incomplete');
    assert.equal(verdict.counts.failed, 0);
    for (const op of ['createLotTransfer', 'createTestSample']) {
      const check = verdict.checks.find((c) => c.id === `${op}.valid-request-2xx`);
      assert.ok(
        check?.cases.some((c) => c.status === 'passed'),
        `${op}: a spec case was served`,
      );
      assert.equal(check?.status, 'not-run', `${op}: the cases past the budget are not run`);
      assert.equal(check?.reason, 'write-budget');
    }
    assert.ok(verdict.unchecked.some((r) => r.reason === 'write-budget'));
    assert.match(text, /INCOMPLETE: [^\n]*\n[\s\S]*exit code 3/);
    assert.match(text, /- \[spec\] Spec fact 6[^\n]*\(--max-writes spent;/);
  });

  it('exit 3 for an order without lots; the summary names the facts left unchecked', async () => {
    // ORD-2026-0001 of the in-process mock has lots; an order answered without lots leaves every create unchecked.
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body = JSON.stringify({
          order: { id: 1, orderNumber: 'EMPTY-1', customerId: 1, status: 'X', orderDate: '2026-01-01', deliveryDate: '2026-01-02' },
          containers: [],
          charges: [],
          lots: [],
        });
        if (decodeURIComponent(req.url ?? '').endsWith('/EMPTY-1') && req.headers.authorization === `Bearer ${REFERENCE_TOKEN}`)
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        else res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"type":"x","title":"x","status":404,"detail":"x"}');
      });
    });
    const { url, close } = await listenOn(server);
    try {
      const { exitCode, verdict } = await runConformance(
        resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, orderNumber: 'EMPTY-1', level: 'spec' }),
        {
          write: () => undefined,
        },
      );
      const order = verdict.checks.filter((c) => c.operation === 'getOrderInfo' && !c.id.includes('auth'));
      assert.ok(
        order.every((c) => c.status === 'passed'),
        order.map((c) => `${c.id} ${c.status}`).join(', '),
      );
      assert.equal(verdict.checks.find((c) => c.id === 'createLotTransfer.echo')?.reason, 'no-lots');
      assert.ok(verdict.unchecked.some((r) => r.reason === 'no-lots'));
      assert.equal(verdict.counts.failed, 0);
      assert.equal(exitCode, 3);
    } finally {
      await close();
    }
  });

  it('exit 2 (configuration): a 404 for the main order names --order-number; a refused token names --token / CONFORMANCE_TOKEN; the summary still lists the checks', async () => {
    const server = await startReferenceServer();
    try {
      let text = '';
      const wrongOrder = await runConformance(
        resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, orderNumber: 'NO-SUCH-ORDER', level: 'spec' }),
        { write: (t) => void (text += t) },
      );
      assert.equal(wrongOrder.exitCode, 2);
      assert.equal(wrongOrder.verdict.outcome, 'configuration');
      assert.equal(wrongOrder.verdict.configuration?.option, '--order-number');
      assert.match(
        text,
        /\nCONFIGURATION ERROR: \d+ passed, [1-9]\d* failed, \d+ skipped, \d+ not run of \d+ checks[^\n]*\nconfiguration error: the main order "NO-SUCH-ORDER" was answered 404 \(not found\); pass --order-number with an existing order with lots on this server\n/,
      );
      assert.match(text, /exit code 2\n/);
      assert.ok(wrongOrder.verdict.counts.total > 0 && wrongOrder.verdict.checks.length === wrongOrder.verdict.counts.total);
      text = '';
      const wrongToken = await runConformance(resolveConformanceConfig({ baseUrl: server.url, token: 'not-the-token', level: 'spec' }), {
        write: (t) => void (text += t),
      });
      assert.equal(wrongToken.exitCode, 2);
      assert.equal(wrongToken.verdict.configuration?.option, '--token');
      assert.match(
        text,
        /configuration error: [^\n]*401[^\n]*; pass --token \(or set CONFORMANCE_TOKEN\) with a token this server accepts\n/,
      );
    } finally {
      await server.close();
    }
  });

  it('exit 2 (StartError) for https:// against a plain-HTTP port and for http:// against a TLS port', async () => {
    const plain = await startReferenceServer();
    const tlsServer = https.createServer(
      { key: readFileSync(join(here, 'tls-test-key.pem')), cert: readFileSync(join(here, 'tls-test-cert.pem')) },
      (_req, res) => res.writeHead(404).end(),
    );
    const tls = await listenOn(tlsServer);
    try {
      const httpsUrl = plain.url.replace('http:', 'https:');
      await assert.rejects(
        runConformance(resolveConformanceConfig({ baseUrl: httpsUrl, token: REFERENCE_TOKEN }), { write: () => undefined }),
        (error: unknown) => error instanceof StartError && /plain HTTP/.test(error.reason) && /--base-url http:\/\//.test(error.fix),
      );
      await assert.rejects(
        runConformance(resolveConformanceConfig({ baseUrl: `http://127.0.0.1:${tls.port}`, token: REFERENCE_TOKEN }), {
          write: () => undefined,
        }),
        (error: unknown) => error instanceof StartError && /TLS/.test(error.reason) && /--base-url https:\/\//.test(error.fix),
      );
    } finally {
      await plain.close();
      await tls.close();
    }
  });
});
