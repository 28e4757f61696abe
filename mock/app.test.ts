/**
 * mock/app.ts (`createMockApp`) on a plain loopback server of its own (no `createMockServer`: no
 * connection limits, no time-outs): the order of the request path's stages (a request wrong at
 * several stages gets the answer of the earliest: framing, Host, route, security, media type,
 * validation, the lot, then Prefer), `/__mock` and OPTIONS answered before routing, what it serves,
 * a Prism-fallback operation, the contract checks at start, the log line, and close.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract, type JsonObject } from '../contract/document.js';
import { operationsModel, withOrder } from '../contract/operations-model.js';
import { listenOn, type Loopback } from '../support/loopback.js';
import { createMockApp, type MockApp } from './app.js';
import { resolveConfig, type MockConfig } from './config.js';
import { PROBLEMS } from './problems.js';

const model = withOrder(operationsModel(readContract()));
const [transfers] = model.creates;
if (!transfers) throw new Error('the contract has no create operation');
const ORDER = model.orderInfo.path.replace(/\{[^}]+\}/, 'ORD-2026-0001');
const CREATE = transfers.path;
const TOKEN = 'Bearer app-test';
const VALID = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1 });

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends exact bytes on a fresh connection and reads one answer (the connection closes after it). */
function raw(port: number, text: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = all.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    // Not half-closed: the server closes the connection after its answer (Connection: close).
    socket.write(text);
  });
}

/** An HTTP/1.1 request with `Connection: close` (and Host unless `host` is null). */
function request(method: string, path: string, headers: Record<string, string> = {}, body = '', host: string | null = '127.0.0.1'): string {
  const lines = [`${method} ${path} HTTP/1.1`, ...(host === null ? [] : [`Host: ${host}`]), 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

function serve(app: MockApp): Promise<Loopback> {
  return listenOn(createServer({ requireHostHeader: false }, (req, res) => app.handle(req, res)));
}

function config(partial: Partial<MockConfig> = {}): MockConfig {
  return resolveConfig({ port: 0, quiet: true, log: () => undefined, ...partial });
}

describe('mock/app: createMockApp', () => {
  let app: MockApp;
  let server: Loopback;
  let port = 0;
  before(async () => {
    app = await createMockApp(config());
    server = await serve(app);
    port = server.port;
  });
  after(async () => {
    await server.close();
    await app.close();
  });

  it('answers a request wrong at several stages with the earliest: framing, Host, route, security, media type, JSON, schema, lot, Prefer', async () => {
    const json = { Authorization: TOKEN, 'Content-Type': 'application/json' };
    const rows: [string, string, number, string][] = [
      ['no Host on HTTP/1.1, an unknown path, no token', request('GET', '/nothing', {}, '', null), 400, PROBLEMS.badRequest.type],
      [
        'a foreign Host, an unknown path, no token',
        request('GET', '/nothing', {}, '', 'evil.example'),
        421,
        PROBLEMS.misdirectedRequest.type,
      ],
      ['an unknown path, no token', request('GET', '/nothing'), 404, PROBLEMS.notFound.type],
      [
        'a known path, another method, no token',
        request('PUT', CREATE, { 'Content-Type': 'text/plain' }, '{'),
        405,
        PROBLEMS.methodNotAllowed.type,
      ],
      [
        'no token, text/plain, broken JSON, Prefer: code=201',
        request('POST', CREATE, { 'Content-Type': 'text/plain', Prefer: 'code=201' }, '{'),
        401,
        PROBLEMS.unauthorized.type,
      ],
      [
        'text/plain, broken JSON',
        request('POST', CREATE, { Authorization: TOKEN, 'Content-Type': 'text/plain' }, '{'),
        415,
        PROBLEMS.unsupportedMediaType.type,
      ],
      ['broken JSON, Prefer: code=201', request('POST', CREATE, { ...json, Prefer: 'code=201' }, '{'), 400, PROBLEMS.malformedJson.type],
      [
        'a body against the schema, Prefer: code=422',
        request('POST', CREATE, { ...json, Prefer: 'code=422' }, '{}'),
        400,
        PROBLEMS.invalidBody.type,
      ],
      [
        'an unknown lot, Prefer: an undocumented code',
        request('POST', CREATE, { ...json, Prefer: 'code=418' }, VALID.replace('2001', '999999')),
        422,
        PROBLEMS.unknownLot.type,
      ],
      [
        'a valid create, Prefer: an undocumented code',
        request('POST', CREATE, { ...json, Prefer: 'code=418' }, VALID),
        400,
        PROBLEMS.invalidPrefer.type,
      ],
    ];
    for (const [what, text, status, type] of rows) {
      const answer = await raw(port, text);
      assert.equal(answer.status, status, what);
      assert.equal(answer.headers['content-type'], 'application/problem+json', what);
      assert.equal((JSON.parse(answer.body) as { type: string }).type, type, what);
    }
    // Only a request that passes every stage is answered by Prefer (a documented error) or recorded.
    const preferred = await raw(port, request('POST', CREATE, { ...json, Prefer: 'code=422' }, VALID));
    assert.equal(preferred.status, 422);
    const listing = await raw(port, request('GET', `/__mock/${CREATE.split('/').at(-2) ?? ''}`));
    assert.equal(listing.status, 200);
    assert.equal(listing.body, '[]', 'nothing was recorded by any of them');
    assert.equal((await raw(port, request('POST', CREATE, json, VALID))).status, 201);
  });

  it('answers /__mock and OPTIONS before routing and security', async () => {
    const health = await raw(port, request('GET', '/__mock/health'));
    assert.equal(health.status, 200, health.body);
    const options = await raw(port, request('OPTIONS', ORDER));
    assert.equal(options.status, 204);
    assert.equal(options.headers['allow'], 'GET, HEAD, OPTIONS');
    const preflight = await raw(
      port,
      request('OPTIONS', CREATE, { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST' }),
    );
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers['access-control-allow-methods'] ?? '', /POST/);
    assert.equal((await raw(port, request('OPTIONS', '/nothing'))).status, 404);
  });

  it('tells what it serves: the fixture orders, their lots, no Prism operation for the bundled contract', () => {
    assert.ok(app.orderNumbers.includes('ORD-2026-0001'));
    assert.ok(app.lotIds.includes(2001));
    assert.deepEqual(app.prismOperations, []);
  });
});

describe('mock/app: contracts beyond the bundled one', function () {
  // The first operation Prism answers imports Prism (an optional peer, loaded when needed) inside the
  // test: about 2 s of CPU, far more of wall time on a loaded machine.
  this.timeout(90_000);
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mock-app-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  async function contractFile(change: (doc: JsonObject & { paths: Record<string, Record<string, JsonObject>> }) => void): Promise<string> {
    const doc = structuredClone(readContract()) as JsonObject & { paths: Record<string, Record<string, JsonObject>> };
    change(doc);
    const file = join(folder, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    return file;
  }

  it('answers an operation without a stateful handler by Prism, reading its body as JSON or, when broken, as text', async () => {
    const path = '/goodsReception/rest/v1/notes/create';
    const contractPath = await contractFile((doc) => {
      doc.paths[path] = {
        post: {
          operationId: 'createNote',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
          },
          responses: {
            '201': { description: 'Created.', content: { 'application/json': { schema: { type: 'object' }, example: { noted: true } } } },
            '422': { description: 'Invalid.', content: { 'application/problem+json': { schema: { type: 'object' } } } },
          },
        },
      };
    });
    const app = await createMockApp(config({ contractPath }));
    const { close, port } = await serve(app);
    try {
      assert.deepEqual(app.prismOperations, ['createNote']);
      const json = { Authorization: TOKEN, 'Content-Type': 'application/json' };
      const created = await raw(port, request('POST', path, json, '{"text":"hi"}'));
      assert.equal(created.status, 201);
      assert.deepEqual(JSON.parse(created.body), { noted: true });
      const broken = await raw(port, request('POST', path, json, '{"text":'));
      assert.ok(broken.status >= 400 && broken.status < 500, `a broken body is a client error: ${broken.status} ${broken.body}`);
      // The stateful operations keep their own handlers.
      assert.equal((await raw(port, request('POST', CREATE, json, VALID))).status, 201);
    } finally {
      await close();
      await app.close();
    }
  });

  it('serves a POST operation without a success answer through Prism: it is no create of the operations model', async () => {
    const contractPath = await contractFile((doc) => {
      const responses = doc.paths[CREATE]?.['post']?.['responses'] as Record<string, unknown>;
      delete responses['201'];
    });
    const app = await createMockApp(config({ contractPath }));
    try {
      assert.deepEqual(app.prismOperations, [transfers.operationId]);
      assert.ok(!app.resources.includes('lot-transfers'), app.resources.join(', '));
    } finally {
      await app.close();
    }
  });

  it('logs one line per request unless quiet, its target made printable and cut at 200 characters', async () => {
    const logged: string[] = [];
    const app = await createMockApp(config({ quiet: false, log: (line) => logged.push(line) }));
    const { close, port } = await serve(app);
    try {
      await raw(port, request('GET', ORDER, { Authorization: TOKEN }));
      await raw(port, request('GET', `/${'x'.repeat(300)}`));
      assert.equal(logged.length, 2, logged.join('\n'));
      assert.match(logged[0] ?? '', new RegExp(`^GET ${ORDER.replace(/[/.]/g, '\\$&')} 200 \\d+\\.\\dms$`));
      assert.match(logged[1] ?? '', new RegExp(`^GET /${'x'.repeat(199)}\\.\\.\\. 404 \\d+\\.\\dms$`));
    } finally {
      await close();
      await app.close();
    }
    const quiet: string[] = [];
    const silent = await createMockApp(config({ log: (line) => quiet.push(line) }));
    const served = await serve(silent);
    try {
      await raw(served.port, request('GET', ORDER, { Authorization: TOKEN }));
      assert.deepEqual(quiet, []);
    } finally {
      await served.close();
      await silent.close();
    }
  });

  it('close releases the store: a second app can then open the same state file and sees what the first recorded', async () => {
    const stateFile = join(folder, 'state.jsonl');
    const first = await createMockApp(config({ stateFile }));
    const served = await serve(first);
    try {
      const json = { Authorization: TOKEN, 'Content-Type': 'application/json' };
      assert.equal((await raw(served.port, request('POST', CREATE, json, VALID))).status, 201);
      await assert.rejects(createMockApp(config({ stateFile })), /lock|in use|held/i, 'the state file is locked while the first app runs');
    } finally {
      await served.close();
      await first.close();
    }
    const second = await createMockApp(config({ stateFile }));
    const again = await serve(second);
    try {
      const listing = await raw(again.port, request('GET', `/__mock/${CREATE.split('/').at(-2) ?? ''}`));
      assert.equal((JSON.parse(listing.body) as unknown[]).length, 1);
    } finally {
      await again.close();
      await second.close();
    }
  });
});
