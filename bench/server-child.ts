/**
 * The bench's own servers, `server-child KIND`, each printing its URL and stopping on SIGTERM/SIGINT or when the parent goes:
 * `bare`, the ceiling (precomputed answers; no validation, state or logging); `floor`, the least a reverse proxy does on this
 * runtime (the proxy's targets say what our code costs, not a second hop); `proxy` (at `spec`); `mock`, records not capped,
 * answering `{ type: 'memory' }` over IPC with its memory after a full GC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createMockServer } from '../mock/index.js';
import { DEFAULT_PROXY } from '../mock/proxy/config.js';
import { listenOn, type Loopback } from '../support/loopback.js';
import { parseArgv, wholeNumber } from '../util/argv.js';
import type { MemoryReport } from './servers.js';
import { BENCH_TOKEN, benchFixture, buildScenarios } from './scenarios.js';

const USAGE = 'usage: server-child bare | floor --upstream URL | proxy --upstream URL | mock [--port N] [--state-file P] [--store URL]';
const fail = (sentence: string): never => {
  process.stderr.write(`server-child: ${sentence}\n${USAGE}\n`);
  process.exit(2);
};
const text = { type: 'string' } as const;
const options = { upstream: text, port: { ...text, default: '0' }, 'state-file': text, store: text };
const { values, positionals } = parseArgv({ args: process.argv.slice(2), strict: true, allowPositionals: true, options }, fail);
const [kind] = positionals;
const port = wholeNumber(values.port, 0, 65535) ?? fail(`--port must be a port number, not "${values.port}"`);

function bareServer(): Promise<Loopback> {
  const answer = (status: number, text: string) => {
    const body = Buffer.from(text);
    return { status, body, headers: { 'content-type': 'application/json', 'content-length': body.length } };
  };
  const answers = new Map(buildScenarios(benchFixture()).map((s) => [`${s.method} ${s.path}`, answer(s.expectStatus, s.bareAnswer)]));
  const notFound = answer(404, '{"title":"Not found"}');
  const server = createServer((req, res) => {
    const { status, body, headers } = answers.get(`${req.method ?? ''} ${req.url ?? ''}`) ?? notFound;
    if (req.method === 'GET' || req.method === 'HEAD') return void res.writeHead(status, headers).end(body);
    req.on('end', () => res.writeHead(status, headers).end(body)).resume();
  });
  return listenOn(server, port);
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
    const [method, body] = req.method === 'POST' ? (['POST', req] as const) : (['GET', null] as const);
    const relay = pool.stream({ path: req.url ?? '/', method, headers: endToEnd(req.headers), body }, (answer) =>
      res.writeHead(answer.statusCode, endToEnd(answer.headers)),
    );
    relay.catch(() => (res.headersSent ? res : res.writeHead(502)).end());
  });
  const listening = await listenOn(server, port);
  return { ...listening, close: async () => void (await Promise.all([listening.close(), pool.close()])) };
}

/** The mock (with `upstream`: the proxy, its reports in a directory removed on stop); only the bench's token accepted. */
async function mockServer(upstream?: string): Promise<{ url: string; close: () => Promise<void> }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'goods-bench-proxy-'));
  const config = upstream
    ? { proxy: { ...DEFAULT_PROXY, upstream, level: 'spec' as const, outputDir } }
    : { tokens: [BENCH_TOKEN], maxRecordsPerSession: Number.MAX_SAFE_INTEGER, maxRecordedBytes: Number.MAX_SAFE_INTEGER };
  const { 'state-file': stateFile, store } = values;
  const files = { ...(stateFile ? { stateFile } : {}), ...(store ? { store } : {}) };
  const server = await createMockServer({ host: '127.0.0.1', port, quiet: true, ...config, ...files });
  return { url: server.url.replace(/\/$/, ''), close: async () => void (await server.close(), rmSync(outputDir, { recursive: true })) };
}

process.on('message', (message: unknown) => {
  if (typeof message !== 'object' || message === null || !('type' in message) || message.type !== 'memory') return;
  const { gc } = globalThis;
  for (let i = 0; i < 2; i++) gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ type: 'memory', collected: gc !== undefined, rss, heapUsed } satisfies MemoryReport);
});

const upstream = (): string => values.upstream ?? fail(`${kind ?? ''} needs --upstream URL`);
const starts = { bare: bareServer, mock: () => mockServer(), floor: () => floorServer(upstream()), proxy: () => mockServer(upstream()) };
const start = new Map(Object.entries(starts)).get(kind ?? '') ?? fail(`unknown kind ${kind ?? '(none)'}`);
const running = await start();
process.stdout.write(`${running.url}\n`);
let stopping: Promise<never> | undefined;
const stop = (): void =>
  void (stopping ??= running
    .close()
    .catch(() => process.exit(1))
    .then(() => process.exit(0)));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
process.once('disconnect', stop);
