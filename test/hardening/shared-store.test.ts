/**
 * One team mock served by several replicas on one real Redis (Debian's redis-server on a
 * free loopback port, no mock of Redis). Replicas are the mock CLI in child processes, so a replica
 * or Redis can be killed with SIGKILL in the middle of creates.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { CREATE_PATHS, type Resource } from './support/corpus-types.js';
import { until } from '../../support/wait.js';
import { runMockToExit, startMockProcess, type MockProcess } from './support/mock-process.js';
import { postJson } from './support/post-json.js';
import { discoverTarget, RESOURCES } from './support/run-corpus.js';

const TOKEN = 'shared-token';
const CREATES = 2000;
type Row = Record<string, unknown>;

function body(resource: Resource, lot: number, i: number, tag: string): string {
  return JSON.stringify(
    resource === 'lot-transfers'
      ? { fk_lot_id: lot, source_scancode: `${tag}-${i}`, target_scancode: 'T', amount: i + 1 }
      : { fk_lot_id: lot, fk_user_id: i + 1, notes: `${tag}-${i}` },
  );
}

async function list(url: string, resource: Resource, session?: string): Promise<Row[]> {
  const rows: Row[] = [];
  let next: string | undefined = `/__mock/${resource}?limit=500`;
  while (next !== undefined) {
    const response: Response = await fetch(`${url}${next}`, { headers: session ? { 'X-Mock-Session': session } : {} });
    assert.equal(response.status, 200, `GET ${next} on ${url}`);
    rows.push(...((await response.json()) as Row[]));
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return rows;
}

async function create(url: string, resource: Resource, lot: number, i: number, session?: string): Promise<Response> {
  return fetch(`${url}${CREATE_PATHS[resource]}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...(session ? { 'X-Mock-Session': session } : {}) },
    body: body(resource, lot, i, session ?? 'default'),
  });
}

/** Creates until stopped, spread over the replicas; answers every 201 record and every failure status. */
function creator(urls: string[], lot: number, session: string) {
  const acknowledged: Row[] = [];
  const failures = new Map<number | string, number>();
  let running = true;
  const loops = Array.from({ length: 6 }, async (_, worker) => {
    for (let i = 0; running; i++) {
      const url = urls[(worker + i) % urls.length] ?? '';
      try {
        const answer = await create(url, 'lot-transfers', lot, worker * 100_000 + i, session);
        if (answer.status === 201) acknowledged.push((await answer.json()) as Row);
        else {
          await answer.arrayBuffer();
          failures.set(answer.status, (failures.get(answer.status) ?? 0) + 1);
        }
      } catch {
        failures.set('connection', (failures.get('connection') ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
  return {
    acknowledged,
    failures,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

function ids(rows: Row[]): number[] {
  return rows.map((row) => Number(row['id']));
}

describe('hardening: a shared team mock, 3 replicas on one real Redis', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let replicas: MockProcess[] = [];
  let lot: number;
  const urls = () => replicas.map((replica) => replica.url);
  before(async () => {
    redis = await startRedis({ appendfsync: 'always' });
    replicas = await Promise.all(
      [0, 1, 2].map(() => startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'team', '--max-sessions', '20'])),
    );
    lot = (await discoverTarget(replicas[0]?.url ?? '', TOKEN)).lotIds[0] ?? 0;
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.dispose();
  });

  it('refuses --store together with --state-file (exit 2, a usage error)', async () => {
    const run = await runMockToExit(['--port', '0', '--store', redis.url, '--state-file', 'never-written.jsonl']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--store and --state-file exclude each other/);
  });

  it('answers 2,000 concurrent creates spread over the replicas 201, ids unique and gapless, listed identically everywhere', async () => {
    const agents = replicas.map(() => new Agent({ keepAlive: true, maxSockets: 16 }));
    try {
      const answers = await Promise.all(
        Array.from({ length: CREATES }, (_, i) => {
          const r = i % replicas.length;
          const resource: Resource = i % 3 === 0 ? 'test-samples' : 'lot-transfers';
          return postJson(agents[r] as Agent, new URL(urls()[r] ?? ''), CREATE_PATHS[resource], body(resource, lot, i, 'LOAD'), TOKEN).then(
            (answer) => ({ resource, i, ...answer }),
          );
        }),
      );
      const statuses = new Map<number, number>();
      for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      assert.deepEqual([...statuses], [[201, CREATES]], 'every create answered 201');
      for (const resource of RESOURCES) {
        const answered = answers.filter((a) => a.resource === resource).map((a) => JSON.parse(a.body) as Row);
        const sorted = ids(answered).sort((x, y) => x - y);
        assert.deepEqual(
          sorted,
          Array.from({ length: answered.length }, (_, k) => k + 1),
          `${resource}: ids 1..${answered.length}`,
        );
        const listings = await Promise.all(urls().map((url) => list(url, resource)));
        for (const listing of listings) assert.deepEqual(listing, listings[0], `${resource}: every replica lists the same`);
        assert.deepEqual(ids(listings[0] ?? []), sorted, `${resource}: listed in creation (id) order`);
        const byId = new Map(answered.map((row) => [row['id'], row]));
        for (const row of listings[0] ?? []) assert.deepEqual(row, byId.get(row['id']), 'listed exactly as answered');
      }
      const samples = answers.filter((a) => a.resource === 'test-samples').map((a) => (JSON.parse(a.body) as Row)['sample_number']);
      assert.equal(new Set(samples).size, samples.length, 'sample numbers unique');
      process.stdout.write(
        `      ${CREATES} creates over ${replicas.length} replicas: ${JSON.stringify([...statuses])}; ${CREATES - samples.length} transfers and ${samples.length} samples, listed alike on every replica\n`,
      );
    } finally {
      for (const agent of agents) agent.destroy();
    }
  });

  it('keeps sessions apart across replicas, counts the session limit over all of them, and resets through one for all', async () => {
    const [a, b, c] = urls() as [string, string, string];
    assert.equal((await create(a, 'lot-transfers', lot, 1, 'alice')).status, 201);
    assert.equal((await create(b, 'lot-transfers', lot, 2, 'bob')).status, 201);
    assert.equal((await create(c, 'lot-transfers', lot, 3, 'alice')).status, 201);
    for (const url of [a, b, c]) {
      assert.deepEqual(ids(await list(url, 'lot-transfers', 'alice')), [1, 2], 'alice has her two, from two replicas');
      assert.deepEqual(ids(await list(url, 'lot-transfers', 'bob')), [1], 'bob only his own');
    }
    const reset = await fetch(`${b}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Session': 'alice', 'X-Mock-Reset': '1' } });
    assert.equal(reset.status, 204);
    for (const url of [a, b, c]) assert.deepEqual(await list(url, 'lot-transfers', 'alice'), [], 'the reset is seen by every replica');
    assert.equal(((await (await create(c, 'lot-transfers', lot, 4, 'alice')).json()) as Row)['id'], 3, 'ids keep counting after a reset');
    assert.deepEqual(ids(await list(a, 'lot-transfers', 'bob')), [1], 'the reset of alice left bob alone');
    // The session limit counts the sessions of every replica: two replicas sharing a prefix, --max-sessions 2.
    const limited = await Promise.all(
      [0, 1].map(() => startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'limited', '--max-sessions', '2'])),
    );
    try {
      const [x, y] = limited.map((replica) => replica.url) as [string, string];
      assert.equal((await create(x, 'test-samples', lot, 1, 's1')).status, 201);
      assert.equal((await create(y, 'test-samples', lot, 2, 's2')).status, 201);
      for (const url of [x, y]) {
        const refused = await create(url, 'test-samples', lot, 3, 's3');
        assert.equal(refused.status, 429, 'a third session, on either replica');
        assert.match(((await refused.json()) as Row)['detail'] as string, /--max-sessions/);
      }
      assert.equal((await create(x, 'test-samples', lot, 4, 's2')).status, 201, 'an existing session, created on the other replica');
      assert.equal((await create(y, 'test-samples', lot, 5)).status, 201, 'the default session never counts');
    } finally {
      await Promise.all(limited.map((replica) => replica.stop()));
    }
  });

  it('shows on one replica (what its dashboard reads) the records created through another', async () => {
    const [a, , c] = urls() as [string, string, string];
    const created = (await (await create(a, 'test-samples', lot, 7, 'dash')).json()) as Row;
    const page = await fetch(`${c}/__mock/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const seen = await list(c, 'test-samples', 'dash');
    assert.deepEqual(seen, [created]);
  });

  it('loses no acknowledged create when a replica is killed with SIGKILL during creates', async () => {
    const load = creator(urls(), lot, 'replica-kill');
    try {
      await until(() => load.acknowledged.length >= 100, { what: 'some creates acknowledged', timeoutMs: 15_000, intervalMs: 100 });
      await replicas[1]?.kill();
      await until(() => load.acknowledged.length >= 300, { what: 'more creates after the kill', timeoutMs: 15_000, intervalMs: 100 });
    } finally {
      await load.stop();
    }
    const survivors = [urls()[0] ?? '', urls()[2] ?? ''];
    const listed = await list(survivors[0] ?? '', 'lot-transfers', 'replica-kill');
    assert.deepEqual(await list(survivors[1] ?? '', 'lot-transfers', 'replica-kill'), listed);
    const byId = new Map(listed.map((row) => [row['id'], row]));
    for (const row of load.acknowledged) assert.deepEqual(byId.get(row['id']), row, `acknowledged id ${String(row['id'])} is stored`);
    assert.deepEqual(
      ids(listed),
      Array.from({ length: listed.length }, (_, k) => k + 1),
      'ids gapless',
    );
    process.stdout.write(
      `      replica kill -9: ${load.acknowledged.length} creates acknowledged, all stored; ${listed.length} listed; failures ${JSON.stringify([...load.failures])}\n`,
    );
    replicas[1] = await startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'team', '--max-sessions', '20']);
  });

  it('loses no acknowledged create when Redis (appendfsync always) is killed with SIGKILL during creates, and recovers', async () => {
    const load = creator(urls(), lot, 'redis-kill');
    try {
      await until(() => load.acknowledged.length >= 100, { what: 'some creates acknowledged', timeoutMs: 15_000, intervalMs: 100 });
      await redis.kill();
      // Answers already on their way when the kill landed may still arrive; after that, none until the restart.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = load.acknowledged.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(load.acknowledged.length, before, 'no create is acknowledged while Redis is down');
      await redis.start();
      await until(() => load.acknowledged.length >= before + 100, {
        what: 'creates acknowledged again',
        timeoutMs: 15_000,
        intervalMs: 100,
      });
    } finally {
      await load.stop();
    }
    assert.ok((load.failures.get(503) ?? 0) > 0, `503 while Redis was down: ${JSON.stringify([...load.failures])}`);
    const listed = await list(urls()[0] ?? '', 'lot-transfers', 'redis-kill');
    const byId = new Map(listed.map((row) => [row['id'], row]));
    for (const row of load.acknowledged) assert.deepEqual(byId.get(row['id']), row, `acknowledged id ${String(row['id'])} survived`);
    assert.equal(new Set(ids(listed)).size, listed.length, 'ids unique');
    process.stdout.write(
      `      Redis kill -9: ${load.acknowledged.length} creates acknowledged, all stored after the restart; failures ${JSON.stringify([...load.failures])}\n`,
    );
  });

  it('answers 503 problem while Redis is stopped (order info keeps answering, health says the store is down) and recovers by itself', async () => {
    const [a, b] = urls() as [string, string];
    await redis.stop();
    const refused = await create(a, 'lot-transfers', lot, 1, 'outage');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    const problem = (await refused.json()) as Row;
    assert.equal(problem['type'], 'https://goods.example/problems/store-unavailable');
    assert.match(problem['detail'] as string, /Redis at redis:\/\/127\.0\.0\.1:\d+\/0/);
    assert.equal((await fetch(`${b}/__mock/lot-transfers`)).status, 503, 'a listing needs the store');
    assert.equal(
      (await fetch(`${b}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status,
      503,
      'a reset needs the store',
    );
    const health = await fetch(`${a}/__mock/health`);
    assert.equal(health.status, 503);
    const store = ((await health.json()) as { store: Row }).store;
    assert.deepEqual(store['up'], false);
    // In the project's words, never the client library's ("Stream isn't writeable ...").
    assert.match(
      store['detail'] as string,
      /^Redis at redis:\/\/127\.0\.0\.1:\d+\/0 unreachable since \S+Z; creates, listings and resets answer 503 store-unavailable until it is back/,
    );
    const order = await fetch(`${b}/manualProduction/rest/v1/orders/info/ORD-2026-0001`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(order.status, 200, 'order info needs no state');
    assert.ok(
      replicas.every((replica) => replica.alive()),
      'no replica crashed',
    );
    // A replica started while Redis is down starts anyway, answers 503, and serves once Redis is back.
    const late = await startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'team', '--max-sessions', '20']);
    try {
      assert.equal((await create(late.url, 'lot-transfers', lot, 1, 'outage')).status, 503);
      await redis.start();
      for (const url of [...urls(), late.url]) {
        await until(async () => (await fetch(`${url}/__mock/health`)).status === 200, {
          what: `${url} healthy again`,
          timeoutMs: 15_000,
          intervalMs: 100,
        });
      }
      assert.equal((await create(b, 'lot-transfers', lot, 2, 'outage')).status, 201);
      assert.equal((await create(late.url, 'lot-transfers', lot, 3, 'outage')).status, 201);
      assert.deepEqual(ids(await list(a, 'lot-transfers', 'outage')), [1, 2], 'the refused creates were not stored; ids 1 and 2 follow');
      for (const replica of [...replicas, late]) {
        assert.doesNotMatch(replica.stderr(), /Stream isn't writeable|enableOfflineQueue/, "the log names the outage in the mock's words");
        assert.match(replica.stderr(), /: unreachable since \S+Z \(.*\); creates, listings and resets answer 503/);
      }
    } finally {
      await late.stop();
    }
  });
});
