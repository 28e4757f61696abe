/**
 * mock/store/redis.ts on its own, against a real redis-server (support/redis.ts): what is specific to
 * the shared store beyond the interface both stores share (`stores.test.ts`): its keys stay under
 * its prefix, stores on one prefix are replicas of one state (counters continue across instances)
 * and stores on two prefixes share nothing, listings read in batches, a flushed script cache is
 * reloaded, the URL is shown without credentials, and health says whether Redis answers.
 */
import assert from 'node:assert/strict';
import { closedPort } from '../../support/loopback.js';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { until } from '../../support/wait.js';
import { refusal } from '../../test/support/problems.js';
import { ProblemError } from '../problems.js';
import { RedisStore, type RedisStoreOptions } from './redis.js';
import type { CounterSlot, RecordPlan, StoreLimits } from './types.js';

const ID: CounterSlot = { name: 'id', counter: 'notes#id', kind: 'id' };
const NUMBER: CounterSlot = { name: 'number', counter: 'notes#number', kind: 'sequence', prefix: 'N-', width: 4 };
const LIMITS: StoreLimits = { maxSessions: 5, maxRecordsPerSession: 1000, maxRecordedBytes: 1 << 20 };
const ALL = { after: 0, limit: 1000, maxBytes: 1 << 20 };

function plan(text: string): RecordPlan {
  return { resource: 'notes', fields: [ID, { name: 'text', value: text }, NUMBER] };
}

function record(json: string): { id: number; text: string; number: string } {
  return JSON.parse(json) as { id: number; text: string; number: string };
}

async function listed(store: RedisStore, session: string, page = ALL): Promise<number[]> {
  const { records } = await store.list(session, 'notes', page);
  return records.map((data) => record(data.toString()).id);
}

describe('mock/store/redis', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let admin: Redis;
  const opened: RedisStore[] = [];
  let prefixes = 0;

  const open = async (options: Partial<RedisStoreOptions> = {}, waitMs?: number): Promise<RedisStore> => {
    const store = await RedisStore.open(
      {
        url: redis.url,
        prefix: `p${++prefixes}`,
        limits: LIMITS,
        resources: new Map([['notes', { slots: [], key: 'id', assigned: true }]]),
        log: () => undefined,
        ...options,
      },
      waitMs,
    );
    opened.push(store);
    return store;
  };

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  after(async () => {
    admin.disconnect();
    await redis.dispose();
  });

  it('writes only keys under its prefix', async () => {
    await admin.flushall();
    const store = await open({ prefix: 'team-a' });
    await store.create('default', plan('x'));
    await store.create('qa', plan('y'));
    await store.reset('qa');
    const keys = await admin.keys('*');
    assert.ok(keys.length >= 3, keys.join(' '));
    assert.deepEqual(
      keys.filter((key) => !key.startsWith('team-a:')),
      [],
    );
  });

  it('shares nothing between two prefixes on one Redis: records, counters, resets and limits are each their own', async () => {
    const one = await open({ prefix: 'one', limits: { ...LIMITS, maxSessions: 1 } });
    const two = await open({ prefix: 'two', limits: { ...LIMITS, maxSessions: 1 } });
    assert.equal(record(await one.create('s', plan('one-1'))).id, 1);
    assert.equal(record(await one.create('s', plan('one-2'))).id, 2);
    assert.equal(record(await two.create('s', plan('two-1'))).id, 1, 'the other prefix counts from 1');
    assert.deepEqual(await listed(one, 's'), [1, 2]);
    assert.deepEqual(await listed(two, 's'), [1]);
    await two.reset('s');
    assert.deepEqual(await listed(one, 's'), [1, 2], "a reset under one prefix leaves the other's records");
    // maxSessions 1: each prefix has its own session count.
    assert.equal(await refusal(one.create('t', plan('one-t'))), 'too-many-sessions');
    assert.equal(await refusal(two.create('s', plan('two-again'))), 'none');
  });

  it('is one state for every store on the same prefix: counters, sequences, limits and resets continue across instances', async () => {
    const first = await open({ prefix: 'shared', limits: { ...LIMITS, maxSessions: 1 } });
    const second = await open({ prefix: 'shared', limits: { ...LIMITS, maxSessions: 1 } });
    assert.deepEqual(record(await first.create('s', plan('a'))), { id: 1, text: 'a', number: 'N-0001' });
    assert.deepEqual(record(await second.create('s', plan('b'))), { id: 2, text: 'b', number: 'N-0002' });
    assert.deepEqual(await listed(first, 's'), [1, 2]);
    assert.equal(await refusal(second.create('other', plan('c'))), 'too-many-sessions', 'the session the first opened counts');
    await second.reset('s');
    assert.deepEqual(await listed(first, 's'), []);
    // A store opened later (a restarted replica) continues the counters too.
    await first.close();
    const third = await open({ prefix: 'shared' });
    assert.deepEqual(record(await third.create('s', plan('d'))), { id: 3, text: 'd', number: 'N-0003' });
  });

  it('lists in batches: every record in id order, by count and by bytes, past its first batch of 16', async () => {
    const store = await open();
    const sizes: number[] = [];
    for (let n = 1; n <= 60; n++) sizes.push(Buffer.byteLength(await store.create('default', plan('é'.repeat(n % 7)))));
    assert.deepEqual(
      await listed(store, 'default'),
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    const page = await store.list('default', 'notes', { after: 10, limit: 40, maxBytes: 1 << 20 });
    assert.equal(page.records.length, 40);
    assert.equal(page.nextAfter, 50);
    const budget = sizes.slice(0, 25).reduce((a, b) => a + b, 0);
    const byBytes = await store.list('default', 'notes', { after: 0, limit: 1000, maxBytes: budget });
    assert.equal(byBytes.records.length, 25, 'as many as fit in maxBytes, counted in bytes');
    assert.equal(byBytes.nextAfter, 25);
    const rest = await store.list('default', 'notes', { after: 50, limit: 1000, maxBytes: 1 << 20 });
    assert.equal(rest.records.length, 10);
    assert.equal(rest.nextAfter, undefined);
  });

  it("loads its scripts again when Redis's script cache was flushed (NOSCRIPT)", async () => {
    const store = await open();
    assert.equal(record(await store.create('default', plan('before'))).id, 1);
    await admin.script('FLUSH');
    assert.equal(record(await store.create('default', plan('after'))).id, 2);
    await admin.script('FLUSH');
    await store.reset('default');
    assert.deepEqual(await listed(store, 'default'), []);
  });

  it('health: up with where and which prefix; down, saying so, while Redis is unreachable; up again once it is back', async () => {
    const logged: string[] = [];
    const store = await open({ prefix: 'health', log: (line) => logged.push(line) });
    assert.deepEqual(await store.health(), { kind: 'redis', up: true, detail: `Redis at ${redis.url}, key prefix health` });
    await redis.kill();
    try {
      await until(async () => !(await store.health()).up, { timeoutMs: 10_000, what: 'health down after Redis was killed' });
      const down = await store.health();
      assert.match(
        down.detail,
        new RegExp(`^Redis at ${redis.url.replace(/[/.]/g, '\\$&')} (unreachable since|is connected but did not answer)`),
      );
      assert.equal(await refusal(store.create('default', plan('while down'))), 'store-unavailable');
    } finally {
      await redis.start();
    }
    await until(async () => (await store.health()).up, { timeoutMs: 10_000, what: 'health up after Redis started again' });
    assert.ok(
      logged.some((line) => line.startsWith(`store ${redis.url}: connected again`)),
      logged.join('\n'),
    );
  });

  it('opens with a Redis that is not there: logs it (without credentials), answers 503 store-unavailable with Retry-After, health down', async () => {
    const port = await closedPort();
    const logged: string[] = [];
    const store = await open({ url: `redis://me:secret@127.0.0.1:${port}/0`, log: (line) => logged.push(line) }, 300);
    assert.ok(
      logged.some((line) => line.startsWith(`store redis://<redacted>@127.0.0.1:${port}/0: unreachable since`)),
      logged.join('\n'),
    );
    const health = await store.health();
    assert.equal(health.up, false);
    assert.match(health.detail, /unreachable since .*until it is back \(the mock reconnects by itself\)$/);
    try {
      await store.create('default', plan('x'));
      assert.fail('a create without Redis was answered');
    } catch (error) {
      assert.ok(error instanceof ProblemError, String(error));
      assert.equal(error.kind.status, 503);
      assert.equal(error.headers['Retry-After'], '1');
      assert.match(error.detail, /unreachable since .*, so nothing was recorded or changed/);
    }
    await assert.rejects(
      store.list('default', 'notes', ALL),
      (error: unknown) => error instanceof ProblemError && error.kind.status === 503,
    );
    assert.ok(!logged.some((line) => line.includes('secret')), logged.join('\n'));
  });
});
