/**
 * The records of a Redis store checked against the contract in force when a replica opens it, against
 * a real redis-server (support/redis.ts): records written by "another contract version" are planted
 * the way its create script writes them (the record set, the session's counts, the byte total).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { JsonObject } from '../../contract/document.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { parseJsonText } from '../../util/json.js';
import { until } from '../../support/wait.js';
import { refusal } from '../../test/support/problems.js';
import { decodeLine, encodeCreateLine, encodeUnreadableCreateLine } from '../journal-line.js';
import { bundledContract } from '../testing.js';
import { RedisStore, type RedisStoreOptions } from './redis.js';
import { RefusedRecordsError } from './refused-records.js';
import type { StoreLimits } from './types.js';

const LIMITS: StoreLimits = { maxSessions: 10, maxRecordsPerSession: 100_000, maxRecordedBytes: 1 << 28 };
const ALL = { after: 0, limit: 100_000, maxBytes: 1 << 28 };
const NOW = '2026-11-22T10:11:12.345Z';

describe('mock/store/redis-check: records in Redis checked against the contract in force', function () {
  this.timeout(60_000);
  const bundled = bundledContract();
  const [transfers] = bundled.model.createIds;
  if (transfers === undefined) throw new Error('the bundled contract has a create');
  const op = bundled.createOperation(transfers);
  const RESOURCE = op.resource;
  const transfer = (id: number, change: JsonObject = {}): JsonObject => ({
    ...(bundled.model.create(transfers).successExample as JsonObject),
    id,
    ...change,
  });
  let redis: TestRedis;
  let admin: Redis;
  let folder: string;
  let prefixes = 0;
  let prefix = '';
  let logged: string[] = [];
  const opened: RedisStore[] = [];

  before(async () => {
    redis = await startRedis({ appendfsync: 'everysec' });
    admin = new Redis(redis.url);
  });
  after(async () => {
    admin.disconnect();
    await redis.dispose();
  });
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'redis-check-'));
    prefix = `rc${++prefixes}`;
    logged = [];
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await rm(folder, { recursive: true, force: true });
  });

  const open = async (options: Partial<RedisStoreOptions> = {}, waitMs?: number): Promise<RedisStore> => {
    const store = await RedisStore.open(
      {
        url: redis.url,
        prefix,
        limits: LIMITS,
        resources: bundled.resources,
        check: bundled.check,
        log: (line) => logged.push(line),
        ...options,
      },
      waitMs,
    );
    opened.push(store);
    return store;
  };
  /** A store that checks nothing (as before this check existed). */
  const openUnchecked = async (): Promise<RedisStore> => {
    const store = await RedisStore.open({
      url: redis.url,
      prefix,
      limits: LIMITS,
      resources: bundled.resources,
      log: () => undefined,
    });
    opened.push(store);
    return store;
  };
  /** Node's own words for the text that is not JSON. */
  const notJson = (text: string): string => {
    const parsed = parseJsonText(text);
    return parsed.ok ? '' : parsed.reason;
  };
  const failure = (promise: Promise<unknown>): Promise<unknown> =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  /** Writes a record as a create script does: in its set under `id`, counted in its session and the byte total. */
  async function plant(session: string, id: number, json: string, resource = RESOURCE): Promise<void> {
    const size = Buffer.byteLength(json);
    await admin
      .multi()
      .zadd(`${prefix}:s:${session}:${resource}`, id, json)
      .hincrby(`${prefix}:s:${session}`, '#records', 1)
      .hincrby(`${prefix}:s:${session}`, '#bytes', size)
      .hset(`${prefix}:s:${session}`, `${resource}#id`, id)
      .incrby(`${prefix}:bytes`, size)
      .exec();
  }

  async function listed(store: RedisStore, session = 'default'): Promise<unknown[]> {
    const { records } = await store.list(session, RESOURCE, ALL);
    return records.map((record) => (JSON.parse(record.toString()) as { id: unknown }).id);
  }

  /** Every kind of record another contract version (or a hand) may have left, with its line in the side file. */
  async function plantRefused(): Promise<string[]> {
    const cases: [string, number, string, string?][] = [
      ['default', 2, JSON.stringify(transfer(2, { fk_lot_id: 'not-a-number', amount: -5 }))],
      ['default', 3, JSON.stringify(transfer(3, { pallet: 'P-3' }))],
      ['default', 4, JSON.stringify(transfer(4, { id: 'seven' }))],
      ['default', 5, JSON.stringify(transfer(6))],
      ['qa', 1, '{"id":1,'],
      ['qa', 2, JSON.stringify(transfer(2)), 'pallets'],
    ];
    const lines: string[] = [];
    for (const [session, id, json, resource] of cases) {
      await plant(session, id, json, resource);
      lines.push(
        json.startsWith('{"id":1,')
          ? encodeUnreadableCreateLine(session, RESOURCE, json)
          : encodeCreateLine(session, resource ?? RESOURCE, json),
      );
    }
    return lines;
  }

  it('refuses to open on records the contract refuses, naming key, id, resource, pointer and reason; changes nothing', async () => {
    await plant('default', 1, JSON.stringify(transfer(1)));
    await plantRefused();
    const before = await admin.get(`${prefix}:bytes`);
    const refused = await failure(open());
    assert.ok(refused instanceof RefusedRecordsError, String(refused));
    assert.match(refused.message, /holds 6 records the contract in force refuses/);
    assert.match(refused.message, /--set-aside-invalid FILE/);
    const key = `${prefix}:s:default:${RESOURCE}`;
    for (const expected of [
      `key ${key} id 2: a lot-transfers record (session "default") the contract in force refuses: /fk_lot_id must be of type integer; /amount must be > 0`,
      `key ${key} id 3: a lot-transfers record (session "default") the contract in force refuses: /pallet is not a member of LotTransfer in the contract in force`,
      `key ${key} id 4: a lot-transfers record (session "default") the contract in force refuses: /id must be of type integer`,
      `key ${key} id 5: a lot-transfers record (session "default") the contract in force refuses: /id is 6, but Redis files the record under id 5`,
      `key ${prefix}:s:qa:${RESOURCE} id 1: a lot-transfers record (session "qa") the contract in force refuses: (the record) is not JSON (${notJson('{"id":1,')})`,
      `key ${prefix}:s:qa:pallets id 2: a pallets record (session "qa") the contract in force refuses: (the record) the contract in force has no create that records "pallets" (it records ${[...bundled.slots.keys()].join(', ')})`,
    ]) {
      assert.ok(
        logged.some((line) => line.endsWith(expected)),
        `${expected}\n---\n${logged.join('\n')}`,
      );
    }
    assert.equal(await admin.zcard(key), 5);
    assert.equal(await admin.get(`${prefix}:bytes`), before);
  });

  it('with a side file: moves exactly the refused records there (journal lines), serves the rest, keeps the counts and counters right', async () => {
    const writer = await openUnchecked();
    await writer.create('default', op.plan(transfer(0), undefined, NOW));
    const expected = await plantRefused();
    const aside = join(folder, 'aside', 'refused.jsonl');
    const store = await open({ setAside: aside });
    // Exactly those lines (in the order Redis's SCAN found their sets).
    assert.deepEqual((await readFile(aside, 'utf8')).split(/(?<=\n)/).sort(), [...expected].sort());
    for (const line of expected) assert.equal(decodeLine(Buffer.from(line.trimEnd())).kind, 'entry', 'each line replays with --state-file');
    assert.deepEqual(await listed(store), [1]);
    assert.ok(
      logged.some((line) => line.includes(`6 records the contract in force refuses moved to ${aside}`)),
      logged.join('\n'),
    );
    // What is left is counted right: the byte total and the session's counts, and ids never reused.
    const members = await admin.zrange(`${prefix}:s:default:${RESOURCE}`, '0', '-1');
    const qa = await admin.zrange(`${prefix}:s:qa:${RESOURCE}`, '0', '-1');
    assert.equal(
      Number(await admin.get(`${prefix}:bytes`)),
      [...members, ...qa].reduce((sum, json) => sum + Buffer.byteLength(json), 0),
    );
    assert.equal(await admin.hget(`${prefix}:s:default`, '#records'), String(members.length));
    assert.equal(await admin.hget(`${prefix}:s:qa`, '#records'), '0');
    const next = JSON.parse(await store.create('default', op.plan(transfer(0), undefined, NOW))) as { id: number };
    assert.equal(next.id, 6);
    // The next replica opens with nothing to refuse.
    logged = [];
    await open();
    assert.ok(
      logged.some((line) => /: 2 records checked against the contract in force/.test(line)),
      logged.join('\n'),
    );
  });

  it('replicas started together with the option set each refused record aside once (a lock in Redis), into one side file', async () => {
    for (let id = 1; id <= 300; id++) await plant('default', id, JSON.stringify(transfer(id, id % 3 === 0 ? { amount: -id } : {})));
    const aside = join(folder, 'aside.jsonl');
    const stores = await Promise.all([open({ setAside: aside }), open({ setAside: aside }), open({ setAside: aside })]);
    const lines = (await readFile(aside, 'utf8')).trim().split('\n');
    assert.equal(lines.length, 100, 'each of the 100 refused records once');
    assert.equal(new Set(lines).size, 100);
    for (const store of stores) assert.equal((await listed(store)).length, 200);
    assert.equal(await admin.exists(`${prefix}:set-aside`), 0, 'the lock is freed');
  });

  it('reads large sets in steps, in id order: every refused record found, records under one id neither skipped nor read twice', async () => {
    const writer = await openUnchecked();
    const total = 2500;
    const pipeline = admin.multi();
    for (let id = 1; id <= total; id++) pipeline.zadd(`${prefix}:s:default:${RESOURCE}`, String(id), JSON.stringify(transfer(id)));
    await pipeline.exec();
    // Refused ones at the first step's edge (16), deep inside, and a second record under an id at a step's edge.
    for (const id of [16, 17, 1000, 2499])
      await admin.zadd(`${prefix}:s:default:${RESOURCE}`, String(id), JSON.stringify(transfer(id, { amount: -id })));
    await writer.close();
    const aside = join(folder, 'aside.jsonl');
    const store = await open({ setAside: aside });
    assert.equal((await readFile(aside, 'utf8')).trim().split('\n').length, 4);
    assert.deepEqual(
      await listed(store),
      Array.from({ length: total }, (_, i) => i + 1),
    );
    assert.ok(
      logged.some((line) => line.includes(`${total + 4} records checked`)),
      logged.join('\n'),
    );
  });

  it('leaves keys of another prefix alone, and keys that are not record sets', async () => {
    await admin.zadd(`${prefix}x:s:default:${RESOURCE}`, 1, '{"not":"mine"}');
    await admin.zadd(`${prefix}:s:default`, 1, 'not a record set');
    const store = await open();
    assert.deepEqual(await listed(store), []);
    assert.equal(await admin.zcard(`${prefix}x:s:default:${RESOURCE}`), 1);
  });

  it('serves nothing until it could check: Redis down at start answers 503, then the check runs once Redis is back', async () => {
    await plant('default', 1, JSON.stringify(transfer(1)));
    await redis.stop();
    try {
      const store = await open({}, 300);
      assert.equal(await refusal(store.list('default', RESOURCE, ALL)), 'store-unavailable');
      await redis.start();
      await until(async () => (await store.health()).up, { what: 'the check once Redis is back', timeoutMs: 20_000 });
      assert.deepEqual(await listed(store), [1]);
      assert.ok(
        logged.some((line) => line.includes('1 records checked')),
        logged.join('\n'),
      );
    } finally {
      if (!redis.running()) await redis.start();
    }
  });

  it('a check that fails midway (not a refusal) is tried again every second until it passes; nothing is served meanwhile', async () => {
    await plant('default', 1, JSON.stringify(transfer(1)));
    let calls = 0;
    const store = await open({
      check: (resource, record) => {
        if (++calls === 1) throw new Error('the first check fails');
        return bundled.check(resource, record);
      },
    });
    assert.equal(await refusal(store.list('default', RESOURCE, ALL)), 'store-unavailable');
    assert.ok(
      logged.some((line) => line.includes('could not be checked against the contract in force (the first check fails); trying again')),
      logged.join('\n'),
    );
    await until(async () => (await store.health()).up, { what: 'the check tried again', timeoutMs: 10_000 });
    assert.deepEqual(await listed(store), [1]);
  });

  it('found late (Redis was down at start): refused records keep the store unserved, saying why, until a restart', async () => {
    await plant('default', 1, JSON.stringify(transfer(1, { amount: -1 })));
    await redis.stop();
    try {
      const store = await open({}, 300);
      await redis.start();
      await until(() => logged.some((line) => line.includes('holds 1 record the contract in force refuses')), {
        what: 'the late check',
        timeoutMs: 20_000,
      });
      const refused = await failure(store.create('default', op.plan(transfer(0), undefined, NOW)));
      assert.match(String(refused), /holds records the contract in force refuses .*--set-aside-invalid FILE/);
      const health = await store.health();
      assert.equal(health.up, false);
      assert.match(health.detail, /records the contract in force refuses/);
    } finally {
      if (!redis.running()) await redis.start();
    }
  });
});
