import assert from 'node:assert/strict';
import type { MockServer } from './server.js';
import { postJson, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const transfer = (n: number) => ({ fk_lot_id: 2001, source_scancode: `S${n}`, target_scancode: `T${n}`, amount: n + 0.5 });
const sample = (n: number) => ({ fk_lot_id: 2202, fk_user_id: n + 1 });

async function list(server: MockServer, resource: string, session?: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server.url}/__mock/${resource}`, { headers: session ? { 'X-Mock-Session': session } : {} });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  return (await response.json()) as Record<string, unknown>[];
}

describe('mock /__mock: inspection, reset and sessions', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock({ maxSessions: 3 });
  });
  after(() => server.close());

  it('health and the fixture order numbers need no auth', async () => {
    assert.equal((await fetch(`${server.url}/__mock/health`)).status, 200);
    assert.deepEqual(await (await fetch(`${server.url}/__mock/orders`)).json(), ['ORD-2026-0001', 'ORD-2026-0002', 'WE 2026-0003']);
  });

  it('health says how tokens are checked (`any` without --token, `listed` with it), never a token', async () => {
    const health = (await (await fetch(`${server.url}/__mock/health`)).json()) as { status: string; auth: unknown };
    assert.equal(health.status, 'ok');
    assert.deepEqual(health.auth, { tokens: 'any' });
    const listed = await startMock({ tokens: ['health-secret-token'] });
    try {
      const text = await (await fetch(`${listed.url}/__mock/health`)).text();
      assert.deepEqual((JSON.parse(text) as { auth: unknown }).auth, { tokens: 'listed' });
      assert.ok(!text.includes('health-secret-token'));
    } finally {
      await listed.close();
    }
  });

  it('lists recorded objects in creation order exactly as answered, and reset clears them (fixtures stay)', async () => {
    const answered: unknown[] = [];
    for (let n = 1; n <= 3; n++) answered.push(await (await postJson(server, TRANSFERS_PATH, transfer(n))).json());
    const sampleAnswer = await (await postJson(server, SAMPLES_PATH, sample(1))).json();
    assert.deepEqual(await list(server, 'lot-transfers'), answered);
    assert.deepEqual(await list(server, 'test-samples'), [sampleAnswer]);
    const reset = await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } });
    assert.equal(reset.status, 204);
    assert.deepEqual(await list(server, 'lot-transfers'), []);
    assert.deepEqual(await list(server, 'test-samples'), []);
    assert.equal((await fetch(`${server.url}/__mock/orders`)).status, 200);
    const next = (await (await postJson(server, TRANSFERS_PATH, transfer(4))).json()) as { id: number };
    assert.ok(next.id > Math.max(...answered.map((a) => (a as { id: number }).id)), 'ids are not reused after a reset');
  });

  it('answers 404 for an unknown /__mock path and 405 with Allow for a wrong method', async () => {
    assert.equal((await fetch(`${server.url}/__mock/nothing`)).status, 404);
    const wrong = await fetch(`${server.url}/__mock/reset`);
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'POST');
  });

  it('keeps two sessions creating concurrently apart; each sees only its own records', async () => {
    const inSession = (name: string, n: number) =>
      n % 2 === 0
        ? postJson(server, TRANSFERS_PATH, transfer(n), { 'X-Mock-Session': name })
        : postJson(server, SAMPLES_PATH, sample(n), { 'X-Mock-Session': name });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => inSession(i % 4 < 2 ? 'alice' : 'bob', i)));
    assert.ok(answers.every((a) => a.status === 201));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as Record<string, unknown>[];
    for (const name of ['alice', 'bob']) {
      const transfers = await list(server, 'lot-transfers', name);
      const samples = await list(server, 'test-samples', name);
      assert.equal(transfers.length + samples.length, 20, name);
      assert.deepEqual(
        transfers.map((t) => t['id']),
        transfers.map((_, i) => i + 1),
        `${name}: transfer ids 1..n in creation order`,
      );
      assert.deepEqual(
        samples.map((s) => s['sample_number']),
        samples.map((_, i) => `S-${String(i + 1).padStart(6, '0')}`),
      );
      for (const record of [...transfers, ...samples]) assert.ok(bodies.some((b) => JSON.stringify(b) === JSON.stringify(record)));
    }
    const aliceScans = (await list(server, 'lot-transfers', 'alice')).map((t) => t['source_scancode']);
    const bobScans = (await list(server, 'lot-transfers', 'bob')).map((t) => t['source_scancode']);
    assert.equal(aliceScans.filter((s) => bobScans.includes(s)).length, 0);
    // Reset of one session leaves the other alone.
    assert.equal(
      (await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Session': 'alice', 'X-Mock-Reset': '1' } })).status,
      204,
    );
    assert.deepEqual(await list(server, 'lot-transfers', 'alice'), []);
    assert.equal((await list(server, 'lot-transfers', 'bob')).length, 10);
  });

  it('validates the session name and bounds the number of sessions', async () => {
    for (const bad of ['', 'a b', 'x'.repeat(65), 'ünï', 'a/b']) {
      const response = await fetch(`${server.url}/__mock/lot-transfers`, { headers: { 'X-Mock-Session': bad } });
      if (bad === '') {
        // fetch drops nothing: an empty header value is still a header.
        assert.equal(response.status, 400);
        continue;
      }
      assert.equal(response.status, 400, bad);
      assert.equal(((await response.json()) as { type: string }).type, 'https://goods.example/problems/invalid-session');
    }
    // alice and bob exist; maxSessions is 3.
    assert.equal((await postJson(server, SAMPLES_PATH, sample(1), { 'X-Mock-Session': 'carol' })).status, 201);
    const over = await postJson(server, SAMPLES_PATH, sample(1), { 'X-Mock-Session': 'dave' });
    assert.equal(over.status, 429);
    assert.equal(((await over.json()) as { type: string }).type, 'https://goods.example/problems/too-many-sessions');
    assert.deepEqual(await list(server, 'test-samples', 'dave'), []);
    assert.equal((await postJson(server, SAMPLES_PATH, sample(2), { 'X-Mock-Session': 'carol' })).status, 201);
  });
});

describe('mock /__mock listings page (?limit, ?after, Link rel="next")', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock({ maxRecordsPerSession: 30 });
  });
  after(() => server.close());

  it('pages in creation order with a Link to the next page while more remain, and refuses bad parameters', async () => {
    for (let n = 0; n < 25; n++) assert.equal((await postJson(server, TRANSFERS_PATH, transfer(n))).status, 201);
    const seen: number[] = [];
    let next: string | null = '/__mock/lot-transfers?limit=10';
    let pages = 0;
    while (next !== null) {
      const response: Response = await fetch(`${server.url}${next}`);
      assert.equal(response.status, 200);
      const page = (await response.json()) as { id: number }[];
      assert.ok(Array.isArray(page) && page.length <= 10);
      seen.push(...page.map((t) => t.id));
      pages++;
      const link = response.headers.get('link');
      next = link === null ? null : (/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? 'unparsable');
    }
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    const tail = await fetch(`${server.url}/__mock/lot-transfers?after=20`);
    assert.deepEqual(
      ((await tail.json()) as { id: number }[]).map((t) => t.id),
      [21, 22, 23, 24, 25],
    );
    assert.equal(tail.headers.get('link'), null);
    for (const bad of ['limit=0', 'limit=10001', 'limit=x', 'after=-1', 'limit=1&limit=2']) {
      const refused = await fetch(`${server.url}/__mock/lot-transfers?${bad}`);
      assert.equal(refused.status, 400, bad);
      assert.equal(((await refused.json()) as { type: string }).type, 'https://goods.example/problems/invalid-query');
    }
  });

  it('refuses a create past --max-records-per-session with 507 naming the option and the reset; other sessions go on', async () => {
    for (let n = 0; n < 5; n++) assert.equal((await postJson(server, SAMPLES_PATH, sample(n))).status, 201);
    const full = await postJson(server, SAMPLES_PATH, sample(9));
    assert.equal(full.status, 507);
    const problem = (await full.json()) as { type: string; detail: string };
    assert.equal(problem.type, 'https://goods.example/problems/session-full');
    assert.match(problem.detail, /--max-records-per-session/);
    assert.match(problem.detail, /\/__mock\/reset/);
    assert.equal((await postJson(server, SAMPLES_PATH, sample(9), { 'X-Mock-Session': 'other' })).status, 201);
    assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
    assert.equal((await postJson(server, SAMPLES_PATH, sample(9))).status, 201, 'a reset makes room');
  });
});

describe('mock /__mock/reset with --admin-token', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock({ adminToken: 'sesame' });
  });
  after(() => server.close());

  it('requires Authorization: Bearer <admin token> for reset, not for reading', async () => {
    await postJson(server, SAMPLES_PATH, sample(1));
    for (const headers of [{}, { Authorization: 'Bearer dev-token' }, { Authorization: 'Basic sesame' }] as Record<string, string>[]) {
      const denied = await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('content-type'), 'application/problem+json');
    }
    assert.equal((await list(server, 'test-samples')).length, 1);
    assert.equal(
      (await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { Authorization: 'Bearer sesame', 'X-Mock-Reset': '1' } }))
        .status,
      204,
    );
    assert.deepEqual(await list(server, 'test-samples'), []);
  });
});
