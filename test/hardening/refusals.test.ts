/**
 * A refusal means "nothing happened". 2,000 creates sent at once, one connection
 * each, to the mock CLI in a child process, on each store (memory, the `--state-file` journal, Redis):
 * every create answered 201 is listed exactly once and exactly as answered, no create answered with an
 * error is listed, ids are unique. Once on the defaults (the connection limit refuses), once with tight
 * limits so that every limit a create can meet refuses some (connections, sessions, records, bytes).
 * The journal is replayed after a restart and checked again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { burst, reconcile, tally, type BurstAnswer } from './support/burst.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';

const TOKEN = 'refusal-token';
const CREATES = 2000;
/** Limits tight enough that the burst meets each of them. */
const TIGHT = ['--max-connections', '200', '--max-sessions', '2', '--max-records-per-session', '100', '--max-recorded-bytes', '55000'];
/** Half the creates in the default session (it fills first: 507 session-full), the rest over three more (one too many: 429). */
const SESSIONS = (i: number): string => (i % 2 === 0 ? 'default' : (['a', 'b', 'c'][i % 3] ?? 'a'));

/**
 * A create whose connection broke before an answer (under this load the kernel resets a rare connection)
 * may or may not be recorded; when it is, the mock's log must say its answer could not be sent.
 */
async function check(url: string, answers: BurstAnswer[], label: string, log: string): Promise<void> {
  const result = await reconcile(url, answers);
  const created = answers.filter((a) => a.status === 201).length;
  for (const marker of result.unansweredButListed)
    assert.match(log, new RegExp(`could not be sent.*"${marker}"`), `${label}: ${marker} was recorded without an answer: logged as such`);
  assert.deepEqual(result.refusedButListed, [], `${label}: no create answered with an error is listed`);
  assert.deepEqual(result.lost, [], `${label}: every create answered 201 is listed`);
  assert.deepEqual(result.duplicated, [], `${label}: listed once`);
  assert.deepEqual(result.duplicateIds, [], `${label}: ids unique`);
  assert.deepEqual(result.changed, [], `${label}: listed exactly as answered`);
  assert.deepEqual(result.unknown, [], `${label}: nothing else listed`);
  assert.equal(result.listed, created + result.unansweredButListed.length, `${label}: ${created} answered 201, ${result.listed} listed`);
}

function report(label: string, answers: BurstAnswer[]): Record<string, number> {
  const counts = tally(answers);
  process.stdout.write(`      ${label}: ${JSON.stringify(counts)}\n`);
  const unanswered = answers.filter((a) => a.status === 0).length;
  assert.ok(unanswered <= CREATES / 100, `${label}: ${unanswered} creates got no answer (a connection reset now and then, not more)`);
  return counts;
}

interface StoreUnderTest {
  name: string;
  args(scenario: string): string[];
  /** After the checks: restart and check again (the journal's replay). */
  restart?: boolean;
}

describe('hardening: 2,000 creates at once, one connection each: a refused create is never recorded', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let dir: string;
  before(async () => {
    redis = await startRedis({ appendfsync: 'everysec' });
    dir = await mkdtemp(join(tmpdir(), 'refusals-'));
  });
  after(async () => {
    await redis.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const stores: StoreUnderTest[] = [
    { name: 'memory', args: () => [] },
    { name: 'journal', args: (scenario) => ['--state-file', join(dir, `${scenario}.jsonl`)], restart: true },
    { name: 'redis', args: (scenario) => ['--store', redis.url, '--store-prefix', scenario] },
  ];

  for (const store of stores) {
    describe(`store: ${store.name}`, () => {
      let mock: MockProcess | undefined;
      afterEach(async () => {
        await mock?.stop();
        mock = undefined;
      });

      /**
       * Bursts of CREATES at a fresh mock, checked after each: one, or up to three until `enough` holds
       * (which limits a burst meets depends on how fast the machine lets the connections arrive).
       */
      const run = async (
        scenario: string,
        extra: string[],
        session?: (i: number) => string,
        enough: (counts: Record<string, number>) => boolean = () => true,
      ): Promise<Record<string, number>> => {
        const args = ['--quiet', ...store.args(`${store.name}-${scenario}`), ...extra];
        mock = await startMockProcess(args);
        const lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
        const answers: BurstAnswer[] = [];
        const counts: Record<string, number> = {};
        for (let round = 1; round <= 3 && (round === 1 || !enough(counts)); round += 1) {
          const tag = round === 1 ? scenario : `${scenario}${round}`;
          const burstAnswers = await burst(mock.url, { count: CREATES, lot, token: TOKEN, tag, ...(session ? { session } : {}) });
          answers.push(...burstAnswers);
          for (const [key, n] of Object.entries(report(`${store.name}, ${tag}`, burstAnswers))) counts[key] = (counts[key] ?? 0) + n;
          await check(mock.url, answers, store.name, mock.stderr());
        }
        if (store.restart) {
          const log = mock.stderr();
          await mock.stop();
          mock = await startMockProcess(args);
          await check(mock.url, answers, `${store.name} after a restart`, log);
        }
        assert.ok(mock.alive());
        return counts;
      };

      it('on the defaults: 201 or 503 mock-busy; every 201 listed once, no 503 listed', async () => {
        const counts = await run('defaults', []);
        for (const key of Object.keys(counts)) assert.match(key, /^(201|503 mock-busy|no answer .*)$/);
      });

      it('with tight limits (connections, sessions, records, bytes): each refuses some; only the 201s are listed', async () => {
        const kinds = ['201', '503 mock-busy', '429 too-many-sessions', '507 session-full', '507 mock-full'];
        const counts = await run('tight', TIGHT, SESSIONS, (seen) => kinds.every((key) => (seen[key] ?? 0) > 0));
        for (const key of Object.keys(counts))
          assert.match(key, /^(201|503 mock-busy|429 too-many-sessions|507 session-full|507 mock-full|no answer .*)$/);
        for (const key of kinds) assert.ok((counts[key] ?? 0) > 0, `some ${key}`);
      });
    });
  }
});
