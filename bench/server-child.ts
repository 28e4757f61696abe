/**
 * Child-process entry of the bench's own servers: `server-child KIND [options]`, each on a loopback
 * port, printing its URL on stdout, stopping on SIGTERM/SIGINT or when the parent goes away.
 *
 * - `bare`: the ceiling, a `node:http` server answering precomputed bytes: a scenario's GET at once, its
 *   POST after reading the whole body; anything else a 404. No validation, no state, no logging.
 * - `floor --upstream URL`: the least a reverse proxy on this runtime does, `node:http` in front of
 *   undici's `Pool` (keep-alive, pipelining 1, as the validating proxy forwards), no judging, no
 *   recording, no problem answers. The validating proxy is measured against it in the same run, so its
 *   targets say what our code costs, not what a second HTTP hop costs on the machine.
 * - `proxy --upstream URL [--level spec|strict]`: `goods-mock --proxy` through the public API, request
 *   lines off (its reports go to a temporary folder).
 * - `mock [--port N] [--state-file PATH] [--store URL]`: the mock through its public API in its normal
 *   configuration, logging off, records not capped. With an IPC channel it answers `{ type: 'memory' }`
 *   with its memory after a full GC (when started with `--expose-gc`).
 */
import { mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { isLevel } from '../contract/levels.js';
import { createMockServer } from '../mock/index.js';
import { DEFAULT_PROXY } from '../mock/proxy/config.js';
import { wholeNumber } from '../util/argv.js';
import type { MemoryReport } from './mock-memory.js';
import { BENCH_TOKEN, benchFixture, buildScenarios, type Scenario } from './scenarios.js';

const USAGE =
  'usage: server-child bare | floor --upstream URL | proxy --upstream URL [--level L] | mock [--port N] [--state-file P] [--store URL]';
const [kind, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    upstream: { type: 'string' },
    level: { type: 'string', default: 'spec' },
    port: { type: 'string', default: '0' },
    'state-file': { type: 'string' },
    store: { type: 'string' },
  },
  strict: true,
});
const port = wholeNumber(values.port, 0, 65535);
function usage(): never {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
if (port === undefined) usage();

/** A scenario's precomputed answer for `METHOD path`; a 404 for anything else. */
function bareServer(scenarios: readonly Scenario[]): Server {
  const json = (body: Buffer) => ({ 'content-type': 'application/json', 'content-length': body.length });
  const answers = new Map(
    scenarios.map((s) => {
      const body = Buffer.from(s.bareAnswer);
      return [`${s.method} ${s.path}`, { status: s.expectStatus, body, headers: json(body) }];
    }),
  );
  const notFound = Buffer.from('{"title":"Not found"}');
  return createServer((req, res) => {
    const answer = answers.get(`${req.method ?? ''} ${req.url ?? ''}`);
    const reply = (): void => {
      if (answer) res.writeHead(answer.status, answer.headers).end(answer.body);
      else res.writeHead(404, json(notFound)).end(notFound);
    };
    if (req.method === 'GET' || req.method === 'HEAD') {
      reply();
      return;
    }
    req.on('end', reply);
    req.resume();
  });
}

/** The floor: each request relayed through undici's `Pool`, hop-by-hop headers dropped both ways (the bench sends GET and POST only). */
function floorServer(upstream: string): { server: Server; pool: Pool } {
  const pool = new Pool(upstream, { connections: 256, pipelining: 1 });
  const endToEnd = (headers: IncomingHttpHeaders): IncomingHttpHeaders => {
    const kept = { ...headers };
    for (const name of ['connection', 'keep-alive', 'transfer-encoding', 'host']) delete kept[name];
    return kept;
  };
  const server = createServer((req, res) => {
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : req;
    const method = req.method === 'POST' ? 'POST' : 'GET';
    pool
      .stream({ path: req.url ?? '/', method, headers: endToEnd(req.headers), body }, (answer) => {
        res.writeHead(answer.statusCode, endToEnd(answer.headers));
        return res;
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
  return { server, pool };
}

async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

async function start(): Promise<{ url: string; close: () => Promise<void> }> {
  if (kind === 'bare') return listen(bareServer(buildScenarios(benchFixture())));
  if (kind === 'floor' && values.upstream !== undefined) {
    const { server, pool } = floorServer(values.upstream);
    const listening = await listen(server);
    const close = async (): Promise<void> => {
      await Promise.all([listening.close(), pool.close()]);
    };
    return { url: listening.url, close };
  }
  if (kind === 'proxy' && values.upstream !== undefined && isLevel(values.level)) {
    const outputDir = mkdtempSync(join(tmpdir(), 'goods-bench-proxy-'));
    const server = await createMockServer({
      host: '127.0.0.1',
      port: port ?? 0,
      quiet: true,
      proxy: { ...DEFAULT_PROXY, upstream: values.upstream, level: values.level, outputDir },
    });
    return { url: server.url.replace(/\/$/, ''), close: () => server.close() };
  }
  if (kind !== 'mock') usage();
  // The bench measures throughput and memory per record, not the limits: records and bytes are not capped here.
  // Only the bench's token is accepted (as a server would), so the strict conformance run against it can pass:
  // the suite sends tokens derived from its own that must be refused.
  const server = await createMockServer({
    host: '127.0.0.1',
    port: port ?? 0,
    tokens: [BENCH_TOKEN],
    quiet: true,
    ...(values['state-file'] !== undefined ? { stateFile: values['state-file'] } : {}),
    ...(values.store !== undefined ? { store: values.store } : {}),
    maxRecordsPerSession: Number.MAX_SAFE_INTEGER,
    maxRecordedBytes: Number.MAX_SAFE_INTEGER,
  });
  process.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    const report: MemoryReport = { type: 'memory', collected: gc !== undefined, rss, heapUsed, external };
    process.send?.(report);
  });
  return { url: server.url.replace(/\/$/, ''), close: () => server.close() };
}

const running = await start();
process.stdout.write(`${running.url}\n`);
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', stop);
