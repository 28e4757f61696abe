/**
 * Independent cross-check: Prism's own validator, in front of the mock as
 * `prism proxy contract/openapi.yaml <mock>`, finds no violation in the mock's answers to a battery of
 * valid and invalid requests for all three operations.
 *
 * Prism with `--errors` answers invalid requests itself (they never reach the mock), so two proxies
 * run: one with `--errors` for the valid requests (a response violation would become a 500
 * VIOLATIONS answer), one without for every request (each violation is reported in the
 * `sl-violations` header, prefixed `response` for the mock's answer). Malformed JSON is not in the
 * battery: Prism parses a JSON body before forwarding and refuses it itself.
 *
 * Prism forwards through Node's global agent, which keeps an idle connection for 5 s, as long as a
 * server's default keep-alive timeout: a request sent as the server closes that connection fails
 * ("socket hang up", a 500 of Prism's own). Both upstreams here keep idle connections for a minute,
 * so Prism's pool always drops a connection first.
 */
import assert from 'node:assert/strict';
import { CONTRACT_YAML_PATH } from '../contract/paths.js';
import { createServer } from 'node:http';
import { listenOn, type Loopback } from '../support/loopback.js';
import { startPrism, type PrismProcess } from '../test/support/prism.js';
import type { MockServer } from './server.js';
import { ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

function startProxy(upstream: string, errors: boolean): Promise<PrismProcess> {
  return startPrism(['proxy', CONTRACT_YAML_PATH, upstream, ...(errors ? ['--errors'] : [])], '/__mock/health');
}

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The status the mock answers (checked directly and through the proxy). */
  status: number;
}

const TOKEN = { Authorization: 'Bearer cross-check' };
const JSON_TOKEN = { ...TOKEN, 'Content-Type': 'application/json' };
const json = (value: unknown) => JSON.stringify(value);
const transfer = { fk_lot_id: 2001, source_scancode: 'SRC-1', target_scancode: 'TGT-1', amount: 12.5 };
const sample = { fk_lot_id: 2202, fk_user_id: 42 };

const BATTERY: Case[] = [
  { name: 'order 1', method: 'GET', path: `${ORDER_PATH}ORD-2026-0001`, headers: TOKEN, status: 200 },
  { name: 'order 2 (empty lists)', method: 'GET', path: `${ORDER_PATH}ORD-2026-0002`, headers: TOKEN, status: 200 },
  { name: 'order with a space', method: 'GET', path: `${ORDER_PATH}WE%202026-0003`, headers: TOKEN, status: 200 },
  { name: 'unknown order', method: 'GET', path: `${ORDER_PATH}ORD-0000`, headers: TOKEN, status: 404 },
  { name: 'order without token', method: 'GET', path: `${ORDER_PATH}ORD-2026-0001`, headers: {}, status: 401 },
  {
    name: 'order, rejected token',
    method: 'GET',
    path: `${ORDER_PATH}ORD-2026-0001`,
    headers: { Authorization: 'Bearer invalid' },
    status: 401,
  },
  { name: 'order, Basic scheme', method: 'GET', path: `${ORDER_PATH}ORD-2026-0001`, headers: { Authorization: 'Basic eDp5' }, status: 401 },
  { name: 'order, Prefer 404', method: 'GET', path: `${ORDER_PATH}ORD-2026-0001`, headers: { ...TOKEN, Prefer: 'code=404' }, status: 404 },
];
for (const [resource, path, valid, full, broken] of [
  ['transfer', TRANSFERS_PATH, transfer, { ...transfer, completed: true, lotnumber: 'MINE' }, { fk_lot_id: 'x', amount: -1, extra: 1 }],
  [
    'sample',
    SAMPLES_PATH,
    sample,
    { ...sample, lotnumber: 'L', sample_number: 'X-1', status: 'DONE', notes: 'n' },
    { fk_user_id: 0, status: 5 },
  ],
] as const) {
  BATTERY.push(
    { name: `${resource}: minimal`, method: 'POST', path, headers: JSON_TOKEN, body: json(valid), status: 201 },
    { name: `${resource}: every member`, method: 'POST', path, headers: JSON_TOKEN, body: json(full), status: 201 },
    {
      name: `${resource}: server-assigned members ignored`,
      method: 'POST',
      path,
      headers: JSON_TOKEN,
      body: json({ ...valid, id: 5, created: '2020-01-01T00:00:00Z', modified: '2020-01-01T00:00:00Z' }),
      status: 201,
    },
    {
      name: `${resource}: charset utf-8`,
      method: 'POST',
      path,
      headers: { ...TOKEN, 'Content-Type': 'application/json; charset=utf-8' },
      body: json(valid),
      status: 201,
    },
    { name: `${resource}: schema violations`, method: 'POST', path, headers: JSON_TOKEN, body: json(broken), status: 400 },
    { name: `${resource}: empty object`, method: 'POST', path, headers: JSON_TOKEN, body: '{}', status: 400 },
    { name: `${resource}: array`, method: 'POST', path, headers: JSON_TOKEN, body: '[1]', status: 400 },
    {
      name: `${resource}: unknown lot`,
      method: 'POST',
      path,
      headers: JSON_TOKEN,
      body: json({ ...valid, fk_lot_id: 999999 }),
      status: 422,
    },
    {
      name: `${resource}: text/plain`,
      method: 'POST',
      path,
      headers: { ...TOKEN, 'Content-Type': 'text/plain' },
      body: 'hello',
      status: 415,
    },
    {
      name: `${resource}: no token`,
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/json' },
      body: json(valid),
      status: 401,
    },
    {
      name: `${resource}: rejected token`,
      method: 'POST',
      path,
      headers: { ...JSON_TOKEN, Authorization: 'Bearer invalid' },
      body: json(valid),
      status: 401,
    },
    {
      name: `${resource}: 2 MiB body`,
      method: 'POST',
      path,
      headers: JSON_TOKEN,
      body: json({ ...valid, notes: 'x'.repeat(2 * 1024 * 1024) }),
      status: 413,
    },
    {
      name: `${resource}: Prefer 422`,
      method: 'POST',
      path,
      headers: { ...JSON_TOKEN, Prefer: 'code=422' },
      body: json(valid),
      status: 422,
    },
  );
}

/** Longer than the 5 s for which Prism's client keeps an idle connection. */
const UPSTREAM_KEEP_ALIVE_MS = 60_000;

function send(base: string, c: Case): Promise<Response> {
  return fetch(`${base}${c.path}`, { method: c.method, headers: c.headers, ...(c.body !== undefined ? { body: c.body } : {}) });
}

describe('cross-check: Prism validates the mock (prism proxy in front of it)', function () {
  this.timeout(120_000);
  let mock: MockServer;
  let checking: PrismProcess | undefined;
  let strict: PrismProcess | undefined;
  let canary: PrismProcess | undefined;
  let broken: Loopback;

  before(async () => {
    mock = await startMock({ keepAliveTimeoutMs: UPSTREAM_KEEP_ALIVE_MS });
    // A server that breaks the contract, to show the check can fail.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"order":{"id":"not a number"}}');
    });
    server.keepAliveTimeout = UPSTREAM_KEEP_ALIVE_MS;
    broken = await listenOn(server);
    [checking, strict, canary] = await Promise.all([
      startProxy(mock.url, false),
      startProxy(mock.url, true),
      startProxy(broken.url, false),
    ]);
  });
  after(async () => {
    await Promise.all([checking?.stop(), strict?.stop(), canary?.stop()]);
    await broken.close();
    await mock.close();
  });

  it('the check can fail: prism proxy reports response violations of a server that breaks the contract', async () => {
    assert.ok(canary);
    const response = await fetch(`${canary.url}${ORDER_PATH}ORD-2026-0001`, { headers: TOKEN });
    const text = await response.text();
    const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as { location: string[] }[];
    assert.ok(violations.filter((v) => v.location[0] === 'response').length >= 3, `${response.status} ${text.slice(0, 300)}`);
  });

  it('the battery covers all three operations with valid and invalid requests', () => {
    for (const path of [ORDER_PATH, TRANSFERS_PATH, SAMPLES_PATH]) {
      const cases = BATTERY.filter((c) => c.path.startsWith(path));
      assert.ok(cases.some((c) => c.status < 300) && cases.some((c) => c.status >= 400), path);
    }
    assert.ok(BATTERY.length >= 30);
  });

  it('the mock answers each request as expected, directly', async () => {
    for (const c of BATTERY) assert.equal((await send(mock.url, c)).status, c.status, c.name);
  });

  it('prism proxy reports no response violation for any answer of the mock (sl-violations)', async () => {
    assert.ok(checking);
    for (const c of BATTERY) {
      const response = await send(checking.url, c);
      await response.arrayBuffer();
      assert.equal(response.status, c.status, `${c.name}: forwarded to the mock`);
      const header = response.headers.get('sl-violations');
      const violations = header ? (JSON.parse(header) as { location: string[]; message: string }[]) : [];
      const ofResponse = violations.filter((v) => v.location[0] === 'response');
      assert.deepEqual(ofResponse, [], `${c.name}: ${header ?? ''}`);
    }
  });

  it('prism proxy --errors turns no valid request into a VIOLATIONS error', async () => {
    assert.ok(strict);
    for (const c of BATTERY.filter((b) => b.status < 300)) {
      const response = await send(strict.url, c);
      const text = await response.text();
      assert.equal(response.status, c.status, `${c.name}: ${text.slice(0, 500)}`);
      assert.equal(response.headers.get('sl-violations'), null, c.name);
    }
  });
});
