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
 * - `proxy --upstream URL`: `goods-mock --proxy` at the `spec` level through the public API, request
 *   lines off (its reports go to a temporary folder).
 * - `mock [--port N] [--state-file PATH] [--store URL]`: the mock through its public API in its normal configuration,
 *   logging off, records not capped. Over its IPC channel it answers `{ type: 'memory' }` with its
 *   memory after a full GC (`--expose-gc`).
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createMockServer } from '../mock/index.js';
import { DEFAULT_PROXY } from '../mock/proxy/config.js';
import { listenOn, type Loopback } from '../support/loopback.js';
import { parseArgv, wholeNumber } from '../util/argv.js';
import type { MemoryReport } from './servers.js';
import { BENCH_TOKEN, benchFixture, buildScenarios, type Scenario } from './scenarios.js';

const USAGE = 'usage: server-child bare | floor --upstream URL | proxy --upstream URL | mock [--port N] [--state-file P] [--store URL]';
const fail = (sentence: string): never => {
  process.stderr.write(`server-child: ${sentence}\n${USAGE}\n`);
  process.exit(2);
};
const options = {
  upstream: { type: 'string' },
  port: { type: 'string', default: '0' },
  'state-file': { type: 'string' },
  store: { type: 'string' },
} as const;
const { values, positionals } = parseArgv({ args: process.argv.slice(2), strict: true, allowPositionals: true, options }, fail);
const [kind] = positionals;
const port = wholeNumber(values.port, 0, 65535) ?? fail(`--port must be a port number, not "${values.port}"`);

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
    if (req.method === 'GET' || req.method === 'HEAD') return reply();
    req.on('end', reply);
    req.resume();
  });
}

/** The floor: each request relayed through undici's `Pool`, hop-by-hop headers dropped both ways (the bench sends GET and POST only). */
async function floorServer(upstream: string): Promise<Loopback> {
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
  const listening = await listenOn(server, port);
  return { ...listening, close: async () => void (await Promise.all([listening.close(), pool.close()])) };
}

/**
 * The mock (or, with `upstream`, the validating proxy) through its public API. The bench measures
 * throughput and memory per record, not the limits: records and bytes are not capped. Only the bench's
 * token is accepted (as a server would), so the strict conformance run against it can pass: the suite
 * sends tokens derived from its own that must be refused.
 */
async function mockServer(upstream?: string): Promise<{ url: string; close: () => Promise<void> }> {
  const config = upstream
    ? { proxy: { ...DEFAULT_PROXY, upstream, level: 'spec' as const, outputDir: mkdtempSync(join(tmpdir(), 'goods-bench-proxy-')) } }
    : { tokens: [BENCH_TOKEN], maxRecordsPerSession: Number.MAX_SAFE_INTEGER, maxRecordedBytes: Number.MAX_SAFE_INTEGER };
  const { 'state-file': stateFile, store } = values;
  const server = await createMockServer({
    host: '127.0.0.1',
    port,
    quiet: true,
    ...config,
    ...(stateFile ? { stateFile } : {}),
    ...(store ? { store } : {}),
  });
  return { url: server.url.replace(/\/$/, ''), close: () => server.close() };
}

process.on('message', (message: unknown) => {
  if (typeof message !== 'object' || message === null || !('type' in message) || message.type !== 'memory') return;
  const { gc } = globalThis;
  gc?.();
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const report: MemoryReport = { type: 'memory', collected: gc !== undefined, rss, heapUsed };
  process.send?.(report);
});

const running =
  kind === 'bare'
    ? await listenOn(bareServer(buildScenarios(benchFixture())), port)
    : kind === 'mock'
      ? await mockServer()
      : kind !== 'floor' && kind !== 'proxy'
        ? fail(`unknown kind ${kind ?? '(none)'}`)
        : values.upstream === undefined
          ? fail(`${kind} needs --upstream URL`)
          : await (kind === 'floor' ? floorServer : mockServer)(values.upstream);
process.stdout.write(`${running.url}\n`);
let stopping: Promise<never> | undefined;
const stop = (): void =>
  void (stopping ??= running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  ));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', stop);
