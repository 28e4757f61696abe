/**
 * mock/store/redis-fault-rules.ts against a real redis-server (support/redis.ts): session fault rules
 * kept in Redis are seen and applied by every store on the same prefix (a replica), each use counted
 * once across them (also when they race), their life kept by Redis's clock, isolated per session and
 * per prefix, bounded as the process rules are, and removed for every replica at once.
 */
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { until } from '../../support/wait.js';
import { RULE_LIMITS, type FaultRule, type FaultRuleInput } from '../fault-rules.js';
import { parseFault } from '../faults.js';
import type { ProblemError } from '../problems.js';
import { PROBLEMS } from '../problems.js';
import type { RedisFaultRules } from './redis-fault-rules.js';
import { FAULT_ADD_SCRIPT } from './redis-scripts.js';
import { RedisStore } from './redis.js';

const input = (fault: string, extra: Partial<FaultRuleInput> = {}): FaultRuleInput => ({
  fault: parseFault(fault, 'test: '),
  operations: [],
  seconds: 60,
  ...extra,
});

/** `take` as the fault stage calls it: at once (no rule) or after Redis answered. */
async function take(rules: RedisFaultRules, session: string, operationId = 'createLotTransfer'): Promise<FaultRule | undefined> {
  return rules.take(session, operationId);
}

describe('mock/store/redis-fault-rules: session fault rules shared by every replica', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let admin: Redis;
  const stores: RedisStore[] = [];
  const lines: string[] = [];
  let prefixes = 0;

  /** `count` replicas on one fresh prefix: each its store's rules (at most `maxSessions` sessions holding rules). */
  const replicas = async (count: number, maxSessions = 5, prefix = `f${++prefixes}`): Promise<RedisFaultRules[]> => {
    const opened = await Promise.all(
      Array.from({ length: count }, () =>
        RedisStore.open({
          url: redis.url,
          prefix,
          limits: { maxSessions: 5, maxRecordsPerSession: 10, maxRecordedBytes: 1 << 20 },
          resources: [],
          log: (line) => lines.push(line),
        }),
      ),
    );
    stores.push(...opened);
    const rules = opened.map((store) => store.faultRules(maxSessions));
    await Promise.all(rules.map((r) => r.ready));
    return rules;
  };

  before(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  after(async () => {
    admin.disconnect();
    await redis.dispose();
  });

  it('"the next 3 creates answer 503" set through A: taken alternately through A and B, exactly 3 in all, then none', async () => {
    const [a, b] = (await replicas(2)) as [RedisFaultRules, RedisFaultRules];
    assert.equal(b.empty, true);
    const rule = await a.add('ci', input('status:503', { count: 3, operations: ['createLotTransfer'] }));
    assert.equal(b.empty, false, 'B learned of the rule before the add was answered');
    const taken: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) taken.push((await take(i % 2 === 0 ? a : b, 'ci'))?.id);
    assert.deepEqual(taken, [rule.id, rule.id, rule.id, undefined, undefined, undefined]);
    assert.deepEqual(await a.list('ci'), [], 'used up: gone on A');
    assert.deepEqual(await b.list('ci'), [], 'and on B');
    assert.equal(a.empty && b.empty, true, 'both know the session holds no rule (no more Redis calls for it)');
  });

  it('counts each use once when 3 replicas race for a rule of count 10 (60 concurrent takes)', async () => {
    const rules = await replicas(3);
    const rule = await rules[0]?.add('race', input('drop', { count: 10 }));
    const taken = await Promise.all(Array.from({ length: 60 }, (_, i) => take(rules[i % 3] as RedisFaultRules, 'race')));
    const hits = taken.filter((t) => t?.id === rule?.id);
    assert.equal(hits.length, 10);
    assert.deepEqual(
      hits.map((t) => t?.hits).sort((x, y) => (x ?? 0) - (y ?? 0)),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      'each use counted once',
    );
  });

  it('lists a rule on every replica with its hits and remaining count, oldest first; naming operations', async () => {
    const [a, b] = (await replicas(2)) as [RedisFaultRules, RedisFaultRules];
    const first = await a.add('s', input('delay:100', { operations: ['getOrderInfo'], count: 5 }));
    const second = await b.add('s', input('status:500'));
    assert.equal((await take(b, 's', 'getOrderInfo'))?.id, first.id, 'the oldest rule naming the operation');
    assert.equal((await take(a, 's', 'createTestSample'))?.id, second.id, 'a rule naming none applies to every operation');
    const listed = await b.list('s');
    assert.deepEqual(
      listed.map((r) => [r.id, r.hits, r.count, r.operations]),
      [
        [first.id, 1, 5, ['getOrderInfo']],
        [second.id, 1, undefined, []],
      ],
    );
    assert.deepEqual(await a.list('s'), listed);
    assert.ok(second.id > first.id, 'ids given by Redis, unique across replicas');
    assert.ok(Math.abs((listed[0]?.expiresAt ?? 0) - (Date.now() + 60_000)) < 5000, 'ends 60 s after it was added (Redis clock)');
  });

  it('ends a rule by its seconds for every replica (Redis keeps the time), and the key goes with it', async () => {
    const [a, b] = (await replicas(2)) as [RedisFaultRules, RedisFaultRules];
    await a.add('short', input('status:502', { seconds: 1 }));
    assert.ok(await take(b, 'short'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal(await take(b, 'short'), undefined);
    assert.deepEqual(await a.list('short'), []);
    assert.equal(await admin.exists(`f${prefixes}:faults:s:short`), 0, 'no key left behind');
  });

  it('removes one rule, or every rule, of a session for every replica; another session and another prefix are untouched', async () => {
    const [a, b] = (await replicas(2)) as [RedisFaultRules, RedisFaultRules];
    const [other] = (await replicas(1)) as [RedisFaultRules];
    const one = await a.add('x', input('reset'));
    const two = await a.add('x', input('empty'));
    await a.add('y', input('drop'));
    await other.add('x', input('truncate'));
    assert.equal(await b.remove('x', one.id), true);
    assert.equal(await b.remove('x', one.id), false, 'already gone');
    assert.equal(await a.remove('y', two.id), false, "another session's rule");
    assert.equal((await take(a, 'x'))?.id, two.id);
    assert.equal(await b.clear('x'), 1);
    assert.equal(await take(a, 'x'), undefined, 'cleared through B, gone on A at once');
    assert.equal((await take(b, 'y'))?.fault.kind, 'drop', 'the other session keeps its rule');
    assert.equal((await take(other, 'x'))?.fault.kind, 'truncate', 'another prefix shares nothing');
  });

  it('bounds rules per session and sessions holding rules over every replica (429 fault-rules-full)', async () => {
    const [a, b] = (await replicas(2, 2)) as [RedisFaultRules, RedisFaultRules];
    for (let i = 0; i < RULE_LIMITS.maxRulesPerSession; i++) await (i % 2 === 0 ? a : b).add('full', input('drop'));
    await assert.rejects(a.add('full', input('drop')), (error: ProblemError) => {
      assert.equal(error.kind, PROBLEMS.faultRulesFull);
      assert.match(error.detail, /The session "full" holds 20 fault rules, its most/);
      return true;
    });
    await b.add('second', input('drop'));
    await assert.rejects(a.add('third', input('drop')), (error: ProblemError) => {
      assert.match(error.detail, /^2 sessions hold fault rules, the most/);
      return true;
    });
    await a.clear('second');
    await b.add('third', input('drop'));
  });

  it('a replica started after a rule was set applies it; one that missed an announcement reads the rules again when it resubscribes', async () => {
    const [a] = (await replicas(1)) as [RedisFaultRules];
    const prefix = `f${prefixes}`;
    await a.add('early', input('status:504'));
    const [late] = (await replicas(1, 5, prefix)) as [RedisFaultRules];
    assert.equal((await take(late, 'early'))?.fault.kind, 'status', 'read at start');
    // A rule written but never announced (as by a replica killed between the two).
    const rule = JSON.stringify({ fault: 'drop', operations: [], seconds: 60 });
    await admin.eval(
      FAULT_ADD_SCRIPT,
      3,
      `${prefix}:faults:next`,
      `${prefix}:faults:sessions`,
      `${prefix}:faults:s:unannounced`,
      'unannounced',
      rule,
      60,
      20,
      5,
    );
    assert.equal(await take(late, 'unannounced'), undefined, 'not known yet: no Redis call for the session');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(async () => (await take(late, 'unannounced'))?.fault.kind === 'drop', {
      what: 'the rule read again once subscribed again',
      timeoutMs: 10_000,
    });
  });

  it('answers without the rule (logged) while Redis cannot be reached, and applies rules again once it is back', async () => {
    const [a] = (await replicas(1)) as [RedisFaultRules];
    await a.add('down', input('status:503'));
    await redis.stop();
    try {
      assert.equal(await take(a, 'down'), undefined);
      await assert.rejects(a.add('down', input('drop')), (error: ProblemError) => error.kind === PROBLEMS.storeUnavailable);
      assert.ok(
        lines.some((line) => /the fault rules of session "down" could not be read/.test(line)),
        lines.join('\n'),
      );
    } finally {
      await redis.start();
    }
    await until(async () => (await take(a, 'down'))?.fault.kind === 'status', { what: 'the rule applies again', timeoutMs: 10_000 });
  });
});
