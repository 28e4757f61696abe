/**
 * The proxy's wire behaviour: answers returned unchanged (status, status message, headers with their
 * repeats, body byte for byte, streamed), the client's Authorization forwarded, nothing recorded in the
 * mock's state, an upstream that is down or silent answered 502/504 problem+json while the proxy keeps
 * running, and bounded, redacted violation listings.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect as createNetConnection, createServer as createNetServer, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { closedPort } from '../../support/loopback.js';
import { until } from '../../support/wait.js';
import { readBody } from '../../test/support/http.js';
import { startMock, AUTH, ORDER_PATH, rawRequest, TRANSFERS_PATH } from '../testing.js';
import { createMockServer, type MockServer } from '../server.js';
import { DEFAULT_PROXY, type ProxyConfig } from './config.js';
import type { ViolationsSnapshot } from './violations.js';

async function proxyTo(upstream: string, options: Partial<ProxyConfig> = {}, lines: string[] = []): Promise<MockServer> {
  return createMockServer({
    port: 0,
    quiet: true,
    log: (line) => lines.push(line),
    proxy: { ...DEFAULT_PROXY, outputDir: mkdtempSync(join(tmpdir(), 'proxy-test-')), ...options, upstream },
  });
}

async function snapshot(proxy: MockServer): Promise<ViolationsSnapshot> {
  return (await (await fetch(`${proxy.url}/__mock/violations`)).json()) as ViolationsSnapshot;
}

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

/** An upstream that streams a binary answer in three chunks with repeated headers, and remembers the request. */
async function streamingUpstream(seen: Seen[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ headers: req.headers, body, url: req.url ?? '' });
      res.writeHead(299, 'Custom Reason', [
        'X-Trace',
        'a',
        'Set-Cookie',
        'one=1',
        'Set-Cookie',
        'two=2',
        'Content-Type',
        'application/octet-stream',
      ]);
      res.write(Buffer.from([0, 1, 2, 255]));
      setTimeout(() => {
        res.write(Buffer.from([254, 0x0a]));
        setTimeout(() => res.end(Buffer.from('end')), 20);
      }, 20);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('validating proxy: the wire', () => {
  it('returns the answer unchanged: status and reason, repeated headers, binary body streamed byte for byte; forwards Authorization and the body', async () => {
    const seen: Seen[] = [];
    const upstream = await streamingUpstream(seen);
    const proxy = await proxyTo(`${upstream.url}/base`);
    try {
      const answer = await new Promise<{ status: number; message: string; raw: string[]; body: Buffer; chunks: number }>(
        (resolve, reject) => {
          const req = httpRequest(
            `${proxy.url}/goodsReception/rest/v1/lot-transfers/create?x=1`,
            { method: 'POST', headers: { Authorization: 'Bearer client-own-token', 'Content-Type': 'application/json' } },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  message: res.statusMessage ?? '',
                  raw: res.rawHeaders,
                  body: Buffer.concat(chunks),
                  chunks: chunks.length,
                }),
              );
            },
          );
          req.on('error', reject);
          req.end('{"fk_lot_id":2001}');
        },
      );
      assert.equal(answer.status, 299);
      assert.equal(answer.message, 'Custom Reason');
      assert.deepEqual(answer.body, Buffer.concat([Buffer.from([0, 1, 2, 255, 254, 0x0a]), Buffer.from('end')]));
      assert.ok(answer.chunks >= 2, 'the body arrived in several chunks (streamed, not buffered)');
      const pairs: string[] = [];
      for (let i = 0; i < answer.raw.length; i += 2) pairs.push(`${answer.raw[i] ?? ''}: ${answer.raw[i + 1] ?? ''}`);
      assert.deepEqual(
        pairs.filter((p) => /^(X-Trace|Set-Cookie|Content-Type)/.test(p)),
        ['X-Trace: a', 'Set-Cookie: one=1', 'Set-Cookie: two=2', 'Content-Type: application/octet-stream'],
      );
      assert.equal(seen[0]?.headers.authorization, 'Bearer client-own-token');
      assert.equal(seen[0]?.body, '{"fk_lot_id":2001}');
      assert.equal(
        seen[0]?.url,
        '/base/goodsReception/rest/v1/lot-transfers/create?x=1',
        'the upstream path prefix and the query are kept',
      );
    } finally {
      await proxy.close();
      upstream.server.closeAllConnections();
      upstream.server.close();
    }
  });

  it('answers what the mock answers, header for header (Date aside), and records nothing in its own state', async () => {
    const mock = await startMock();
    const proxy = await proxyTo(mock.url);
    try {
      const path = `${ORDER_PATH}WE%202026-0003`;
      const direct = await rawRequest(mock.url, { path, headers: AUTH });
      const proxied = await rawRequest(proxy.url, { path, headers: AUTH });
      assert.equal(proxied.status, direct.status);
      assert.equal(proxied.body, direct.body);
      const drop = (h: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(h).filter(([n]) => !['date', 'connection', 'keep-alive'].includes(n)));
      assert.deepEqual(drop(proxied.headers), drop(direct.headers));
      const created = await fetch(`${proxy.url}${TRANSFERS_PATH}`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: JSON.stringify({ fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B', amount: 1 }),
      });
      assert.equal(created.status, 201);
      const listing = await fetch(`${proxy.url}/__mock/lot-transfers`);
      assert.equal(listing.status, 404, 'the proxy has no state to list');
      assert.match(((await listing.json()) as { detail: string }).detail, /nothing is recorded here/);
      assert.equal(((await (await fetch(`${mock.url}/__mock/lot-transfers`)).json()) as unknown[]).length, 1, 'the upstream did');
    } finally {
      await proxy.close();
      await mock.close();
    }
  });

  it('an upstream that is down is answered 502 problem+json, the proxy keeps running and forwards again once it is back', async () => {
    const port = await closedPort(); // below the free-port range: no server started meanwhile takes it
    const lines: string[] = [];
    const proxy = await proxyTo(`http://127.0.0.1:${port}`, {}, lines);
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
        assert.equal(answer.status, 502);
        assert.equal(answer.headers.get('content-type'), 'application/problem+json');
        const body = (await answer.json()) as Record<string, unknown>;
        assert.equal(body['status'], 502);
        assert.equal(body['type'], 'https://goods.example/problems/upstream-unreachable');
        assert.match(String(body['detail']), /cannot be reached/);
      }
      assert.ok(
        lines.some((l) => /upstream cannot be reached/.test(l)),
        lines.join('\n'),
      );
      assert.equal((await fetch(`${proxy.url}/__mock/health`)).status, 200);
      const again = await startMock({ port });
      try {
        const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
        assert.equal(answer.status, 200);
        await answer.arrayBuffer();
      } finally {
        await again.close();
      }
      assert.equal((await snapshot(proxy)).total, 0, 'an unreachable upstream is no contract violation');
    } finally {
      await proxy.close();
    }
  });

  it('an upstream that answers garbage (invalid HTTP) is answered 502 problem+json, and the proxy keeps running', async () => {
    const garbage = createNetServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 O\u0001K\r\nContent-Length: 2\r\nX-A: b\u007fc\r\n\r\n{}'));
    });
    garbage.listen(0, '127.0.0.1');
    await once(garbage, 'listening');
    const proxy = await proxyTo(`http://127.0.0.1:${(garbage.address() as AddressInfo).port}`);
    try {
      const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
      assert.equal(answer.status, 502);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json');
      await answer.arrayBuffer();
      assert.equal((await fetch(`${proxy.url}/__mock/health`)).status, 200);
    } finally {
      await proxy.close();
      garbage.close();
    }
  });

  it('an upstream that does not answer in --proxy-timeout is answered 504 problem+json', async () => {
    const silent = createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const proxy = await proxyTo(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { timeoutMs: 200 });
    try {
      const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
      assert.equal(answer.status, 504);
      assert.equal(((await answer.json()) as Record<string, unknown>)['type'], 'https://goods.example/problems/upstream-timeout');
    } finally {
      await proxy.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('validating proxy: what it judges', () => {
  it('judges a gzip-compressed answer (decompressed for the judgments, forwarded compressed byte for byte)', async () => {
    const broken = gzipSync(JSON.stringify({ order: { orderNumber: 'OTHER' }, containers: [], charges: [], lots: [] }));
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': broken.length });
      res.end(broken);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const proxy = await proxyTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const bytes = await new Promise<Buffer>((resolve, reject) => {
        httpRequest(`${proxy.url}${ORDER_PATH}ORD-1`, { headers: AUTH }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
          .on('error', reject)
          .end();
      });
      assert.deepEqual(bytes, broken);
      const seen = await snapshot(proxy);
      const found = seen.recent[0]?.violations.map((v) => `${v.rule} ${v.pointer}`) ?? [];
      assert.ok(found.includes('answer.exact-order /order/orderNumber'), found.join(', '));
    } finally {
      await proxy.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('an upstream that answers before the body is in (early 413) is judged on its answer only, not on a cut request body', async () => {
    const early = createServer((req, res) => {
      const body = JSON.stringify({ type: 'https://x.example/too-large', title: 'Too large', status: 413, detail: 'too large' });
      res.writeHead(413, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body);
      req.resume();
    });
    early.listen(0, '127.0.0.1');
    await once(early, 'listening');
    const proxy = await proxyTo(`http://127.0.0.1:${(early.address() as AddressInfo).port}`, { level: 'strict' });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${proxy.url}${TRANSFERS_PATH}`,
          { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.write('{"fk_lot_id": 2001, "source_scancode": "');
        setTimeout(() => req.end('A", "target_scancode": "B", "amount": 1}'), 200);
      });
      assert.equal(status, 413);
      // Judging runs after the answer was sent: poll until the exchange was judged.
      await until(async () => (await snapshot(proxy)).exchanges >= 1, { what: 'the exchange judged' });
      const seen = await snapshot(proxy);
      assert.deepEqual(
        seen.recent.flatMap((e) => e.violations.map((v) => v.rule)),
        [],
        'no client problem invented from the cut body',
      );
    } finally {
      await proxy.close();
      early.closeAllConnections();
      early.close();
    }
  });

  it("an upstream that breaks off mid-answer breaks the client's answer too (never a cut body taken for whole), and is not judged", async () => {
    const cut = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"order":');
      setTimeout(() => res.destroy(), 30);
    });
    cut.listen(0, '127.0.0.1');
    await once(cut, 'listening');
    const proxy = await proxyTo(`http://127.0.0.1:${(cut.address() as AddressInfo).port}`);
    try {
      const outcome = await new Promise<string>((resolve) => {
        httpRequest(`${proxy.url}${ORDER_PATH}ORD-1`, { headers: AUTH }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve('ended'));
          res.on('error', () => resolve('broken'));
          res.on('aborted', () => resolve('broken'));
        })
          .on('error', () => resolve('broken'))
          .end();
      });
      assert.equal(outcome, 'broken');
      assert.equal((await snapshot(proxy)).exchanges, 0);
      assert.equal((await fetch(`${proxy.url}/__mock/health`)).status, 200, 'the proxy keeps running');
    } finally {
      await proxy.close();
      cut.closeAllConnections();
      cut.close();
    }
  });

  it('judges a wrong method on a contract path (client problem; the mock answers 405 + Allow as the profile says), not a path outside the contract', async () => {
    const mock = await startMock();
    const proxy = await proxyTo(mock.url, { level: 'strict' });
    try {
      const wrong = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { method: 'DELETE', headers: AUTH });
      assert.equal(wrong.status, 405);
      await wrong.arrayBuffer();
      const outside = await fetch(`${proxy.url}/actuator/health`, { headers: AUTH });
      assert.equal(outside.status, 404);
      await outside.arrayBuffer();
      const seen = await snapshot(proxy);
      assert.equal(seen.exchanges, 1, 'the path outside the contract is not judged');
      assert.deepEqual(
        seen.recent.flatMap((e) => e.violations.map((v) => `${v.side} ${v.operation} ${v.rule} ${v.in}`)),
        ['client unknown request.known-operation method'],
      );
    } finally {
      await proxy.close();
      await mock.close();
    }
  });

  it('forwards CORS preflights and HEAD requests without judging them (they are HTTP, not operations)', async () => {
    const mock = await startMock();
    const proxy = await proxyTo(mock.url);
    try {
      const preflight = await fetch(`${proxy.url}${TRANSFERS_PATH}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'http://localhost:5173',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*', 'the upstream answer, unchanged');
      const head = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { method: 'HEAD', headers: AUTH });
      await head.arrayBuffer();
      const seen = await snapshot(proxy);
      assert.deepEqual([seen.exchanges, seen.total], [0, 0]);
    } finally {
      await proxy.close();
      await mock.close();
    }
  });

  it('a client that leaves mid-request costs nothing: no judgment, the proxy keeps answering', async () => {
    const mock = await startMock();
    const proxy = await proxyTo(mock.url);
    try {
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${proxy.url}${TRANSFERS_PATH}`, {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json', 'Content-Length': '1000' },
        });
        req.on('error', () => resolve());
        req.write('{"fk_lot_id":');
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
      assert.equal(answer.status, 200);
      await answer.arrayBuffer();
      const seen = await snapshot(proxy);
      assert.equal(seen.total, 0);
    } finally {
      await proxy.close();
      await mock.close();
    }
  });
});

/** Every string of a parsed JSON value (keys too), one per line. */
function stringsOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(stringsOf).join('\n');
  if (typeof value === 'object' && value !== null)
    return Object.entries(value)
      .map(([key, item]) => `${key}\n${stringsOf(item)}`)
      .join('\n');
  return '';
}

describe('validating proxy: the judging queue', () => {
  it('an exchange past the queue is forwarded unjudged and counted; the listing, the reports and the stop line say how many', async () => {
    const mock = await startMock();
    const lines: string[] = [];
    // Room for 10 bytes of bodies waiting: every exchange with an order body is past it.
    const proxy = await proxyTo(mock.url, { judging: { exchanges: 1000, bytes: 10 } }, lines);
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH });
        assert.equal(answer.status, 200, 'forwarded all the same');
        await answer.arrayBuffer();
      }
      const outside = await fetch(`${proxy.url}/actuator/health`, { headers: AUTH });
      assert.equal(outside.status, 404);
      await outside.arrayBuffer();
      const seen = await snapshot(proxy);
      assert.deepEqual(
        { exchanges: seen.exchanges, notJudged: seen.notJudged, total: seen.total },
        { exchanges: 0, notJudged: 3, total: 0 },
        'the three order reads are counted, the path outside the contract (never judged) is not',
      );
      assert.equal(lines.filter((l) => /the judging queue is full/.test(l)).length, 1, 'one log line for the burst, not one per exchange');
      const written = (await (await fetch(`${proxy.url}/__mock/report`, { method: 'POST' })).json()) as { files: string[] };
      const json = written.files.find((file) => file.endsWith('.json')) ?? '';
      const report = JSON.parse(readFileSync(json, 'utf8')) as { hints: string[] };
      assert.ok(
        report.hints.some((h) =>
          /^3 exchange\(s\) of the contract's operations were forwarded but not judged: the judging queue was full/.test(h),
        ),
        report.hints.join('\n'),
      );
      await proxy.close();
      assert.ok(
        lines.some((l) => /^proxy: 0 violation\(s\) in 0 exchange\(s\); 3 exchange\(s\) .* not judged/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await proxy.close();
      await mock.close();
    }
  });

  it('a roomy queue judges every exchange answered before a listing (none left waiting, none dropped)', async () => {
    const mock = await startMock();
    const proxy = await proxyTo(mock.url);
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => fetch(`${proxy.url}${ORDER_PATH}ORD-2026-0001`, { headers: AUTH }).then((a) => a.arrayBuffer())),
      );
      assert.equal(answers.length, 30);
      const seen = await snapshot(proxy);
      assert.deepEqual({ exchanges: seen.exchanges, notJudged: seen.notJudged }, { exchanges: 30, notJudged: 0 });
    } finally {
      await proxy.close();
      await mock.close();
    }
  });
});

describe('validating proxy: /__mock/violations', () => {
  const TOKEN = 'Sup3rSecretToken-42';
  /** JSON `\u` escapes of every character, or of every other one with upper-case hex (`mixed`). */
  const escaped = (text: string, mixed = false): string =>
    [...text]
      .map((c, i) => {
        const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
        return !mixed ? `\\u${hex}` : i % 2 === 0 ? `\\u${hex.toUpperCase()}` : c;
      })
      .join('');
  const forms = [
    TOKEN,
    escaped(TOKEN),
    escaped(TOKEN, true),
    Buffer.from(TOKEN).toString('base64'),
    Buffer.from(`user:${TOKEN}`).toString('base64'),
    encodeURIComponent(`${TOKEN}/x`),
    Buffer.from(TOKEN).toString('base64url'),
  ];

  /** An upstream that answers a broken order (customerId a string) and echoes the credential in every form, in headers and body. */
  async function echoingUpstream(): Promise<{ server: Server; url: string }> {
    const server = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      const token = auth.replace(/^Bearer /, '');
      const body = JSON.stringify({
        order: {
          id: 1,
          orderNumber: decodeURIComponent((req.url ?? '').split('?')[0]?.split('/').pop() ?? ''),
          customerId: 'x',
          status: 'S',
          orderDate: 'd',
          deliveryDate: 'd',
        },
        containers: [],
        charges: [],
        lots: [],
        echo: [
          auth,
          Buffer.from(token).toString('base64'),
          Buffer.from(`user:${token}`).toString('base64'),
          encodeURIComponent(`${token}/x`),
          Buffer.from(token).toString('base64url'),
          'x'.repeat(5000),
        ],
      }).replace(/^\{/, `{"escaped":["${escaped(token)}","${escaped(token, true)}"],`);
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-echo': auth,
        'x-echo-b64': Buffer.from(token).toString('base64'),
        'x-echo-u': escaped(token),
      });
      res.end(body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it('counts by operation and rule, keeps only the latest --keep exchanges, cuts bodies, and shows no form of the credential', async () => {
    const upstream = await echoingUpstream();
    const lines: string[] = [];
    const proxy = await proxyTo(upstream.url, { keep: 3, bodyChars: 300 }, lines);
    const b64 = Buffer.from(TOKEN).toString('base64url');
    try {
      for (let i = 0; i < 8; i++) {
        // The token also in the target (base64url): the reports' violation lines name the target.
        const answer = await fetch(`${proxy.url}${ORDER_PATH}ORD-${i}?echo=${b64}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        assert.equal(answer.status, 200);
        await answer.arrayBuffer();
      }
      const text = await (await fetch(`${proxy.url}/__mock/violations`)).text();
      const seen = JSON.parse(text) as ViolationsSnapshot;
      assert.equal(seen.exchanges, 8);
      assert.equal(seen.total, 8);
      assert.deepEqual(seen.byOperation, { getOrderInfo: 8 });
      assert.deepEqual(seen.byRule, { 'answer.schema': 8 });
      assert.equal(seen.recent.length, 3, 'only the latest --keep exchanges');
      assert.deepEqual(
        seen.recent.map((e) => e.target),
        [7, 6, 5].map((i) => `${ORDER_PATH}ORD-${i}?echo=<redacted>`),
      );
      const latest = seen.recent[0];
      assert.ok(latest && latest.answer.truncated && latest.answer.body.length <= 301, 'the body is cut');
      assert.equal(latest?.request.headers['authorization'], 'Bearer <redacted>');
      assert.equal(latest?.answer.headers['x-echo'], 'Bearer <redacted>', 'a learnt token in any header');
      assert.equal(latest?.violations[0]?.pointer, '/order/customerId');
      const written = (await (await fetch(`${proxy.url}/__mock/report`, { method: 'POST' })).json()) as { files: string[] };
      const reports = written.files.map((file) => readFileSync(file, 'utf8'));
      assert.ok(
        // (JUnit is XML: the marker is written escaped there.)
        reports.every((report) => /<redacted>|&lt;redacted&gt;/.test(report) && !report.includes('[REDACTED]')),
        "the reports show the targets with the token, redacted with the suite's marker",
      );
      // The JSON texts hold a `\u` form as `\\u`: they are searched as their strings read.
      const outputs: [string, string][] = [
        ['/__mock/violations', stringsOf(seen)],
        ['the log', lines.join('\n')],
        ...written.files.map((file, i): [string, string] => [
          file,
          file.endsWith('.json') ? stringsOf(JSON.parse(reports[i] ?? '') as unknown) : (reports[i] ?? ''),
        ]),
      ];
      for (const form of forms) for (const [where, shown] of outputs) assert.ok(!shown.includes(form), `no ${form} in ${where}`);
      assert.ok(lines.filter((l) => l.includes('server violation getOrderInfo answer.schema')).length === 8, 'one log line per violation');
    } finally {
      await proxy.close();
      upstream.server.closeAllConnections();
      upstream.server.close();
    }
  });

  it('adds no header to the answers, however many violations it has seen', async () => {
    const upstream = await echoingUpstream();
    const proxy = await proxyTo(upstream.url);
    try {
      const direct = await rawRequest(upstream.url, { path: `${ORDER_PATH}A`, headers: { Authorization: 'Bearer t-000001' } });
      for (let i = 0; i < 5; i++) {
        const proxied = await rawRequest(proxy.url, { path: `${ORDER_PATH}A`, headers: { Authorization: 'Bearer t-000001' } });
        assert.deepEqual(Object.keys(proxied.headers).sort(), Object.keys(direct.headers).sort());
      }
    } finally {
      await proxy.close();
      upstream.server.closeAllConnections();
      upstream.server.close();
    }
  });
});

describe('validating proxy: browser safety (as in mock mode)', () => {
  it('refuses a Host that does not name it (421) and a foreign page on /__mock (403); its own pages and tools pass', async () => {
    const upstream = await startMock();
    const proxy = await proxyTo(upstream.url);
    try {
      const rebound = await rawRequest(proxy.url, { path: '/__mock/violations', headers: { Host: 'evil.test' } });
      assert.equal(rebound.status, 421);
      const proxiedRebound = await rawRequest(proxy.url, { path: `${ORDER_PATH}ORD-2026-0001`, headers: { ...AUTH, Host: 'evil.test' } });
      assert.equal(proxiedRebound.status, 421, 'no API request is forwarded for a foreign Host');
      const foreign = await fetch(`${proxy.url}/__mock/violations`, { headers: { Origin: 'http://evil.test' } });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
      const report = await fetch(`${proxy.url}/__mock/report`, { method: 'POST', headers: { Origin: 'http://evil.test' } });
      assert.equal(report.status, 403, 'a foreign page cannot make it write reports');
      assert.equal((await fetch(`${proxy.url}/__mock/violations`)).status, 200, 'a tool (no Origin) reads the violations');
      const own = new URL(proxy.url);
      const same = await fetch(`${proxy.url}/__mock/violations`, { headers: { Origin: `http://${own.host}` } });
      assert.equal(same.status, 200, 'the dashboard (its own origin) reads them');
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe('validating proxy: request targets rebuilt, never forwarded as sent', () => {
  /** An upstream that records every byte it receives and every request it parses, and answers 200 `{}`. */
  async function recordingUpstream(): Promise<{ url: string; bytes: () => string; requests: string[]; close: () => void }> {
    const chunks: Buffer[] = [];
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''} host=${req.headers.host ?? ''}`);
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    server.on('connection', (socket) => socket.on('data', (chunk: Buffer) => chunks.push(chunk)));
    server.on('connect', (req, socket) => {
      requests.push(`CONNECT ${req.url ?? ''}`);
      socket.destroy();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      bytes: () => Buffer.concat(chunks).toString('latin1'),
      requests,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  /** Writes raw bytes to the proxy and reads until it closes: the status and the problem's type. */
  function raw(proxy: MockServer, data: string): Promise<{ status: number; type: string }> {
    return new Promise((resolve, reject) => {
      const socket = createNetConnection({ host: proxy.host, port: proxy.port });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('no close within 5 s')));
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
          type: /"type":"https:\/\/goods\.example\/problems\/([a-z-]+)"/.exec(text)?.[1] ?? '',
        });
      });
      socket.write(data);
    });
  }

  it('refuses absolute-form targets for other servers, paths that leave the --proxy path or hide a dot from one decoding, CONNECT and forbidden framing; forwards only rebuilt origin-form targets', async () => {
    const upstream = await recordingUpstream();
    const proxy = await proxyTo(`${upstream.url}/api`);
    try {
      const own = `127.0.0.1:${proxy.port}`;
      const get = (target: string, host = own) =>
        `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer t-000001\r\nConnection: close\r\n\r\n`;
      const order = `${ORDER_PATH}ORD-1`;
      const refused: [string, string, number, string][] = [
        ['absolute-form, another IP and port', get(`http://127.0.0.2:9999${order}`), 421, 'misdirected-request'],
        ['absolute-form, another port', get(`http://127.0.0.1:1${order}`), 421, 'misdirected-request'],
        ['absolute-form, another host', get(`http://evil.test${order}`), 421, 'misdirected-request'],
        ['absolute-form, https', get(`https://${own}${order}`), 421, 'misdirected-request'],
        ['absolute-form, userinfo', get(`http://u@${own}${order}`), 421, 'misdirected-request'],
        ['absolute-form, a path with ..', get(`http://${own}/../admin`), 400, 'invalid-path'],
        ['..', get('/../admin'), 400, 'invalid-path'],
        ['.. below a contract path', get('/manualProduction/rest/v1/../../../../admin'), 400, 'invalid-path'],
        ['%2e%2e', get('/%2e%2e/admin'), 400, 'invalid-path'],
        ['%2E%2E mixed', get('/manualProduction/.%2E/%2e./admin'), 400, 'invalid-path'],
        ['..%2f', get('/manualProduction/..%2f..%2fadmin'), 400, 'invalid-path'],
        ['backslashes', get('/manualProduction\\..\\..\\admin'), 400, 'invalid-path'],
        ['..;', get('/manualProduction/..;/..;/admin'), 400, 'invalid-path'],
        ['double-encoded dot segments', get('/api/a/%252e%252e/%252e%252e/x'), 400, 'invalid-path'],
        ['overlong UTF-8 slash', get('/api/..%c0%af../x'), 400, 'invalid-path'],
        ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 400, 'invalid-path'],
        ['CONNECT', 'CONNECT 127.0.0.2:9999 HTTP/1.1\r\nHost: 127.0.0.2:9999\r\n\r\n', 400, 'bad-request'],
        ['no version', `GET ${order}\r\nHost: ${own}\r\n\r\n`, 400, 'bad-request'],
        ['no Host', `GET ${order} HTTP/1.1\r\nConnection: close\r\n\r\n`, 400, 'bad-request'],
        ['two Host lines', `GET ${order} HTTP/1.1\r\nHost: ${own}\r\nHost: upstream.test\r\nConnection: close\r\n\r\n`, 400, 'bad-request'],
        [
          'chunked on HTTP/1.0',
          `POST ${TRANSFERS_PATH} HTTP/1.0\r\nHost: ${own}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
          400,
          'bad-request',
        ],
      ];
      for (const [label, request, status, type] of refused) assert.deepEqual(await raw(proxy, request), { status, type }, label);
      assert.deepEqual(upstream.requests, [], 'no refused request reached the upstream');
      assert.equal(upstream.bytes(), '', 'not a byte of them reached the upstream');

      const forwarded: [string, string][] = [
        [get(order), `/api${order}`],
        [get(`http://${own}${order}?x=1`), `/api${order}?x=1`],
        [get(`http://localhost:${proxy.port}${order}`), `/api${order}`],
        [
          get(`/manualProduction/./rest/v1/x/../orders/info/%2e%2e-is-a-name?q=/../`),
          `/api/manualProduction/rest/v1/orders/info/%2e%2e-is-a-name?q=/../`,
        ],
        [get('/a/%2E%2e/b#fragment'), '/api/b'],
      ];
      for (const [request] of forwarded) assert.equal((await raw(proxy, request)).status, 200, request);
      assert.deepEqual(
        upstream.requests,
        forwarded.map(([, target]) => `GET ${target} host=${new URL(upstream.url).host}`),
        'each forwarded request has the rebuilt origin-form target below /api, and the upstream as Host',
      );
      for (const sent of ['127.0.0.2', 'evil.test', 'admin', 'CONNECT', 'HTTP/1.0', 'upstream.test'])
        assert.ok(!upstream.bytes().includes(sent), `${sent} reached the upstream`);
    } finally {
      await proxy.close();
      upstream.close();
    }
  });
});
