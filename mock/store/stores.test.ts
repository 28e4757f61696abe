/**
 * The two stores behind one interface, given the same plans: counters and sequences filled in the
 * record, paging by id and by bytes, the limits, resets that keep the counters. The memory store
 * also replays its journal; the Redis store runs against a real redis-server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { until } from '../../support/wait.js';
import { refusal } from '../../test/support/problems.js';
import { ProblemError } from '../problems.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
import type { CounterSlot, RecordPlan, Store, StoreLimits } from './types.js';

const SLOTS: CounterSlot[] = [
  { name: 'id', counter: 'samples#id', kind: 'id' },
  { name: 'sample_number', counter: 'samples#sample_number', kind: 'sequence', prefix: 'S-"\\', width: 6 },
];
const LIMITS: StoreLimits = { maxSessions: 2, maxRecordsPerSession: 5, maxRecordedBytes: 4096 };

function plan(notes: string): RecordPlan {
  return {
    resource: 'samples',
    fields: [
      SLOTS[0] as CounterSlot,
      { name: 'notes', value: notes },
      SLOTS[1] as CounterSlot,
      { name: 'tags', value: ['a', { b: null }] },
    ],
  };
}

function parsed(records: Buffer[]): Record<string, unknown>[] {
  return records.map((record) => JSON.parse(record.toString()) as Record<string, unknown>);
}

function behaves(name: string, open: () => Promise<Store>, dispose: () => Promise<void> = () => Promise.resolve()): void {
  describe(`mock/store: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
      await dispose();
    });

    it('fills ids and sequences in member order, answers the exact JSON, and lists it', async () => {
      const first = await store.create('default', plan('x'));
      assert.equal(first, '{"id":1,"notes":"x","sample_number":"S-\\"\\\\000001","tags":["a",{"b":null}]}');
      const second = JSON.parse(await store.create('default', plan('ü 😀'))) as Record<string, unknown>;
      assert.deepEqual([second['id'], second['sample_number']], [2, 'S-"\\000002']);
      const page = await store.list('default', 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.equal(page.records.map((r) => r.toString()).join('|'), `${first}|${JSON.stringify(second)}`);
      assert.equal(page.nextAfter, undefined);
    });

    it('pages by id, by count and by bytes (at least one record a page)', async () => {
      for (let n = 0; n < 4; n++) await store.create('default', plan(`n${n}`));
      const byCount = await store.list('default', 'samples', { after: 0, limit: 3, maxBytes: 1 << 20 });
      assert.deepEqual(
        parsed(byCount.records).map((r) => r['id']),
        [1, 2, 3],
      );
      assert.equal(byCount.nextAfter, 3);
      const rest = await store.list('default', 'samples', { after: 3, limit: 3, maxBytes: 1 << 20 });
      assert.deepEqual(
        parsed(rest.records).map((r) => r['id']),
        [4],
      );
      assert.equal(rest.nextAfter, undefined);
      const byBytes = await store.list('default', 'samples', { after: 0, limit: 10, maxBytes: 1 });
      assert.deepEqual(
        parsed(byBytes.records).map((r) => r['id']),
        [1],
      );
      assert.equal(byBytes.nextAfter, 1);
    });

    it('keeps sessions apart, resets one keeping its counters, and enforces every limit', async () => {
      await store.create('a', plan('a1'));
      await store.create('b', plan('b1'));
      assert.equal(await refusal(store.create('c', plan('c1'))), 'too-many-sessions');
      assert.equal(await refusal(store.create('default', plan('d'))), 'none', 'the default session never counts');
      for (let n = 2; n <= 5; n++) await store.create('a', plan(`a${n}`));
      assert.equal(await refusal(store.create('a', plan('a6'))), 'session-full');
      await store.reset('a');
      assert.deepEqual((await store.list('a', 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 })).records, []);
      assert.equal((JSON.parse(await store.create('a', plan('again'))) as { id: number }).id, 6, 'ids keep counting');
      assert.equal((await store.list('b', 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 })).records.length, 1);
      assert.equal(await refusal(store.create('b', plan('x'.repeat(4000)))), 'mock-full');
      assert.equal((JSON.parse(await store.create('b', plan('small'))) as { id: number }).id, 2, 'a refused create takes no id');
      assert.equal((await store.health()).up, true);
    });

    it('changes nothing on a refused create: a new session refused mock-full takes no session slot and no id', async () => {
      await store.create('a', plan('a1'));
      assert.equal(await refusal(store.create('b', plan('x'.repeat(4000)))), 'mock-full');
      assert.deepEqual((await store.list('b', 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 })).records, []);
      assert.equal((JSON.parse(await store.create('c', plan('c1'))) as { id: number }).id, 1, 'the refused session did not count');
      assert.equal(await refusal(store.create('b', plan('b1'))), 'too-many-sessions', 'a and c are the two sessions');
    });
  });
}

const resources = new Map([['samples', { slots: SLOTS, key: 'id', assigned: true }]]);
behaves('memory', () => MemoryStore.open({ limits: LIMITS, resources, log: () => undefined }));

let dir = '';
behaves(
  'journal',
  async () => {
    dir = await mkdtemp(join(tmpdir(), 'store-journal-'));
    return MemoryStore.open({ limits: LIMITS, resources, stateFile: join(dir, 'state.jsonl'), log: () => undefined });
  },
  () => rm(dir, { recursive: true, force: true }),
);

describe('mock/store: the journal store replays records, resets and counters', () => {
  it('continues ids and sequences after a restart and keeps a replayed reset', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'store-replay-'));
    const open = () => MemoryStore.open({ limits: LIMITS, resources, stateFile: join(folder, 'state.jsonl'), log: () => undefined });
    try {
      const first = await open();
      await first.create('a', plan('1'));
      await first.create('a', plan('2'));
      await first.reset('a');
      await first.create('a', plan('3'));
      await first.close();
      const second = await open();
      const listed = parsed((await second.list('a', 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 })).records);
      assert.deepEqual(
        listed.map((r) => r['id']),
        [3],
      );
      const next = JSON.parse(await second.create('a', plan('4'))) as Record<string, unknown>;
      assert.deepEqual([next['id'], next['sample_number']], [4, 'S-"\\000004']);
      await second.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('mock/store: the journal rewritten (compaction at start, a rewrite a killed mock left)', () => {
  let folder = '';
  let file = '';
  const logged: string[] = [];
  const open = (compactAboveBytes?: number) =>
    MemoryStore.open({
      limits: { ...LIMITS, maxRecordsPerSession: 1000, maxRecordedBytes: 1 << 20 },
      resources,
      stateFile: file,
      log: (line) => logged.push(line),
      ...(compactAboveBytes !== undefined ? { compactAboveBytes } : {}),
    });
  const ids = async (store: Store, session: string) =>
    parsed((await store.list(session, 'samples', { after: 0, limit: 1000, maxBytes: 1 << 20 })).records).map((r) => r['id']);
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'store-rewrite-'));
    file = join(folder, 'state.jsonl');
    logged.length = 0;
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  /** 60 creates in session a, reset, 3 more; 2 in b: a journal mostly of records a reset dropped. */
  async function history(): Promise<void> {
    const store = await open();
    for (let n = 0; n < 60; n++) await store.create('a', plan(`a${n}`));
    await store.reset('a');
    for (let n = 0; n < 3; n++) await store.create('a', plan(`again${n}`));
    for (let n = 0; n < 2; n++) await store.create('b', plan(`b${n}`));
    await store.close();
  }

  it('compacts a journal past the threshold at start: resets and the records they dropped go, counters stay', async () => {
    await history();
    const before = (await readFile(file, 'utf8')).length;
    const store = await open(1024);
    try {
      assert.ok(
        logged.some((line) => line.includes('compacting')) && logged.some((line) => line.includes(`compacted from ${before} to`)),
        logged.join('\n'),
      );
      const lines = (await readFile(file, 'utf8')).trim().split('\n');
      assert.deepEqual(
        lines.map((line) => (JSON.parse(line) as { op: string; session: string }).op),
        ['counters', 'create', 'create', 'create', 'counters', 'create', 'create'],
        'a and b: counters, then the records held',
      );
      assert.deepEqual(await ids(store, 'a'), [61, 62, 63]);
      assert.equal((JSON.parse(await store.create('a', plan('next'))) as { id: number }).id, 64, 'ids continue');
    } finally {
      await store.close();
    }
    logged.length = 0;
    const again = await open(1024);
    try {
      assert.ok(!logged.some((line) => line.includes('compacting')), 'nothing left to compact');
      assert.deepEqual(await ids(again, 'a'), [61, 62, 63, 64]);
      assert.deepEqual(await ids(again, 'b'), [1, 2]);
      assert.equal((JSON.parse(await again.create('a', plan('after'))) as { id: number }).id, 65, 'the counters survived the compaction');
    } finally {
      await again.close();
    }
  });

  it('does not compact below the threshold, nor when little would go', async () => {
    await history();
    const size = (await readFile(file, 'utf8')).length;
    await (await open(size + 1)).close();
    assert.equal((await readFile(file, 'utf8')).length, size, 'below the threshold');
    await rm(file);
    const store = await open();
    for (let n = 0; n < 60; n++) await store.create('a', plan(`a${n}`));
    await store.close();
    const kept = (await readFile(file, 'utf8')).length;
    await (await open(1024)).close();
    assert.equal((await readFile(file, 'utf8')).length, kept, 'no reset: nothing would go');
    assert.ok(!logged.some((line) => line.includes('compacting')));
  });

  it('installs a complete rewrite a killed mock left, keeping the file at the path aside', async () => {
    await history();
    const compacted = await open(1024);
    await compacted.close();
    // As if killed after the rewrite's fsync and first rename, before it replaced the journal.
    await rename(file, `${file}.rewrite`);
    await writeFile(file, 'what a killed rewrite would have replaced\n');
    const store = await open();
    try {
      assert.deepEqual(await ids(store, 'a'), [61, 62, 63]);
      assert.ok(
        logged.some((line) => /a fresh journal that a stopped mock had finished writing .* installed/.test(line)),
        logged.join('\n'),
      );
      const aside = (await readdir(folder)).filter((name) => name.startsWith('state.jsonl.displaced-'));
      assert.equal(aside.length, 1);
      assert.equal(await readFile(join(folder, aside[0] ?? ''), 'utf8'), 'what a killed rewrite would have replaced\n');
    } finally {
      await store.close();
    }
  });

  it('removes an unfinished compaction; keeps an unfinished fresh journal aside, naming it', async () => {
    await history();
    await writeFile(`${file}.compact.tmp`, '{"op":"create","sess');
    let store = await open();
    assert.deepEqual(await ids(store, 'a'), [61, 62, 63]);
    await store.close();
    assert.ok(logged.some((line) => line.includes('an unfinished compaction of a stopped mock') && line.includes('removed')));
    assert.ok(!(await readdir(folder)).some((name) => name.includes('.compact')));
    await writeFile(`${file}.rewrite.tmp`, await readFile(file));
    await rm(file);
    logged.length = 0;
    store = await open();
    try {
      assert.deepEqual(await ids(store, 'a'), [], 'no journal at the path: nothing replayed');
      const line = logged.find((l) => l.includes('stopped while writing a fresh journal')) ?? '';
      assert.match(line, /kept as .*state\.jsonl\.unfinished-.* no journal is at the path/, logged.join('\n'));
    } finally {
      await store.close();
    }
  });
});

let redis: TestRedis | undefined;
let prefixes = 0;
describe('mock/store: redis (a real redis-server)', function () {
  this.timeout(30_000);
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.dispose());
  it('answers 503 naming what Redis refused (out of memory), and stores nothing', async () => {
    const admin = new Redis(redis?.url ?? '');
    const store = await RedisStore.open({
      url: redis?.url ?? '',
      prefix: 'oom',
      limits: LIMITS,
      resources,
      log: () => undefined,
    });
    try {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      const refused = await store.create('default', plan('x')).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof ProblemError);
      assert.equal(refused.kind.status, 503);
      assert.match(refused.detail, /refused the command \(OOM/);
      await admin.config('SET', 'maxmemory', '0');
      assert.equal((JSON.parse(await store.create('default', plan('y'))) as { id: number }).id, 1, 'the refused create took no id');
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      admin.disconnect();
      await store.close();
    }
  });
  it("says in the project's words while Redis is stopped (health, answers, one log line per change of state), never the client library's", async () => {
    const logged: string[] = [];
    const store = await RedisStore.open({
      url: redis?.url ?? '',
      prefix: `down${++prefixes}`,
      limits: LIMITS,
      resources,
      log: (line) => logged.push(line),
    });
    const where = `Redis at ${redis?.url ?? ''}`;
    try {
      assert.deepEqual(await store.health(), { kind: 'redis', up: true, detail: `${where}, key prefix down${prefixes}` });
      await redis?.stop();
      // Several reads and writes while the client tries to reconnect (every 0.5 s at most).
      let calls = 0;
      const answers: string[] = [];
      await until(
        async () => {
          for (const attempt of [
            store.create('default', plan('x')),
            store.list('default', 'samples', { after: 0, limit: 1, maxBytes: 1024 }),
          ]) {
            const refused = await attempt.then(
              () => undefined,
              (error: unknown) => error,
            );
            assert.ok(refused instanceof ProblemError && refused.kind.type.endsWith('/store-unavailable'), String(refused));
            answers.push(refused.detail);
          }
          return ++calls >= 6;
        },
        { what: 'six rounds of calls', intervalMs: 200 },
      );
      const health = await store.health();
      assert.equal(health.up, false);
      assert.match(health.since ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      assert.equal(
        health.detail,
        `${where} unreachable since ${health.since ?? ''}; creates, listings and resets answer 503 store-unavailable until it is back (the mock reconnects by itself)`,
      );
      for (const detail of answers)
        assert.ok(detail.startsWith(`The mock's shared store (${where}) has been unreachable since ${health.since ?? ''}`), detail);
      const internal = /Stream isn't writeable|enableOfflineQueue|ECONNREFUSED|Connection is closed/;
      assert.doesNotMatch([health.detail, ...answers].join('\n'), internal, "answers never carry the client library's messages");
      assert.deepEqual(
        logged.filter((line) => line.includes('unreachable since')).length,
        1,
        `one log line for the outage, whatever the calls and reconnection attempts:\n${logged.join('\n')}`,
      );
      await redis?.start();
      await until(async () => (await store.health()).up, { what: 'the store up again', timeoutMs: 15_000, intervalMs: 100 });
      assert.ok(
        logged.some((line) => line.startsWith(`store ${redis?.url ?? ''}: connected again (unreachable since ${health.since ?? ''}, for `)),
        logged.join('\n'),
      );
      assert.equal((JSON.parse(await store.create('default', plan('back'))) as { id: number }).id, 1, 'nothing was recorded while down');
    } finally {
      if (!redis?.running()) await redis?.start();
      await store.close();
    }
  });

  describe('a frozen Redis (SIGSTOP): the answer says what happened, or that it may have happened', () => {
    const logged: string[] = [];
    const open = (outcomeWaitMs: number) =>
      RedisStore.open({
        url: redis?.url ?? '',
        prefix: `frozen${++prefixes}`,
        limits: LIMITS,
        resources,
        log: (line) => logged.push(line),
        outcomeWaitMs,
      });
    const listed = async (store: Store, session = 'default') =>
      parsed((await store.list(session, 'samples', { after: 0, limit: 10, maxBytes: 1 << 20 })).records);
    const thawAfter = (ms: number) => new Promise<void>((resolve) => setTimeout(() => resolve(redis?.thaw()), ms));
    beforeEach(() => {
      logged.length = 0;
    });
    afterEach(() => redis?.thaw());

    it('waits for a Redis frozen less than the wait: every create answered with its record, none lost, none doubled', async () => {
      const store = await open(10_000);
      try {
        redis?.freeze();
        const started = Date.now();
        const [answers] = await Promise.all([
          Promise.all(Array.from({ length: 4 }, (_, n) => store.create('default', plan(`f${n}`)))),
          thawAfter(1200),
        ]);
        assert.ok(Date.now() - started >= 1100, 'answered once Redis answered');
        const records = answers.map((json) => JSON.parse(json) as Record<string, unknown>);
        assert.deepEqual(records.map((r) => r['id']).sort(), [1, 2, 3, 4]);
        assert.deepEqual(
          await listed(store),
          records.sort((a, b) => Number(a['id']) - Number(b['id'])),
        );
      } finally {
        await store.close();
      }
    });

    it('answers 504 store-outcome-unknown (never store-unavailable) past the wait, and logs the outcome when Redis answers', async () => {
      const store = await open(400);
      try {
        redis?.freeze();
        const refused = await store.create('qa', plan('late')).then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(refused instanceof ProblemError);
        assert.equal(refused.kind.type, 'https://goods.example/problems/store-outcome-unknown');
        assert.equal(refused.kind.status, 504);
        assert.match(refused.detail, /cannot tell whether it happened: it may have/);
        assert.match(refused.detail, /GET \/__mock\/samples with X-Mock-Session: qa/);
        const reset = await store.reset('qa').then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(reset instanceof ProblemError && reset.kind.status === 504, String(reset));
        redis?.thaw();
        const started = Date.now();
        while (logged.filter((line) => line.includes('answered 504')).length < 2 && Date.now() - started < 5000)
          await new Promise((resolve) => setTimeout(resolve, 20));
        assert.ok(
          logged.some((line) => /a create answered 504 store-outcome-unknown was recorded .*samples in session "qa" \{"id":1/.test(line)),
          logged.join('\n'),
        );
        assert.ok(
          logged.some((line) => /the reset of session "qa" answered 504 store-outcome-unknown was done/.test(line)),
          logged.join('\n'),
        );
        assert.deepEqual(await listed(store, 'qa'), [], 'the create ran, then the reset');
        assert.equal((JSON.parse(await store.create('qa', plan('next'))) as { id: number }).id, 2, 'the create that ran took id 1');
      } finally {
        await store.close();
      }
    });

    it('answers 504 at once when the connection breaks after the create was sent (Redis killed while frozen); 503 while it is down', async () => {
      const store = await open(10_000);
      try {
        redis?.freeze();
        const pending = store.create('default', plan('lost')).then(
          () => undefined,
          (error: unknown) => error,
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        const started = Date.now();
        await redis?.kill();
        const lost = await pending;
        assert.ok(lost instanceof ProblemError && lost.kind.status === 504, String(lost));
        assert.match(lost.detail, /the connection to Redis closed after the command was sent/);
        assert.ok(Date.now() - started < 5000, 'not after the whole wait');
        const down = await store.create('default', plan('down')).then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(down instanceof ProblemError && down.kind.type.endsWith('/store-unavailable'), 'not sent: nothing changed');
      } finally {
        await redis?.start();
        await store.close();
      }
    });
  });

  behaves('redis', () =>
    RedisStore.open({ url: redis?.url ?? '', prefix: `t${++prefixes}`, limits: LIMITS, resources, log: () => undefined }),
  );
});
