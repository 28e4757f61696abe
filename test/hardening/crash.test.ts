/**
 * Crashes: the mock CLI with --state-file is killed with SIGKILL in the middle of a burst of
 * creates, several times; after every restart each create that had been answered 201 is there
 * exactly once and ids continue without reuse. A torn last journal line is reported (file and line)
 * and skipped. An unwritable state file stops start-up (exit 1, clear message); a full one answers
 * 503 problem instead of 201 and records nothing.
 *
 * One owner per state file: a second mock on a state file in use exits 1 naming the file and
 * the holder's pid; the lock of a mock killed with SIGKILL is taken over by the next start; missing parent
 * folders are created. A state file deleted while the mock runs is written afresh from what the
 * mock holds, so the creates it acknowledged survive a restart.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREATE_PATHS, type Resource } from './support/corpus-types.js';
import { postJson, type PostAnswer } from './support/post-json.js';
import { runMockToExit, startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget, listings, RESOURCES } from './support/run-corpus.js';
import { until } from '../../support/wait.js';

const TOKEN = 'crash-token';
const CRASHES = 3;

type Answered = { resource: Resource; record: Record<string, unknown> };

function post(agent: Agent, base: URL, path: string, body: string): Promise<PostAnswer> {
  return postJson(agent, base, path, body, TOKEN);
}

/** Fires `total` creates over 16 connections and SIGKILLs the mock once `killAfter` were answered 201. */
async function burstAndKill(mock: MockProcess, lots: number[], tag: string, total: number, killAfter: number): Promise<Answered[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const base = new URL(mock.url);
  const answered: Answered[] = [];
  let killing: Promise<void> | undefined;
  await Promise.allSettled(
    Array.from({ length: total }, async (_, i) => {
      const resource: Resource = i % 2 === 0 ? 'lot-transfers' : 'test-samples';
      const lot = lots[i % lots.length];
      const body =
        resource === 'lot-transfers'
          ? { fk_lot_id: lot, source_scancode: `${tag}-${i}`, target_scancode: 'T', amount: 1 }
          : { fk_lot_id: lot, fk_user_id: i + 1, notes: `${tag}-${i}` };
      const answer = await post(agent, base, CREATE_PATHS[resource], JSON.stringify(body));
      if (answer.status !== 201) throw new Error(`answered ${answer.status}: ${answer.body}`);
      answered.push({ resource, record: JSON.parse(answer.body) as Record<string, unknown> });
      if (answered.length >= killAfter) killing ??= mock.kill();
    }),
  );
  await (killing ?? mock.kill());
  agent.destroy();
  return answered;
}

describe('hardening: kill -9 during a burst of creates (--state-file)', function () {
  this.timeout(90_000);
  let dir: string;
  let mock: MockProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hardening-crash-'));
  });
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it(`loses no answered create over ${CRASHES} crashes, never reuses an id, and skips a torn last line`, async () => {
    const stateFile = join(dir, 'state.jsonl');
    const answered: Answered[] = [];
    let lots: number[] = [];
    let killedPid: number | undefined;
    for (let crash = 1; crash <= CRASHES; crash++) {
      mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
      if (killedPid !== undefined) {
        // The lock left by the killed mock names a pid that no longer runs: taken over, and said so.
        assert.ok(mock.stderr().includes(`stale lock of pid ${killedPid} (no longer running) removed`), mock.stderr());
      }
      assert.equal(await readFile(`${stateFile}.lock`, 'utf8'), `${mock.child.pid}\n`, 'the running mock holds the lock');
      if (lots.length === 0) lots = (await discoverTarget(mock.url, TOKEN)).lotIds;
      const before = await listings(mock.url);
      for (const resource of RESOURCES) {
        const ids = before[resource].map((r) => Number(r['id']));
        assert.equal(new Set(ids).size, ids.length, `after crash ${crash - 1}: ${resource} ids unique`);
        for (const { record } of answered.filter((a) => a.resource === resource)) {
          assert.equal(
            before[resource].filter((r) => r['id'] === record['id']).length,
            1,
            `${resource} ${String(record['id'])} present once`,
          );
          assert.deepEqual(
            before[resource].find((r) => r['id'] === record['id']),
            record,
            'exactly as it was answered',
          );
        }
      }
      const maxBefore = Object.fromEntries(RESOURCES.map((r) => [r, Math.max(0, ...before[r].map((x) => Number(x['id'])))]));
      const burst = await burstAndKill(mock, lots, `crash${crash}`, 1500, 200 + crash * 50);
      assert.ok(burst.length >= 200 && burst.length < 1500, `${burst.length} of 1500 creates answered: the kill came mid-burst`);
      for (const { resource, record } of burst) {
        assert.ok(
          Number(record['id']) > (maxBefore[resource] ?? 0),
          `${resource} id ${String(record['id'])} continues after ${maxBefore[resource]}`,
        );
      }
      const exit = await mock.exited;
      assert.equal(exit.signal, 'SIGKILL');
      killedPid = mock.child.pid;
      answered.push(...burst);
      mock = undefined;
    }

    // A torn last line (a write cut off by the crash), appended by hand.
    const lines = (await readFile(stateFile, 'utf8')).split('\n').filter((l) => l !== '');
    await appendFile(stateFile, '{"op":"create","session":"default","resource":"lot-transfers","record":{"id":99999,"fk_lo');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    const torn = lines.length + 1;
    assert.match(
      mock.stderr(),
      new RegExp(`${stateFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line ${torn}: torn last line`),
      'reported with file and line',
    );
    const after = await listings(mock.url);
    for (const resource of RESOURCES) {
      const mine = answered.filter((a) => a.resource === resource).map((a) => a.record);
      for (const record of mine)
        assert.deepEqual(
          after[resource].filter((r) => r['id'] === record['id']),
          [record],
        );
      assert.ok(!after[resource].some((r) => r['id'] === 99999), 'the torn record is skipped');
    }
    // Writing continues on a fresh line: the next create is durable and the journal replays cleanly.
    const base = new URL(mock.url);
    const agent = new Agent({ keepAlive: false });
    const next = await post(
      agent,
      base,
      CREATE_PATHS['lot-transfers'],
      JSON.stringify({ fk_lot_id: lots[0], source_scancode: 'after-torn', target_scancode: 'T', amount: 1 }),
    );
    assert.equal(next.status, 201);
    const nextRecord = JSON.parse(next.body) as Record<string, unknown>;
    const maxTransfer = Math.max(...answered.filter((a) => a.resource === 'lot-transfers').map((a) => Number(a.record['id'])));
    assert.ok(Number(nextRecord['id']) > maxTransfer, 'ids continue without reuse');
    await mock.stop();
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    // The torn tail was cut off at the restart before: the journal replays with nothing to report.
    const reported = [...mock.stderr().matchAll(/line (\d+): /g)].map((m) => Number(m[1]));
    assert.deepEqual(reported, [], `nothing is reported once the torn line is cut off: ${mock.stderr()}`);
    const final = await listings(mock.url);
    assert.deepEqual(
      final['lot-transfers'].filter((r) => r['id'] === nextRecord['id']),
      [nextRecord],
    );
    const lost = answered.filter((a) => !final[a.resource].some((r) => r['id'] === a.record['id'])).length;
    console.log(
      `      ${CRASHES} kill -9 crashes survived, ${answered.length} answered creates checked after each restart, records lost: ${lost}`,
    );
    assert.equal(lost, 0);
  });
});

describe('hardening: a state file that cannot be written', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hardening-state-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const [label, path] of [
    ['a path whose parent is a regular file', (d: string) => join(d, 'regular-file', 'state.jsonl')],
    ['a directory', (d: string) => join(d, 'a-directory')],
    ['a path under /proc', () => '/proc/hardening-no-such-dir/state.jsonl'],
  ] as [string, (d: string) => string][]) {
    it(`fails start-up with exit 1 and a message naming the file: ${label}`, async () => {
      await writeFile(join(dir, 'regular-file'), 'not a directory');
      await mkdir(join(dir, 'a-directory'), { recursive: true });
      const file = path(dir);
      const result = await runMockToExit(['--port', '0', '--quiet', '--state-file', file]);
      assert.equal(result.code, 1, `exit code (stderr: ${result.stderr})`);
      assert.ok(result.stderr.includes(file), `stderr names ${file}: ${result.stderr}`);
      assert.match(result.stderr, /state file/i);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(result.stdout, /listening/);
    });
  }

  it('answers 503 problem (not 201) when the write cannot be made durable (/dev/full), and records nothing', async function () {
    if (!existsSync('/dev/full')) this.skip(); // Linux only: writes to /dev/full fail with ENOSPC
    const mock = await startMockProcess(['--quiet', '--state-file', '/dev/full']);
    try {
      const { lotIds } = await discoverTarget(mock.url, TOKEN);
      const agent = new Agent({ keepAlive: false });
      const base = new URL(mock.url);
      for (const resource of RESOURCES) {
        const body =
          resource === 'lot-transfers'
            ? { fk_lot_id: lotIds[0], source_scancode: 'S', target_scancode: 'T', amount: 1 }
            : { fk_lot_id: lotIds[0], fk_user_id: 1 };
        const answer = await post(agent, base, CREATE_PATHS[resource], JSON.stringify(body));
        assert.equal(answer.status, 503, answer.body);
        const problem = JSON.parse(answer.body) as Record<string, unknown>;
        assert.equal(problem['status'], 503);
        assert.doesNotMatch(answer.body, /\/dev\/full|ENOSPC|\n\s+at /, 'no internals in the answer');
      }
      assert.deepEqual(await listings(mock.url), { 'lot-transfers': [], 'test-samples': [] });
      assert.match(mock.stderr(), /state file write failed/);
      assert.ok(mock.alive());
    } finally {
      await mock.stop();
    }
  });
});

describe('hardening: one mock per state file (lock, detection, folders)', function () {
  this.timeout(60_000);
  let dir: string;
  let mock: MockProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hardening-lock-'));
  });
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const create = (url: string, lot: number | undefined, tag: string) =>
    post(
      new Agent({ keepAlive: false }),
      new URL(url),
      CREATE_PATHS['lot-transfers'],
      JSON.stringify({ fk_lot_id: lot, source_scancode: tag, target_scancode: 'T', amount: 1 }),
    );

  it('a second mock on a state file in use exits 1 naming the file and the pid of the first; the first keeps serving', async () => {
    const stateFile = join(dir, 'shared.jsonl');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    const second = await runMockToExit(['--port', '0', '--quiet', '--state-file', stateFile]);
    assert.equal(second.code, 1, `exit code (stderr: ${second.stderr})`);
    assert.ok(second.stderr.includes(stateFile), second.stderr);
    assert.ok(second.stderr.includes(`pid ${mock.child.pid}`), second.stderr);
    assert.doesNotMatch(second.stderr, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(second.stdout, /listening/);
    const { lotIds } = await discoverTarget(mock.url, TOKEN);
    assert.equal((await create(mock.url, lotIds[0], 'first-still-serves')).status, 201);
    // A graceful stop releases the lock: the next mock starts without a stale-lock report.
    await mock.stop();
    assert.equal(existsSync(`${stateFile}.lock`), false);
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    assert.doesNotMatch(mock.stderr(), /stale lock/);
    assert.equal((await listings(mock.url))['lot-transfers'].length, 1);
  });

  it('takes over the lock of a mock killed with SIGKILL, naming the dead pid', async () => {
    const stateFile = join(dir, 'killed.jsonl');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    const killed = mock.child.pid;
    await mock.kill();
    assert.equal(await readFile(`${stateFile}.lock`, 'utf8'), `${killed}\n`, 'kill -9 leaves the lock behind');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    assert.match(mock.stderr(), new RegExp(`stale lock of pid ${killed} \\(no longer running\\) removed`));
    assert.equal(await readFile(`${stateFile}.lock`, 'utf8'), `${mock.child.pid}\n`);
  });

  it('writes a fresh journal (and logs it) when the state file is deleted while running: both acknowledged creates survive a restart', async () => {
    // Two creates answered 201, the file deleted while the mock ran, then a restart.
    const stateFile = join(dir, 'deleted.jsonl');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    const { lotIds } = await discoverTarget(mock.url, TOKEN);
    const acknowledged = [];
    for (const tag of ['one', 'two']) {
      const answer = await create(mock.url, lotIds[0], tag);
      assert.equal(answer.status, 201);
      acknowledged.push(JSON.parse(answer.body) as Record<string, unknown>);
    }
    await rm(stateFile);
    const logged = /deleted\.jsonl: it was deleted or renamed while the mock ran; wrote a fresh journal from what the mock holds/;
    await until(() => logged.test(mock?.stderr() ?? ''), { what: 'the journal written afresh (within about a second)', timeoutMs: 5000 });
    assert.ok(existsSync(stateFile));
    await mock.stop();
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    assert.deepEqual((await listings(mock.url))['lot-transfers'], acknowledged);
    assert.ok(mock.alive());
  });

  it('creates the missing parent folders of --state-file (the README example on a fresh clone)', async () => {
    const stateFile = join(dir, 'fresh-clone', '.state', 'mock.jsonl');
    mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
    const { lotIds } = await discoverTarget(mock.url, TOKEN);
    assert.equal((await create(mock.url, lotIds[0], 'in-new-folder')).status, 201);
    assert.match(await readFile(stateFile, 'utf8'), /in-new-folder/);
  });
});
