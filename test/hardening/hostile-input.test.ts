/**
 * Hostile input: a seeded corpus of at least 2,000 requests against the mock's CLI in a
 * child process. Every request gets the answer the contract prescribes within the timeout (errors as
 * problem+json, never a 5xx, never internals), the process survives, and no rejected request changes
 * the recorded state. A second, in-process mock gets the prototype-related part of the corpus and
 * this process checks that no prototype was polluted.
 */
import assert from 'node:assert/strict';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { buildCorpus } from './support/corpus.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { hardeningSeed } from './support/rng.js';
import { discoverTarget, listings, runCorpus, summary } from './support/run-corpus.js';

const TOKEN = 'hardening-token';
const ADMIN_TOKEN = 'corpus-admin-token';
const CORPUS_SIZE = 2100;

async function seedRecords(baseUrl: string, lotId: number): Promise<void> {
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  for (let i = 0; i < 2; i++) {
    const t = await fetch(`${baseUrl}/goodsReception/rest/v1/lot-transfers/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ fk_lot_id: lotId, source_scancode: `SEED-${i}`, target_scancode: 'T', amount: 1 }),
    });
    const s = await fetch(`${baseUrl}/goodsReception/rest/v1/test-samples/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ fk_lot_id: lotId, fk_user_id: 1 }),
    });
    assert.deepEqual([t.status, s.status], [201, 201]);
  }
}

describe('hardening: hostile input against the mock (CLI in a child process)', function () {
  this.timeout(90_000);
  let mock: MockProcess;
  before(async () => {
    mock = await startMockProcess(['--quiet', '--admin-token', ADMIN_TOKEN]);
  });
  after(() => mock.stop());

  it(`answers ${CORPUS_SIZE} seeded hostile requests as the contract says, survives, and keeps its state`, async () => {
    const seed = hardeningSeed();
    console.log(`      hardening seed ${seed} (set HARDENING_SEED to reproduce another run)`);
    const target = await discoverTarget(mock.url, TOKEN);
    assert.ok(target.lotIds.length > 0, 'the fixtures have lots');
    await seedRecords(mock.url, target.lotIds[0] as number);
    const corpus = buildCorpus(seed, target, CORPUS_SIZE);
    assert.ok(corpus.length >= 2000);
    const report = await runCorpus(corpus, {
      baseUrl: mock.url,
      host: mock.host,
      port: mock.port,
      batchSize: 32,
      timeoutMs: 10_000,
      afterBatch: () => (mock.alive() ? undefined : `the mock process exited; stderr: ${mock.stderr().slice(-2000)}`),
    });
    console.log(`      ${summary(report)}`);
    assert.deepEqual(report.failures.slice(0, 40), [], `${report.failures.length} failures (seed ${seed})`);
    assert.equal(report.tried, corpus.length);
    assert.ok(mock.alive(), 'the mock is still running');
    assert.doesNotMatch(mock.stderr(), /internal error|unhandled|uncaught/i);
    // The seeded records are still there: nothing in the corpus reset or removed them.
    const after = await listings(mock.url);
    assert.ok(after['lot-transfers'].some((r) => r['source_scancode'] === 'SEED-0'));
  });
});

describe('hardening: no prototype pollution (in-process mock)', function () {
  this.timeout(60_000);
  const prototypes: [string, object][] = [
    ['Object.prototype', Object.prototype],
    ['Array.prototype', Array.prototype],
    ['Function.prototype', Function.prototype],
    ['String.prototype', String.prototype],
  ];
  let server: MockServer;
  let before: Map<string, string[]>;
  beforeEach(async () => {
    before = new Map(prototypes.map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]));
    server = await createMockServer({ port: 0, quiet: true });
  });
  afterEach(() => server.close());

  it('prototype members, duplicate keys, deep JSON and prototype-named orders, sessions and admin paths pollute nothing', async () => {
    const target = await discoverTarget(server.url, TOKEN);
    const related = new Set(['prototype members', 'duplicate keys', 'deep JSON', 'percent-encoding', 'odd headers', 'huge numbers']);
    const corpus = buildCorpus(hardeningSeed(), target, CORPUS_SIZE).filter((c) => related.has(c.category));
    assert.ok(corpus.length >= 200, `${corpus.length} prototype-related cases`);
    const report = await runCorpus(corpus, { baseUrl: server.url, host: server.host, port: server.port, batchSize: 32, timeoutMs: 10_000 });
    assert.deepEqual(report.failures.slice(0, 20), []);
    // Sessions with prototype names are ordinary, isolated sessions.
    for (const session of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString']) {
      const created = await fetch(`${server.url}/goodsReception/rest/v1/test-samples/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'X-Mock-Session': session },
        body: JSON.stringify({ fk_lot_id: target.lotIds[0], fk_user_id: 7 }),
      });
      assert.equal(created.status, 201, session);
      const record = (await created.json()) as Record<string, unknown>;
      const listed = (await (
        await fetch(`${server.url}/__mock/test-samples`, { headers: { 'X-Mock-Session': session } })
      ).json()) as unknown[];
      assert.deepEqual(listed, [record], `session ${session} lists exactly its own create`);
    }
    for (const [name, proto] of prototypes)
      assert.deepEqual(Reflect.ownKeys(proto).map(String).sort(), before.get(name), `${name} unchanged`);
    const probe: Record<string, unknown> = {};
    assert.equal(probe['polluted'], undefined);
    assert.equal(([] as unknown as Record<string, unknown>)['polluted'], undefined);
    assert.equal(Object.prototype.toString.call(probe), '[object Object]');
  });
});
