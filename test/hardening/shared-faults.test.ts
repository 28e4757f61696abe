/**
 * Session fault rules on a shared team mock: two replicas (the mock's CLI in child processes) on one
 * real Redis. A rule set through one replica applies on both, counted once across them: "the next 3
 * creates answer 503" set through A, creates sent alternately to A and B, exactly 3 faulted in all
 * (before: the rule lived in A's process, so only A's creates were faulted). `GET /__mock/faults`
 * says where the rules live.
 */
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { CREATE_PATHS } from './support/corpus-types.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';

const TOKEN = 'shared-faults-token';

interface Listing {
  rules: { id: number; remaining: number | null; hits: number }[];
  where: { kind: string; detail: string };
}

describe('hardening: fault rules on a shared mock, 2 replicas on one real Redis', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let replicas: MockProcess[] = [];
  let lot: number;
  before(async () => {
    redis = await startRedis();
    replicas = await Promise.all([0, 1].map(() => startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'faults'])));
    lot = (await discoverTarget(replicas[0]?.url ?? '', TOKEN)).lotIds[0] ?? 0;
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.dispose();
  });

  const create = async (url: string, session: string, i: number) => {
    const answer = await fetch(`${url}${CREATE_PATHS['lot-transfers']}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'X-Mock-Session': session },
      body: JSON.stringify({ fk_lot_id: lot, source_scancode: `S-${i}`, target_scancode: 'T', amount: 1 }),
    });
    await answer.arrayBuffer();
    return { status: answer.status, fault: answer.headers.get('x-mock-fault') };
  };
  const listing = async (url: string, session: string): Promise<Listing> => {
    const answer = await fetch(`${url}/__mock/faults`, { headers: { 'X-Mock-Session': session } });
    assert.equal(answer.status, 200);
    return (await answer.json()) as Listing;
  };

  it('"the next 3 creates answer 503" set through A: creates alternately to A and B, exactly 3 faulted in total, on both', async () => {
    const [a, b] = replicas.map((replica) => replica.url) as [string, string];
    const added = await fetch(`${a}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Mock-Session': 'ci' },
      body: JSON.stringify({ fault: 'status:503', operations: ['createLotTransfer'], count: 3 }),
    });
    assert.equal(added.status, 201);
    const rule = (await added.json()) as { id: number };
    const seen = await listing(b, 'ci');
    assert.equal(seen.where.kind, 'redis');
    assert.match(seen.where.detail, /every replica .* applies them, each request counted once across replicas/);
    assert.deepEqual(
      seen.rules.map((r) => [r.id, r.remaining]),
      [[rule.id, 3]],
      'B lists the rule set through A',
    );
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await create(i % 2 === 0 ? a : b, 'ci', i));
    const faulted = answers.filter((x) => x.status === 503);
    process.stdout.write(`      creates alternately to A and B: ${answers.map((x) => x.status).join(' ')}\n`);
    assert.equal(faulted.length, 3, 'exactly 3 faulted in total');
    assert.deepEqual(
      answers.slice(0, 3).map((x) => [x.status, x.fault]),
      [0, 1, 2].map(() => [503, `status:503; rule=${rule.id}`]),
      'the next three, whichever replica served them (A, B, A)',
    );
    assert.ok(
      answers.slice(3).every((x) => x.status === 201 && x.fault === null),
      'then the real answers',
    );
    assert.deepEqual((await listing(a, 'ci')).rules, [], 'used up, on A');
    assert.deepEqual((await listing(b, 'ci')).rules, [], 'and on B');
  });

  it('a rule cleared through B stops on A at once; another session is never faulted', async () => {
    const [a, b] = replicas.map((replica) => replica.url) as [string, string];
    const added = await fetch(`${a}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Mock-Session': 'always' },
      body: JSON.stringify({ fault: 'status:500' }),
    });
    assert.equal(added.status, 201);
    assert.equal((await create(b, 'always', 1)).status, 500);
    assert.equal((await create(a, 'someone-else', 1)).status, 201);
    const cleared = await fetch(`${b}/__mock/faults`, { method: 'DELETE', headers: { 'X-Mock-Session': 'always' } });
    assert.equal(cleared.status, 204);
    assert.equal((await create(a, 'always', 2)).status, 201);
  });

  it('without --store, GET /__mock/faults says the rules live in the process', async () => {
    const alone = await startMockProcess(['--quiet']);
    try {
      const seen = await listing(alone.url, 'default');
      assert.equal(seen.where.kind, 'process');
      assert.match(seen.where.detail, /in this mock process/);
    } finally {
      await alone.stop();
    }
  });
});
