/**
 * Every answer of the mock is documented: a battery of requests (valid, invalid, every control
 * header, the limits that are cheap to reach, raw HTTP oddities) whose every answer is validated by
 * an independent OpenAPI response validator, express-openapi-validator (not the project's own ajv
 * validators), against the API contract or the mock-control contract (`mock/control.openapi.yaml`).
 * A canary proves that the validator flags an undocumented answer. The battery reaches every limit
 * cheaply (mocks started with tiny limits, a store on a closed port, proxies in front of a mock, of a
 * closed port and of a server that never answers).
 *
 * Two gaps of the validator are closed here: express-openapi-validator skips answers of 500 and more
 * (its response hook passes them through unvalidated), so the relays validate a 5NN answer as 4(NN+50)
 * (503 as 453) against a copy of the contract in which every documented 5NN answer is also listed
 * under that status, which neither contract uses (`shiftServerErrors` checks it); and it
 * does not check response headers, so the headers a documented answer marks `required` are checked
 * here (`headerComplaints`).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { closedPort } from '../support/loopback.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { deref, isObject, readContract, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import { CONTROL_CONTRACT_PATH } from './dashboard.js';
import { DEFAULT_PROXY } from './proxy/config.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, rawRequest, SAMPLES_PATH, startMock, TRANSFERS_PATH, type RawAnswer } from './testing.js';

interface Exchange {
  label: string;
  method: string;
  /** The path the validator routes by (`/unknown-path` for a request that names no path). */
  path: string;
  answer: RawAnswer;
}

const ANSWER_ID = 'x-battery-answer';
const FAILED = 599;
/** The mock-control contract's `/unknown-path`, which stands for every unlisted path. */
const UNKNOWN = '/unknown-path';

/** How far the relays move a 5xx status so that express-openapi-validator validates it (5NN → 4(NN+50)). */
const SHIFT = -50;

/** The status a relay answers for a recorded status: 500-549 moved below the validator's skip (500 and more). */
function relayed(status: number): number {
  if (status >= 550 && status < 600) throw new Error(`the relays cannot validate a ${status} answer`);
  return status >= 500 && status < 550 ? status + SHIFT : status;
}

type Responses = Record<string, unknown>;
type Operations = Record<string, { responses?: Responses } | undefined>;

/** A copy of `document` in which every documented 5NN answer is also documented as `relayed(5NN)` (see the file comment). */
function shiftServerErrors(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  for (const item of Object.values(copy['paths'] as Record<string, Operations>)) {
    for (const operation of Object.values(item)) {
      const responses = operation?.responses;
      if (!responses || typeof responses !== 'object') continue;
      for (const [status, response] of Object.entries(responses)) {
        if (!/^5\d\d$/.test(status)) continue;
        const moved = String(relayed(Number(status)));
        // Several operations share one responses object (YAML anchors): a second visit finds its own copy.
        if (responses[moved] !== undefined && responses[moved] !== response)
          throw new Error(`status ${moved} is documented: the relays cannot move ${status} there`);
        responses[moved] = response;
      }
    }
  }
  return copy;
}

/** The documented answer (`responses[status]`, `$ref` resolved) of `method path` in `document`, if any. */
function documentedAnswer(document: OpenApiDocument, method: string, path: string, status: number): JsonObject | undefined {
  const paths = isObject(document['paths']) ? document['paths'] : {};
  const template = Object.keys(paths).find((key) => key === path || new RegExp(`^${key.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  const operation = template ? deref(document, deref(document, paths[template])?.[method.toLowerCase()]) : undefined;
  return deref(document, deref(document, operation?.['responses'])?.[String(status)]);
}

/**
 * express-openapi-validator checks no response headers: the headers of the documented answer are
 * checked here (present when `required`, matching the schema's `pattern` when sent).
 */
function headerComplaints(document: OpenApiDocument, method: string, path: string, answer: RawAnswer): string[] {
  const headers = deref(document, documentedAnswer(document, method, path, answer.status)?.['headers']) ?? {};
  const found: string[] = [];
  for (const name of Object.keys(headers)) {
    const header = deref(document, headers[name]);
    const value = answer.headers[name.toLowerCase()];
    const pattern = deref(document, header?.['schema'])?.['pattern'];
    if (value === undefined) {
      if (header?.['required'] === true) found.push(`${method} ${path} ${answer.status}: the required header ${name} is missing`);
    } else if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(String(value))) {
      found.push(`${method} ${path} ${answer.status}: the header ${name} ${JSON.stringify(value)} does not match ${pattern}`);
    }
  }
  return found;
}

/** A relay that answers a recorded answer through express-openapi-validator's response validation. */
async function validatorRelay(apiSpec: OpenApiDocument, answers: Map<string, RawAnswer>): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use(
    OpenApiValidator.middleware({
      apiSpec: shiftServerErrors(apiSpec) as never,
      validateRequests: false,
      validateSecurity: false,
      validateResponses: true,
    }),
  );
  app.use((req, res) => {
    const answer = answers.get(String(req.headers[ANSWER_ID]));
    if (!answer) throw new Error('no recorded answer');
    res.status(relayed(answer.status));
    const type = answer.headers['content-type'];
    if (typeof type === 'string') res.type(type);
    const parsed: unknown = answer.body === '' ? undefined : type?.includes('json') ? JSON.parse(answer.body) : answer.body;
    res.json(parsed);
  });
  const onError: ErrorRequestHandler = (error: { message?: string; errors?: unknown }, _req, res, _next) => {
    res.status(FAILED).json({ message: error.message, errors: error.errors });
  };
  app.use(onError);
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server });
    });
  });
}

/** Writes raw bytes on one connection and parses the single answer (status, headers, body). */
function rawExchange(mock: MockServer, data: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: mock.host, port: mock.port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0), headers, body: text.slice(split + 4) });
    });
    socket.write(data);
  });
}

/**
 * express-openapi-validator validates JSON and bodiless answers only (it reports any other media type
 * as "no schema defined"): the few others (the dashboard page and its assets) are checked here
 * against the mock-control contract's status and media type.
 */
function nonJsonComplaints(method: string, path: string, status: number, type: string): string[] {
  const paths = controlDocument['paths'] as Record<string, Record<string, { responses?: Record<string, { content?: object }> }>>;
  const operation =
    paths[path]?.[method.toLowerCase()] ?? paths[path.startsWith('/__mock/assets/') ? '/__mock/assets/{file}' : '']?.[method.toLowerCase()];
  const media = Object.keys(operation?.responses?.[String(status)]?.content ?? {});
  const mediaType = type.split(';', 1)[0]?.trim() ?? '';
  return media.includes(mediaType) || media.includes('*/*')
    ? []
    : [`${method} ${path} ${status} ${type}: not in the mock-control contract`];
}

const controlDocument = readContract(CONTROL_CONTRACT_PATH);
const apiDocument = readContract();

/**
 * An answer of an injected fault the mock-control contract lists as out of contract (`x-faults`): a
 * complete HTTP answer no contract describes (the real status without its body), marked by its
 * `X-Mock-Fault` header. The battery checks those answers itself instead of validating them.
 */
function outOfContract(answer: RawAnswer): boolean {
  const listed = (controlDocument['x-faults'] as Record<string, string[]> | undefined)?.['out-of-contract'] ?? [];
  const kind = /^([a-z]+)(?::[^;]*)?; /.exec(String(answer.headers['x-mock-fault'] ?? ''))?.[1];
  return kind !== undefined && listed.includes(kind);
}

describe('every answer of the mock is documented (express-openapi-validator)', function () {
  this.timeout(120_000);
  const answers = new Map<string, RawAnswer>();
  let api: { url: string; server: Server };
  let control: { url: string; server: Server };
  let mock: MockServer;
  let oneSession: MockServer;
  let guarded: MockServer;
  let slow: MockServer;
  let full: MockServer | undefined;
  const exchanges: Exchange[] = [];
  /** Mocks at their limits, a store that is down, proxies (closed in `after`). */
  const extra: MockServer[] = [];
  let limited: MockServer;
  let noRoom: MockServer;
  let narrow: MockServer;
  let oneConnection: MockServer;
  let storeDown: MockServer;
  let redis: TestRedis | undefined;
  let shared: MockServer;
  /** On the same Redis, waiting 400 ms (its request time limit) for a change's outcome. */
  let sharedImpatient: MockServer;
  let journaled: MockServer;
  let proxy: MockServer;
  let proxyDown: MockServer;
  let proxySlow: MockServer;
  let silent: TcpServer;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'documented-answers-'));
    silent = createTcpServer(() => undefined); // accepts connections, never answers: the proxy's 504
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentAddress = silent.address();
    const silentPort = typeof silentAddress === 'object' && silentAddress ? silentAddress.port : 0;
    const down = await closedPort();
    const proxyOf = (upstream: string, timeoutMs = DEFAULT_PROXY.timeoutMs) => ({
      ...DEFAULT_PROXY,
      upstream,
      timeoutMs,
      outputDir: join(dir, 'reports'),
    });
    api = await validatorRelay(apiDocument, answers);
    control = await validatorRelay(controlDocument, answers);
    mock = await startMock();
    oneSession = await startMock({ maxSessions: 1 });
    guarded = await startMock({ adminToken: 'sesame', corsOrigins: ['http://localhost:5173'] });
    slow = await startMock({ headersTimeoutMs: 300 });
    extra.push(
      (limited = await startMock({ maxRecordsPerSession: 2 })),
      (noRoom = await startMock({ maxRecordedBytes: 64 })),
      (narrow = await startMock({ maxBodyBytesInFlight: 1024 })),
      (oneConnection = await startMock({ maxConnections: 1 })),
      (storeDown = await startMock({ store: `redis://127.0.0.1:${down}/0` })),
      (shared = await startMock({ store: (redis = await startRedis({ appendfsync: 'everysec' })).url })),
      (sharedImpatient = await startMock({ store: redis.url, requestTimeoutMs: 400, headersTimeoutMs: 400 })),
      (journaled = await startMock({ stateFile: join(dir, 'state', 'mock.jsonl') })),
      (proxy = await startMock({ proxy: proxyOf(mock.url) })),
      (proxyDown = await startMock({ proxy: proxyOf(`http://127.0.0.1:${down}`) })),
      (proxySlow = await startMock({ proxy: proxyOf(`http://127.0.0.1:${silentPort}`, 300) })),
    );
    try {
      full = await startMock({ stateFile: '/dev/full' });
    } catch {
      full = undefined; // no /dev/full on this system: the 503 is covered by the journal tests
    }
  });
  after(async () => {
    for (const server of [...extra.reverse(), mock, oneSession, guarded, slow, full]) await server?.close();
    silent.close();
    await redis?.dispose();
    api.server.close();
    control.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Asks the relays whether `answer` is documented; returns the validator's complaints (empty: documented). */
  async function complaints(method: string, path: string, answer: RawAnswer): Promise<string[]> {
    const type = answer.headers['content-type'];
    if (typeof type === 'string' && !type.includes('json') && answer.body !== '')
      return nonJsonComplaints(method, path, answer.status, type);
    const id = String(answers.size);
    answers.set(id, answer);
    const found: string[] = [];
    for (const [name, relay, document] of [
      ['API contract', api, apiDocument],
      ['mock-control contract', control, controlDocument],
    ] as const) {
      const res = await fetch(`${relay.url}${path}`, { method, headers: { [ANSWER_ID]: id } });
      if (res.status !== FAILED) {
        assert.equal(res.status, relayed(answer.status), `${method} ${path}: the relay answered ${res.status}`);
        return headerComplaints(document, method, path, answer);
      }
      found.push(`${name}: ${(await res.text()).slice(0, 300)}`);
    }
    return found;
  }

  /** Sends one request and keeps its answer; `validateAs` is the documented path a request for an unlisted path stands for. */
  async function record(
    label: string,
    target: MockServer,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
    validateAs?: string,
  ) {
    const answer = await rawRequest(target.url, { method, path, headers, ...(body !== undefined ? { body } : {}) });
    exchanges.push({ label, method, path: validateAs ?? path.split('?', 1)[0] ?? path, answer });
    return answer;
  }

  it('answers the whole battery only with documented answers (API contract or mock-control contract)', async () => {
    const order = `${ORDER_PATH}ORD-2026-0001`;
    const sample = JSON.stringify({ fk_lot_id: 2001, fk_user_id: 3 });
    const transfer = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 2 });
    // Order info.
    await record('order', mock, 'GET', order, AUTH);
    await record('unknown order', mock, 'GET', `${ORDER_PATH}NOPE`, AUTH);
    // The validator cannot route an undecodable path: validated as the order it would name.
    await record('bad percent-encoding', mock, 'GET', `${ORDER_PATH}%E0%A4%A`, AUTH, undefined, `${ORDER_PATH}undecodable`);
    await record('no token', mock, 'GET', order);
    await record('rejected token', mock, 'GET', order, { Authorization: 'Bearer invalid' });
    await record('malformed token', mock, 'GET', order, { Authorization: 'Bearer a b' });
    await record('basic scheme', mock, 'GET', order, { Authorization: 'Basic eDp5' });
    for (const code of ['200', '401', '404', '418', 'abc'])
      await record(`order Prefer ${code}`, mock, 'GET', order, { ...AUTH, Prefer: `code=${code}` });
    await record('order Prefer without token', mock, 'GET', `${ORDER_PATH}NOPE`, { Prefer: 'code=200' });
    await record('order latency-free session header', mock, 'GET', order, { ...AUTH, 'X-Mock-Session': 'a b' });
    for (const headers of [AUTH, {}]) await record('HEAD order', mock, 'HEAD', order, headers);
    await record('HEAD unknown order', mock, 'HEAD', `${ORDER_PATH}NOPE`, AUTH);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) await record(`${method} order`, mock, method, order, AUTH);
    await record('OPTIONS order', mock, 'OPTIONS', order);
    await record('preflight order', mock, 'OPTIONS', order, { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET' });
    // Creates.
    for (const [path, body] of [
      [TRANSFERS_PATH, transfer],
      [SAMPLES_PATH, sample],
    ] as const) {
      await record('create', mock, 'POST', path, JSON_AUTH, body);
      await record('create in a session', mock, 'POST', path, { ...JSON_AUTH, 'X-Mock-Session': 'alice' }, body);
      await record('invalid session', mock, 'POST', path, { ...JSON_AUTH, 'X-Mock-Session': 'a b' }, body);
      await record('no token', mock, 'POST', path, { 'Content-Type': 'application/json' }, body);
      await record('many problems', mock, 'POST', path, JSON_AUTH, '{"fk_lot_id":"x","amount":"y","a":1,"b":2,"c":3,"d":4,"e":5}');
      await record('malformed JSON', mock, 'POST', path, JSON_AUTH, '{');
      await record('empty body', mock, 'POST', path, JSON_AUTH, '');
      await record('array body', mock, 'POST', path, JSON_AUTH, '[]');
      await record('not UTF-8', mock, 'POST', path, JSON_AUTH, '\uFFFD');
      await record('read-only null', mock, 'POST', path, JSON_AUTH, JSON.stringify({ ...JSON.parse(body), id: null }));
      await record('unknown lot', mock, 'POST', path, JSON_AUTH, JSON.stringify({ ...JSON.parse(body), fk_lot_id: 999999 }));
      await record('text/plain', mock, 'POST', path, { ...AUTH, 'Content-Type': 'text/plain' }, body);
      await record('no content type', mock, 'POST', path, AUTH, body);
      await record('latin1', mock, 'POST', path, { ...AUTH, 'Content-Type': 'application/json; charset=latin1' }, body);
      await record('declared too large', mock, 'POST', path, { ...JSON_AUTH, 'Content-Length': String(2 * 1024 * 1024) }, '');
      await record('streamed too large', mock, 'POST', path, JSON_AUTH, `{"notes":"${'x'.repeat(1024 * 1024 + 10)}"}`);
      for (const code of ['201', '400', '401', '413', '415', '422', '599', '200']) {
        await record(`create Prefer ${code}`, mock, 'POST', path, { ...JSON_AUTH, Prefer: `code=${code}` }, body);
      }
      await record('Prefer on a refused create', mock, 'POST', path, { Prefer: 'code=201' });
      await record('new session past --max-sessions (first)', oneSession, 'POST', path, { ...JSON_AUTH, 'X-Mock-Session': 'first' }, body);
      await record('new session past --max-sessions', oneSession, 'POST', path, { ...JSON_AUTH, 'X-Mock-Session': 'second' }, body);
      if (full) await record('state file full', full, 'POST', path, JSON_AUTH, body);
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']) await record(`${method} create`, mock, method, path, AUTH);
      await record('preflight create', mock, 'OPTIONS', path, {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,prefer,x-mock-session',
      });
    }
    // /__mock.
    for (const path of [
      '/__mock/health',
      '/__mock/orders',
      '/__mock/lots',
      '/__mock/model',
      '/__mock/lot-transfers',
      '/__mock/test-samples',
    ]) {
      await record(`GET ${path}`, mock, 'GET', path);
      await record(`HEAD ${path}`, mock, 'HEAD', path);
      await record(`POST ${path}`, mock, 'POST', path);
      await record(`${path} foreign origin`, mock, 'GET', path, { Origin: 'http://evil.test' });
      await record(`${path} foreign Host`, mock, 'GET', path, { Host: 'evil.test' });
      await record(`${path} listed origin`, guarded, 'GET', path, { Origin: 'http://localhost:5173' });
    }
    await record('listing of a session', mock, 'GET', '/__mock/test-samples', { 'X-Mock-Session': 'alice' });
    await record('listing of an invalid session', mock, 'GET', '/__mock/test-samples', { 'X-Mock-Session': 'a b' });
    await record('reset', mock, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
    await record('reset a session', mock, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1', 'X-Mock-Session': 'alice' });
    await record('reset without X-Mock-Reset', mock, 'POST', '/__mock/reset');
    await record('reset from a foreign origin', mock, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1', Origin: 'http://evil.test' });
    await record('reset without admin token', guarded, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
    await record('reset with admin token', guarded, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1', Authorization: 'Bearer sesame' });
    await record('GET reset', mock, 'GET', '/__mock/reset');
    await record('preflight reset (listed origin)', guarded, 'OPTIONS', '/__mock/reset', {
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-mock-reset',
    });
    await record('preflight reset (foreign origin)', mock, 'OPTIONS', '/__mock/reset', {
      Origin: 'http://evil.test',
      'Access-Control-Request-Method': 'POST',
    });
    for (const path of [
      '/__mock',
      '/__mock/',
      '/__mock/openapi.json',
      '/__mock/control.json',
      '/__mock/assets/app.js',
      '/__mock/assets/nope.js',
    ]) {
      await record(`GET ${path}`, mock, 'GET', path);
      await record(`HEAD ${path}`, mock, 'HEAD', path);
    }
    await record('POST dashboard', mock, 'POST', '/__mock/');
    // Injected faults (docs/faults.md), per request and per session rule; the fault rules' endpoints.
    const creates = [
      [TRANSFERS_PATH, transfer],
      [SAMPLES_PATH, sample],
    ] as const;
    for (const status of ['500', '502', '503', '504']) {
      const prefer = { Prefer: `fault=status:${status}` };
      await record(`order fault status:${status}`, mock, 'GET', order, { ...AUTH, ...prefer });
      await record(`HEAD order fault status:${status}`, mock, 'HEAD', order, { ...AUTH, ...prefer });
      for (const [path, body] of creates)
        await record(`create fault status:${status}`, mock, 'POST', path, { ...JSON_AUTH, ...prefer }, body);
    }
    for (const fault of ['delay:10', 'delay:5-20', 'drip:100000', 'empty']) {
      await record(`order fault ${fault}`, mock, 'GET', order, { ...AUTH, Prefer: `fault=${fault}` });
      for (const [path, body] of creates)
        await record(`create fault ${fault}`, mock, 'POST', path, { ...JSON_AUTH, Prefer: `fault=${fault}` }, body);
    }
    for (const prefer of ['fault=status:418', 'fault=', 'code=404, fault=drop', 'code=500']) {
      await record(`order Prefer ${prefer}`, mock, 'GET', order, { ...AUTH, Prefer: prefer });
      await record(`create Prefer ${prefer}`, mock, 'POST', SAMPLES_PATH, { ...JSON_AUTH, Prefer: prefer }, sample);
    }
    await record('fault without a token', mock, 'GET', order, { Prefer: 'fault=status:503' });
    // The faults that leave no complete answer: nothing a contract could describe arrives.
    const noAnswer = (controlDocument['x-faults'] as Record<string, string[]>)['no-answer'] ?? [];
    for (const fault of noAnswer)
      await assert.rejects(
        rawRequest(mock.url, { path: order, headers: { ...AUTH, Prefer: `fault=${fault}` } }),
        `${fault}: no complete answer`,
      );
    const faulted = { 'X-Mock-Session': 'faulted' };
    const rule = await record(
      'add a fault rule',
      mock,
      'POST',
      '/__mock/faults',
      { ...faulted, 'Content-Type': 'application/json' },
      '{"fault":"status:503","count":2}',
    );
    await record('create under a fault rule', mock, 'POST', TRANSFERS_PATH, { ...JSON_AUTH, ...faulted }, transfer);
    await record('order under a fault rule', mock, 'GET', order, { ...AUTH, ...faulted });
    await record('order after the fault rule', mock, 'GET', order, { ...AUTH, ...faulted });
    for (const body of ['{"fault":"drip:1","count":0}', '{', '[]', `{"fault":"drop","x":"${'y'.repeat(20_000)}"}`])
      await record('add a bad fault rule', mock, 'POST', '/__mock/faults', { 'Content-Type': 'application/json' }, body);
    await record('add a fault rule as text/plain', mock, 'POST', '/__mock/faults', { 'Content-Type': 'text/plain' }, '{"fault":"drop"}');
    await record(
      'add a fault rule in an invalid session',
      mock,
      'POST',
      '/__mock/faults',
      { 'Content-Type': 'application/json', 'X-Mock-Session': 'a b' },
      '{"fault":"drop"}',
    );
    for (let n = 0; n <= 20; n++)
      await record(
        'add fault rules to the most',
        mock,
        'POST',
        '/__mock/faults',
        { 'Content-Type': 'application/json', 'X-Mock-Session': 'fault-full' },
        '{"fault":"empty"}',
      );
    const id = (JSON.parse(rule.body) as { id: number }).id;
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH'])
      await record(`${method} faults`, mock, method, '/__mock/faults', faulted);
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST'])
      await record(`${method} a fault rule`, mock, method, `/__mock/faults/${id}`, faulted);
    await record('delete a fault rule', mock, 'DELETE', `/__mock/faults/${id}`, faulted);
    await record('delete a fault rule again', mock, 'DELETE', `/__mock/faults/${id}`, faulted);
    await record('delete every fault rule', mock, 'DELETE', '/__mock/faults', { 'X-Mock-Session': 'fault-full' });
    await record('faults from a foreign origin', mock, 'GET', '/__mock/faults', { Origin: 'http://evil.test' });
    await record(
      'add a fault rule without the admin token',
      guarded,
      'POST',
      '/__mock/faults',
      { 'Content-Type': 'application/json' },
      '{"fault":"drop"}',
    );
    await record('delete fault rules without the admin token', guarded, 'DELETE', '/__mock/faults');
    await record(
      'add a fault rule with the admin token',
      guarded,
      'POST',
      '/__mock/faults',
      { 'Content-Type': 'application/json', Authorization: 'Bearer sesame' },
      '{"fault":"drop"}',
    );
    await record('delete fault rules with the admin token', guarded, 'DELETE', '/__mock/faults', { Authorization: 'Bearer sesame' });
    await record('preflight faults (listed origin)', guarded, 'OPTIONS', '/__mock/faults', {
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type',
    });
    // Unknown paths and raw HTTP.
    for (const path of ['/', '/nope', '/a/b/c', '/__mock/nope', '/__mockx/']) {
      await record(`GET ${path}`, mock, 'GET', path, AUTH, undefined, UNKNOWN);
      await record(`OPTIONS ${path}`, mock, 'OPTIONS', path, {}, undefined, UNKNOWN);
    }
    await record('foreign Host on the API', mock, 'GET', order, { ...AUTH, Host: 'rebind.evil.test:4010' });
    const raw = async (label: string, method: string, path: string, data: string | Buffer, target: MockServer = mock) => {
      exchanges.push({ label, method, path, answer: await rawExchange(target, data) });
    };
    await raw(
      'absolute-form target',
      'GET',
      order,
      `GET http://127.0.0.1:${mock.port}${order} HTTP/1.1\r\nHost: x.invalid\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n`,
    );
    await raw('OPTIONS *', 'OPTIONS', UNKNOWN, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await raw('not HTTP', 'GET', UNKNOWN, Buffer.from([0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a]));
    await raw('headers too large', 'GET', UNKNOWN, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'z'.repeat(20_000)}\r\n\r\n`);
    await raw('headers too slow', 'GET', UNKNOWN, 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n', slow);
    // Framing RFC 9112 forbids: 400 bad-request whatever path the request names (validated as one that names none).
    for (const [label, data] of [
      ['no HTTP version', `GET ${order}\r\nHost: 127.0.0.1\r\n\r\n`],
      ['no Host on HTTP/1.1', `GET ${order} HTTP/1.1\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n`],
      ['two Host lines', 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'],
      [
        'chunked on HTTP/1.0',
        `POST ${SAMPLES_PATH} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      ],
      ['CONNECT', 'CONNECT 127.0.0.2:9999 HTTP/1.1\r\nHost: 127.0.0.2:9999\r\n\r\n'],
    ] as const) {
      const method = label.startsWith('chunked') ? 'POST' : 'GET'; // CONNECT: no such method in OpenAPI
      await raw(`refused: ${label}`, method, UNKNOWN, data);
      await raw(`refused in proxy mode: ${label}`, method, UNKNOWN, data, proxy);
    }

    // Paging: `limit`, `after`, `Link: rel="next"`, and 400 invalid-query.
    const pager = { 'X-Mock-Session': 'pager' };
    for (let n = 0; n < 3; n++) await record('create to page', mock, 'POST', SAMPLES_PATH, { ...JSON_AUTH, ...pager }, sample);
    let next: string | undefined = '/__mock/test-samples?limit=2';
    const paged: { id?: unknown }[] = [];
    for (let pages = 0; next !== undefined && pages < 5; pages++) {
      const answer = await record(`page ${pages + 1}`, mock, 'GET', next, pager);
      paged.push(...(JSON.parse(answer.body) as { id?: unknown }[]));
      const link = answer.headers['link'];
      next = typeof link === 'string' ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    }
    assert.deepEqual(
      paged.map((r) => r.id),
      [1, 2, 3],
      'the pages hold every record once, following Link: rel="next"',
    );
    for (const query of ['limit=0', 'limit=10001', 'limit=abc', 'limit=1&limit=2', 'after=-1', 'after=1.5'])
      await record(`listing ?${query}`, mock, 'GET', `/__mock/lot-transfers?${query}`);
    await record('listing ?after past the end', mock, 'GET', '/__mock/lot-transfers?after=999999&limit=1');
    // Limits: records per session, recorded bytes, body bytes in flight, connections.
    for (const [path, body] of [
      [TRANSFERS_PATH, transfer],
      [SAMPLES_PATH, sample],
    ] as const) {
      await record('create within --max-records-per-session', limited, 'POST', path, JSON_AUTH, body);
      await record('create past --max-recorded-bytes', noRoom, 'POST', path, JSON_AUTH, body);
      await record('body past --max-body-bytes-in-flight', narrow, 'POST', path, JSON_AUTH, `{"notes":"${'x'.repeat(80 * 1024)}"}`);
      await record('small body within --max-body-bytes-in-flight', narrow, 'POST', path, JSON_AUTH, body);
      await record('create with the store down', storeDown, 'POST', path, JSON_AUTH, body);
      await record('create on a state file', journaled, 'POST', path, JSON_AUTH, body);
    }
    await record('create past --max-records-per-session', limited, 'POST', SAMPLES_PATH, JSON_AUTH, sample);
    await record('reset makes room', limited, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
    await record('create after the reset', limited, 'POST', SAMPLES_PATH, JSON_AUTH, sample);
    const held: Socket = connect({ host: oneConnection.host, port: oneConnection.port });
    await new Promise<void>((resolve, reject) => {
      held.once('data', () => resolve()); // the first connection is open (and kept alive) once answered
      held.once('error', reject);
      held.write('GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    await raw('connection past --max-connections', 'GET', UNKNOWN, 'GET /__mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', oneConnection);
    held.destroy();
    // Health of each store, and the store down on listings, resets and health.
    for (const [label, target] of [
      ['memory', mock],
      ['journal', journaled],
      ['redis down', storeDown],
    ] as const) {
      await record(`health (${label})`, target, 'GET', '/__mock/health');
      await record(`HEAD health (${label})`, target, 'HEAD', '/__mock/health');
    }
    await record('listing with the store down', storeDown, 'GET', '/__mock/lot-transfers');
    await record('reset with the store down', storeDown, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
    // A real redis-server, up and then stopped.
    for (const state of ['up', 'stopped'] as const) {
      if (state === 'stopped') {
        // Frozen (SIGSTOP) past the request's time limit: a change's outcome is unknown (504), then it thaws.
        redis?.freeze();
        await record('create on frozen Redis', sharedImpatient, 'POST', TRANSFERS_PATH, JSON_AUTH, transfer);
        await record('reset on frozen Redis', sharedImpatient, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
        redis?.thaw();
        assert.deepEqual(
          exchanges.filter((e) => e.label.includes('on frozen Redis')).map((e) => e.answer.status),
          [504, 504],
          'Redis frozen',
        );
        await redis?.stop();
      }
      await record(`create on Redis ${state}`, shared, 'POST', TRANSFERS_PATH, JSON_AUTH, transfer);
      await record(`listing on Redis ${state}`, shared, 'GET', '/__mock/lot-transfers');
      await record(`health on Redis ${state}`, shared, 'GET', '/__mock/health');
      await record(`reset on Redis ${state}`, shared, 'POST', '/__mock/reset', { 'X-Mock-Reset': '1' });
    }
    const redisStatuses = exchanges.filter((e) => e.label.includes('on Redis')).map((e) => e.answer.status);
    assert.deepEqual(redisStatuses, [201, 200, 200, 204, 503, 503, 503, 503], 'Redis up, then stopped');
    // The proxy's /__mock outside proxy mode.
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      await record(`${method} violations outside proxy mode`, mock, method, '/__mock/violations');
      await record(`${method} report outside proxy mode`, mock, method, '/__mock/report');
    }
    await record('report outside proxy mode', mock, 'POST', '/__mock/report');
    // Proxy mode (--proxy): in front of this mock, of a closed port (502) and of a server that never answers (504).
    await record('proxied order', proxy, 'GET', order, AUTH);
    await record('proxied unknown order', proxy, 'GET', `${ORDER_PATH}NOPE`, AUTH);
    await record('proxied create', proxy, 'POST', TRANSFERS_PATH, JSON_AUTH, transfer);
    await record('proxied client violation', proxy, 'POST', SAMPLES_PATH, JSON_AUTH, '{"fk_lot_id":"x"}');
    await record('proxied unknown path', proxy, 'GET', '/nope', AUTH, undefined, UNKNOWN);
    for (const [method, path] of [
      ['GET', '/__mock/health'],
      ['HEAD', '/__mock/health'],
      ['POST', '/__mock/health'],
      ['OPTIONS', '/__mock/health'],
      ['GET', '/__mock/violations'],
      ['HEAD', '/__mock/violations'],
      ['POST', '/__mock/violations'],
      ['OPTIONS', '/__mock/violations'],
      ['POST', '/__mock/report'],
      ['GET', '/__mock/report'],
      ['HEAD', '/__mock/report'],
      ['OPTIONS', '/__mock/report'],
      ['GET', '/__mock/orders'],
      ['GET', '/__mock/lots'],
      ['GET', '/__mock/model'],
      ['GET', '/__mock/lot-transfers'],
      ['POST', '/__mock/reset'],
      ['GET', '/__mock/'],
      ['GET', '/__mock/control.json'],
      ['GET', '/__mock/faults'],
      ['POST', '/__mock/faults'],
      ['DELETE', '/__mock/faults'],
    ] as const)
      await record(`proxy mode ${method} ${path}`, proxy, method, path);
    await record('proxy mode unknown /__mock path', proxy, 'GET', '/__mock/nope', {}, undefined, UNKNOWN);
    // Targets the proxy refuses to forward: another server in absolute-form (421), a path that leaves the --proxy path (400).
    await raw(
      'refused in proxy mode: absolute-form target of another server',
      'GET',
      UNKNOWN,
      `GET http://127.0.0.2:9999${order} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n`,
      proxy,
    );
    for (const path of ['/../x', '/manualProduction/%2e%2e/%2E%2E/x', '/manualProduction/..%2f..%2fx'])
      await raw(
        `refused in proxy mode: ${path}`,
        'GET',
        UNKNOWN,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        proxy,
      );
    const seen = exchanges.find((e) => e.label === 'proxy mode GET /__mock/violations')?.answer;
    const snapshot = JSON.parse(seen?.body ?? '{}') as { total?: number; recent?: unknown[] };
    assert.ok((snapshot.total ?? 0) > 0 && (snapshot.recent ?? []).length > 0, 'the violations answer validated holds violations');
    for (const [label, target] of [
      ['unreachable', proxyDown],
      ['timeout', proxySlow],
    ] as const) {
      await record(`proxied order, upstream ${label}`, target, 'GET', order, AUTH);
      await record(`proxied create, upstream ${label}`, target, 'POST', SAMPLES_PATH, JSON_AUTH, sample);
      await record(`proxied HEAD order, upstream ${label}`, target, 'HEAD', order, AUTH);
      await record(`proxied PUT order, upstream ${label}`, target, 'PUT', order, AUTH);
      await record(`proxied unknown path, upstream ${label}`, target, 'GET', '/nope', AUTH, undefined, UNKNOWN);
      await record(`proxy health, upstream ${label}`, target, 'GET', '/__mock/health');
    }

    const refused = exchanges.filter((e) => e.label.startsWith('refused'));
    assert.deepEqual(
      refused.map((e) => `${e.label} ${e.answer.status}`),
      refused.map((e) => `${e.label} ${e.label.includes('absolute-form target of another') ? 421 : 400}`),
      'the refused framing and, in proxy mode, the refused targets',
    );
    assert.equal(refused.length, 14);
    const undocumented: string[] = [];
    const outside = exchanges.filter((e) => outOfContract(e.answer));
    assert.deepEqual(
      outside.map((e) => `${e.label} ${e.answer.status} ${String(e.answer.headers['content-length'])} ${e.answer.body}`),
      outside.map((e) => `${e.label} ${e.label.startsWith('order') ? 200 : 201} 0 `),
      'the out-of-contract faults (x-faults of the mock-control contract): the real status, no body',
    );
    assert.equal(outside.length, 3);
    for (const exchange of exchanges) {
      assert.ok(exchange.answer.status >= 200, `${exchange.label}: answered`);
      if (outOfContract(exchange.answer)) continue;
      const found = await complaints(exchange.method, exchange.path, exchange.answer);
      if (found.length > 0)
        undocumented.push(`${exchange.label} (${exchange.method} ${exchange.path} -> ${exchange.answer.status}): ${found.join(' | ')}`);
    }
    assert.deepEqual(undocumented, [], `${undocumented.length} of ${exchanges.length} answers are undocumented`);
    const statuses = new Set(exchanges.map((e) => e.answer.status));
    for (const status of [200, 201, 204, 400, 401, 403, 404, 405, 408, 413, 415, 421, 422, 429, 431, 500, 502, 503, 504, 507])
      assert.ok(statuses.has(status), `the battery reaches ${status}`);
    const types = new Set(exchanges.map((e) => /"type":"https:\/\/goods\.example\/problems\/([a-z-]+)"/.exec(e.answer.body)?.[1]));
    for (const type of [
      'invalid-query',
      'session-full',
      'mock-full',
      'mock-busy',
      'store-unavailable',
      'store-outcome-unknown',
      'upstream-unreachable',
      'upstream-timeout',
      'invalid-fault',
      'fault-rules-full',
      'injected-server-error',
      'injected-bad-gateway',
      'injected-unavailable',
      'injected-timeout',
    ])
      assert.ok(types.has(type), `the battery reaches the problem ${type}`);
    const marked = exchanges.filter((e) => e.answer.headers['x-mock-fault'] !== undefined);
    assert.ok(marked.length >= 30, `${marked.length} faulted answers, each marked`);
    for (const exchange of exchanges.filter((e) => /"type":"[^"]+\/injected-/.test(e.answer.body)))
      assert.match(String(exchange.answer.headers['x-mock-fault']), /^status:5\d\d; (prefer|rule=\d+)$/, `${exchange.label}: X-Mock-Fault`);
    for (const exchange of exchanges.filter((e) =>
      /^\{"type":"[^"]+\/(mock-busy|store-unavailable|injected-unavailable)"/.test(e.answer.body),
    ))
      assert.match(String(exchange.answer.headers['retry-after']), /^\d+$/, `${exchange.label}: Retry-After`);
    assert.ok(exchanges.length >= 240, `${exchanges.length} exchanges`);
  });

  it('canary: the validator flags answers the contracts do not document', async () => {
    const problem = (type: string, status: number) =>
      JSON.stringify({ type: `https://goods.example/problems/${type}`, title: 't', status, detail: 'd' });
    const undocumented: [string, string, RawAnswer][] = [
      ['GET', `${ORDER_PATH}X`, { status: 418, headers: { 'content-type': 'application/problem+json' }, body: problem('teapot', 418) }],
      ['GET', `${ORDER_PATH}X`, { status: 200, headers: { 'content-type': 'application/json' }, body: '{"order":{}}' }],
      ['POST', SAMPLES_PATH, { status: 400, headers: { 'content-type': 'application/problem+json' }, body: problem('invalid-body', 400) }],
      ['POST', SAMPLES_PATH, { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"one"}' }],
      ['GET', '/__mock/health', { status: 404, headers: { 'content-type': 'application/problem+json' }, body: problem('not-found', 404) }],
      [
        'POST',
        '/__mock/reset',
        { status: 403, headers: { 'content-type': 'application/problem+json' }, body: problem('unauthorized', 403) },
      ],
      ['GET', '/__mock/lots', { status: 200, headers: { 'content-type': 'application/json' }, body: '[{"id":"x"}]' }],
      ['GET', '/__mock/', { status: 200, headers: { 'content-type': 'text/plain' }, body: 'hello' }],
      ['GET', UNKNOWN, { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }],
      // 5xx answers (moved past the validator's skip) and required headers are checked too.
      ['GET', '/__mock/lots', { status: 503, headers: { 'content-type': 'application/problem+json' }, body: problem('mock-busy', 503) }],
      ['POST', SAMPLES_PATH, { status: 507, headers: { 'content-type': 'application/problem+json' }, body: problem('not-found', 507) }],
      ['GET', '/__mock/health', { status: 503, headers: { 'content-type': 'application/json' }, body: '{"status":"ok"}' }],
      [
        'GET',
        `${ORDER_PATH}X`,
        { status: 502, headers: { 'content-type': 'application/problem+json' }, body: problem('upstream-timeout', 502) },
      ],
      ['GET', `${ORDER_PATH}X`, { status: 503, headers: { 'content-type': 'application/problem+json' }, body: problem('mock-busy', 503) }],
      [
        'GET',
        '/__mock/lot-transfers',
        { status: 503, headers: { 'content-type': 'application/problem+json' }, body: problem('store-unavailable', 503) },
      ],
      [
        'GET',
        '/__mock/lot-transfers',
        { status: 400, headers: { 'content-type': 'application/problem+json' }, body: problem('bad-request', 400) },
      ],
      // A listing (a read) never answers that a change's outcome is unknown.
      [
        'GET',
        '/__mock/lot-transfers',
        { status: 504, headers: { 'content-type': 'application/problem+json' }, body: problem('store-outcome-unknown', 504) },
      ],
      ['GET', '/__mock/violations', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"total":1}' }],
      [
        'GET',
        '/__mock/lot-transfers',
        { status: 200, headers: { 'content-type': 'application/json', link: '</x>; rel="prev"' }, body: '[]' },
      ],
      ['POST', '/__mock/report', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"files":[]}' }],
      // An injected server error is documented only with its own type; a real answer without its body only as a marked fault.
      [
        'GET',
        `${ORDER_PATH}X`,
        {
          status: 503,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
          body: problem('injected-server-error', 503),
        },
      ],
      [
        'POST',
        SAMPLES_PATH,
        { status: 500, headers: { 'content-type': 'application/problem+json' }, body: problem('injected-unavailable', 500) },
      ],
      ['GET', `${ORDER_PATH}X`, { status: 200, headers: { 'content-type': 'application/json', 'content-length': '0' }, body: '' }],
      ['GET', '/__mock/faults', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"session":"default","rules":[]}' }],
      [
        'POST',
        '/__mock/faults',
        {
          status: 201,
          headers: { 'content-type': 'application/json' },
          body: '{"id":1,"fault":"drop","operations":[],"remaining":null,"hits":0,"expiresAt":"2026-01-01T00:00:00Z"}',
        },
      ],
      [
        'POST',
        '/__mock/faults',
        { status: 429, headers: { 'content-type': 'application/problem+json' }, body: problem('too-many-sessions', 429) },
      ],
      [
        'GET',
        `${ORDER_PATH}X`,
        {
          status: 503,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '1', 'x-mock-fault': 'status:503; always' },
          body: problem('injected-unavailable', 503),
        },
      ],
    ];
    for (const [method, path, answer] of undocumented) {
      assert.equal(outOfContract(answer), false);
      assert.notDeepEqual(await complaints(method, path, answer), [], `${method} ${path} ${answer.status} ${answer.body}`);
    }
    // Only a marker naming an out-of-contract fault takes an answer out of the validation.
    const empty = { status: 200, headers: { 'content-type': 'application/json', 'content-length': '0' }, body: '' };
    assert.equal(outOfContract({ ...empty, headers: { ...empty.headers, 'x-mock-fault': 'empty; prefer' } }), true);
    for (const marker of ['delay:10; prefer', 'drip:100; rule=2', 'status:503; prefer', 'emptyish; prefer', 'truncate; prefer'])
      assert.equal(outOfContract({ ...empty, headers: { ...empty.headers, 'x-mock-fault': marker } }), false, marker);
  });
});
