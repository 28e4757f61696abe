/**
 * Every failing case comes with a ready-to-paste curl: run as printed (a shell with CONFORMANCE_TOKEN
 * set) against the faulty server, it gets the answer the suite judged, so it shows the fault.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listen } from '../support/loopback.js';
import { resolveConformanceConfig } from './config.js';
import { curlOf, shellQuote, type ReproduceOptions } from './reproduce.js';
import type { Verdict } from '../report/results.js';
import { runConformance } from './run.js';
import { escapeControls } from './secrets.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const TOKEN = 'tok_R3pro/duce+It=';

/**
 * Runs `command` in bash with CONFORMANCE_TOKEN set (node on the PATH); its output. Asynchronous: the
 * servers it talks to run in this process.
 */
async function shell(
  command: string,
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', command], {
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, CONFORMANCE_TOKEN: TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** What a loopback server received. */
interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe('curl reproductions', function () {
  this.timeout(120_000);
  const options = (baseUrl: string, extra: Partial<ReproduceOptions> = {}): ReproduceOptions => ({
    baseUrl,
    token: TOKEN,
    rejectedToken: 'invalid',
    rejectedTokenIsDefault: true,
    basic: { credential: Buffer.from(`conformance:${TOKEN}`).toString('base64'), user: 'conformance' },
    ...extra,
  });

  it('send the request byte for byte: method, path, headers as sent (credentials rebuilt from $CONFORMANCE_TOKEN), body', async () => {
    const received: Received[] = [];
    const server = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(418, { 'content-type': 'text/plain' }).end('teapot');
      });
    });
    try {
      const swapped = [...TOKEN].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
      const cases: { authorization?: string; body?: Buffer; headers?: Record<string, string>; path?: string; method?: string }[] = [
        { authorization: `Bearer ${TOKEN}` },
        { authorization: `Basic ${Buffer.from(`conformance:${TOKEN}`).toString('base64')}` },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
        { authorization: `Bearer ${swapped}` },
        { authorization: `Bearer "${TOKEN}"` },
        { authorization: `Bearer ${TOKEN}, Basic ${Buffer.from(`conformance:${TOKEN}`).toString('base64')}` },
        { authorization: TOKEN },
        { authorization: '' },
        { authorization: 'Bearer' },
        {
          method: 'POST',
          body: Buffer.from(`{"note":"it's $HOME \`id\` !x \\"q\\" é😀"}`),
          headers: { 'content-type': 'application/json' },
        },
        // Control and bidi characters, a line break, bytes that are not UTF-8, a large body: written by node.
        { method: 'POST', body: Buffer.from('{"n":"a\u0007b\u202ec\nd"}'), headers: { 'content-type': 'application/json' } },
        { method: 'POST', body: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]), headers: { 'content-type': 'application/json' } },
        { method: 'POST', body: Buffer.from(`{"pad":"${'x'.repeat(1024 * 1024)}","s":"${'😀'.repeat(100)}"}`), headers: {} },
        { method: 'POST', body: Buffer.from('{}'), headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        { method: 'GET', path: "/a/b%2Fc?q=[1]&x='y'", headers: { 'accept-encoding': 'gzip, deflate, br' } },
        { method: 'DELETE', path: '/x' },
      ];
      for (const c of cases) {
        const headers: Record<string, string> = { accept: 'application/json', ...(c.headers ?? {}) };
        if (c.authorization !== undefined) headers['authorization'] = c.authorization;
        const request = {
          operation: 'server' as const,
          method: c.method ?? 'GET',
          path: c.path ?? '/orders/info/ORD-1',
          headers,
          ...(c.body !== undefined ? { body: c.body } : {}),
        };
        const curl = curlOf(request, options(server.url)) ?? '';
        assert.ok(!curl.includes(TOKEN), `no credential in ${curl}`);
        assert.equal(escapeControls(curl), curl, 'nothing a report would escape');
        received.length = 0;
        const out = await shell(curl);
        assert.equal(out.status, 0, `${curl}\n${out.stderr}`);
        assert.match(out.stdout, /^HTTP\/1\.1 418/);
        const [got] = received;
        assert.ok(got, curl);
        assert.equal(got.method, request.method);
        assert.equal(got.url, request.path);
        for (const [name, value] of Object.entries(headers)) assert.equal(got.headers[name], value, `${name} of ${curl}`);
        if (c.headers?.['content-type'] === undefined) assert.equal(got.headers['content-type'], undefined, 'no content-type added');
        assert.deepEqual(got.body, c.body ?? Buffer.alloc(0), curl.slice(0, 300));
      }
    } finally {
      await server.close();
    }
  });

  it('quote for a POSIX shell, and a non-default --rejected-token as $CONFORMANCE_REJECTED_TOKEN', () => {
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    const curl = curlOf(
      { operation: 'server', method: 'GET', path: '/x', headers: { authorization: 'Bearer revoked-77' } },
      options('http://h', { rejectedToken: 'revoked-77', rejectedTokenIsDefault: false }),
    );
    assert.ok(curl?.includes(`-H 'authorization: Bearer '"\${CONFORMANCE_REJECTED_TOKEN}"`), curl);
    const https = curlOf({ operation: 'server', method: 'GET', path: '/x', headers: {} }, options('https://h', { caPath: '/etc/ca.pem' }));
    assert.match(https ?? '', /--cacert '\/etc\/ca\.pem' \\\n {2}--http1\.1/);
  });

  it("a failing case's curl, run as printed, gets the faulty answer the suite judged (every failure of a run against a faulty server)", async () => {
    const faults = [
      'create-200:createLotTransfer',
      'auth-accepts-non-bearer:createTestSample',
      'token-prefix-match:getOrderInfo',
      'allow-unknown:createLotTransfer',
      'reject-non-ascii:createLotTransfer',
      'no-size-limit',
      'unknown-path-400',
      'auth-per-connection:createTestSample',
    ];
    const server = await startReferenceServer(faults);
    const output = mkdtempSync(join(tmpdir(), 'reproduce-'));
    try {
      let text = '';
      const config = resolveConformanceConfig({
        baseUrl: server.url,
        token: REFERENCE_TOKEN,
        level: 'strict',
        seed: 3,
        reporters: ['json'],
        outputDir: output,
      });
      const { exitCode } = await runConformance(config, { write: (t) => void (text += t) });
      assert.equal(exitCode, 1);
      const verdict = JSON.parse(readFileSync(join(output, 'conformance.json'), 'utf8')) as Verdict;
      const failures = verdict.checks.flatMap((c) => (c.failures ?? []).map((f) => ({ check: c.id, ...f })));
      assert.ok(failures.length >= 10, `${failures.length} failures`);
      const checks = new Set<string>();
      for (const failure of failures) {
        assert.ok(failure.curl !== undefined, `${failure.check}: ${failure.actual}`);
        const out = await shell(failure.curl, { CONFORMANCE_TOKEN: REFERENCE_TOKEN });
        assert.equal(out.status, 0, `${failure.curl}\n${out.stderr}`);
        // The status of the last answer (a case sent right after an authenticated request: its curl sends that one first).
        const status = [...out.stdout.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].at(-1)?.[1];
        assert.equal(Number(status), failure.status, `${failure.check}: ${failure.curl.slice(0, 400)}`);
        checks.add(failure.check);
      }
      // The faults are shown: a create answered 200 (not 201), Basic accepted, a token with a suffix accepted, a body past 1 MiB created.
      for (const id of [
        'createLotTransfer.status-201',
        'createTestSample.auth-non-bearer-no-2xx',
        'getOrderInfo.auth-rejected-no-2xx',
        'createLotTransfer.unknown-member-400',
        'createLotTransfer.valid-request-2xx',
        'createLotTransfer.payload-too-large-413',
        'server.unknown-path-404',
        'createTestSample.auth-missing-no-2xx',
      ])
        assert.ok(checks.has(id), id);
      // A case sent right after an authenticated request on the same connection: its curl sends both, on one connection.
      const perConnection = failures.find((f) => f.check === 'createTestSample.auth-missing-no-2xx')?.curl ?? '';
      assert.match(
        perConnection,
        /\n {2}curl -sS -i \\\n {2}-H 'accept: application\/json' \\\n {2}-H 'authorization: Bearer '"\$\{CONFORMANCE_TOKEN\}" \\\n {2}'http:[^']+\/orders\/info\/ORD-2026-0001' -w '\\n' \\\n {2}--next -sS -i /,
      );
      // The console prints the same command (indented under its case).
      const first = failures[0]?.curl ?? '';
      assert.ok(text.includes(first.split('\n')[0] ?? ''), 'the console shows the curl');
      assert.match(text, /reproduce:\n {8,}curl -sS -i/);
    } finally {
      rmSync(output, { recursive: true, force: true });
      await server.close();
    }
  });
});
