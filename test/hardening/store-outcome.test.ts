/**
 * An answer never says "not recorded" for a create that was recorded. The mock CLI
 * with `--store` on a real redis-server that is frozen (SIGSTOP) and resumed: the creates sent while it
 * is frozen are answered with what happened once it answers (201, each listed once), not 503 after
 * 2 s. When the outcome cannot be known (Redis killed while the creates wait), the answer is 504
 * `store-outcome-unknown`, saying the create may have been recorded and where to look, never
 * `store-unavailable`.
 */
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { until } from '../../support/wait.js';
import { leakIn } from './support/answers.js';
import { burst, reconcile, tally, type BurstAnswer } from './support/burst.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';

const TOKEN = 'outcome-token';
const CREATES = 32;
const FROZEN_MS = 5000;

describe('hardening: creates while Redis is frozen (SIGSTOP) answer what happened', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let mock: MockProcess;
  let lot: number;
  before(async () => {
    redis = await startRedis({ appendfsync: 'always' });
    mock = await startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', 'frozen']);
    lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
  });
  afterEach(() => redis.thaw());
  after(async () => {
    await mock.stop();
    await redis.dispose();
  });

  it(`Redis frozen ${FROZEN_MS / 1000} s: ${CREATES} creates sent meanwhile are answered 201 once it answers, each listed once`, async () => {
    redis.freeze();
    const started = Date.now();
    const thawed = new Promise<void>((resolve) =>
      setTimeout(() => {
        redis.thaw();
        resolve();
      }, FROZEN_MS),
    );
    const [answers] = await Promise.all([burst(mock.url, { count: CREATES, lot, token: TOKEN, tag: 'FROZEN' }), thawed]);
    const took = Date.now() - started;
    const counts = tally(answers);
    process.stdout.write(`      frozen ${FROZEN_MS} ms: ${JSON.stringify(counts)}, answered after ${took} ms\n`);
    assert.deepEqual(counts, { 201: CREATES }, 'every create answered 201');
    assert.ok(took >= FROZEN_MS - 100, 'answered once Redis answered');
    const result = await reconcile(mock.url, answers);
    assert.deepEqual(
      {
        lost: result.lost,
        duplicated: result.duplicated,
        refused: result.refusedButListed,
        ids: result.duplicateIds,
        changed: result.changed,
      },
      { lost: [], duplicated: [], refused: [], ids: [], changed: [] },
    );
    assert.equal(result.listed, CREATES);
    assert.ok(mock.alive());
  });

  it('Redis killed while creates wait for it: 504 store-outcome-unknown (it may have been recorded; where to look), never store-unavailable', async () => {
    redis.freeze();
    const pending = burst(mock.url, { count: 8, lot, token: TOKEN, tag: 'KILLED', session: () => 'killed' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.kill();
    const answers: BurstAnswer[] = await pending;
    const counts = tally(answers);
    process.stdout.write(`      Redis killed while frozen: ${JSON.stringify(counts)}\n`);
    assert.deepEqual(counts, { '504 store-outcome-unknown': 8 });
    await redis.start();
    await until(async () => (await fetch(`${mock.url}/__mock/health`)).status === 200, { what: 'the mock connected again' });
    // The creates were sent but Redis never ran them (it was frozen, then killed): none is listed.
    const result = await reconcile(mock.url, answers);
    assert.equal(result.listed, 0);
    for (const answer of answers) {
      assert.equal(leakIn(answer.detail ?? ''), undefined, 'no internals in the answer');
      assert.match(answer.detail ?? '', /did not confirm this create \(the connection to Redis closed after the command was sent\)/);
      assert.match(
        answer.detail ?? '',
        /it may have\. Look before retrying .*GET \/__mock\/(lot-transfers|test-samples) with X-Mock-Session: killed/,
      );
    }
    // Once Redis is back, creates are answered 201 again.
    const again = await burst(mock.url, { count: 4, lot, token: TOKEN, tag: 'AGAIN', session: () => 'killed' });
    assert.deepEqual(tally(again), { 201: 4 });
  });
});
