/**
 * The journal rewritten while the mock CLI runs in a child process, and `kill -9`
 * during the rewrite. A compaction at start (a journal past 16 MiB, half of it records a reset dropped)
 * killed as it starts writing, midway, and once done loses nothing: after the restart every record is
 * listed, the reset stays, ids continue past the dropped ones. A fresh journal being written because
 * the journal was deleted, killed midway, never leaves a partial journal at the path: the part written
 * is kept aside and named in the log, and every line of it replays.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeLine } from '../../mock/journal-line.js';
import { startChild, type Child } from '../../support/processes.js';
import { until } from '../../support/wait.js';
import { listAll } from './support/burst.js';
import { CREATE_PATHS } from './support/corpus-types.js';
import { mockCli, startMockProcess, type MockProcess } from './support/mock-process.js';

const TOKEN = 'rewrite-token';
/** Records kept (session `default`) and records a reset dropped (session `dropped`). */
const KEPT = 40_000;
const DROPPED = 40_000;
const MiB = 1024 * 1024;
/** The journals hold more records in a session than the default limit allows creating. */
const ARGS = ['--quiet', '--max-records-per-session', '100000'];

function record(id: number, tag: string): Record<string, string | number | boolean> {
  return {
    id,
    fk_lot_id: 2001,
    lotnumber: 'L-240101',
    source_scancode: `${tag}-${id}`,
    target_scancode: 'T-0000000000',
    amount: id,
    completed: false,
    created: '2026-11-22T10:11:12.345Z',
    modified: '2026-11-22T10:11:12.345Z',
  };
}

/** `KEPT` records in `default`; with `dropped`, as many in session `dropped` and then its reset. */
async function writeJournal(file: string, dropped: boolean): Promise<void> {
  const lines: string[] = [];
  for (let id = 1; id <= KEPT; id++) {
    lines.push(encodeLine({ op: 'create', session: 'default', resource: 'lot-transfers', record: record(id, 'KEPT') }));
    if (dropped && id <= DROPPED)
      lines.push(encodeLine({ op: 'create', session: 'dropped', resource: 'lot-transfers', record: record(id, 'DROPPED') }));
  }
  if (dropped) lines.push(encodeLine({ op: 'reset', session: 'dropped' }));
  await writeFile(file, lines.join(''));
}

async function create(mock: MockProcess, session: string): Promise<number> {
  const answer = await fetch(`${mock.url}${CREATE_PATHS['lot-transfers']}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'X-Mock-Session': session },
    body: JSON.stringify({ fk_lot_id: 2001, source_scancode: 'NEW', target_scancode: 'T', amount: 1 }),
  });
  const text = await answer.text();
  assert.equal(answer.status, 201, text);
  return Number((JSON.parse(text) as { id: number }).id);
}

/** The listed records of `default` are exactly ids 1..count, each with its own marker. */
async function assertKept(mock: MockProcess, count: number, label: string): Promise<void> {
  const rows = await listAll(mock.url, 'lot-transfers', 'default');
  assert.equal(rows.length, count, `${label}: every kept record is listed`);
  rows.forEach((row, i) => {
    assert.equal(row['id'], i + 1, label);
    assert.equal(row['source_scancode'], `KEPT-${i + 1}`, label);
  });
}

/** The mock CLI on `file`, as a bare child (it can be killed before it listens). */
function spawnMock(file: string): Child {
  return startChild('goods-mock', mockCli(['--port', '0', ...ARGS, '--state-file', file]), { env: { ...process.env, PORT: '' } });
}

/** Waits until `file` exists with at least `bytes` (polled every millisecond), then kill -9. */
async function killWhenWritten(child: Child, file: string, bytes: number): Promise<void> {
  await until(() => existsSync(file) && statSync(file).size >= bytes, {
    what: `${file} written to ${bytes} bytes`,
    timeoutMs: 60_000,
    intervalMs: 1,
  });
  await child.kill();
  await child.stop();
}

describe('hardening: the journal rewritten, and kill -9 during the rewrite (--state-file)', function () {
  this.timeout(180_000);
  let dir: string;
  let original: string;
  let mock: MockProcess | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hardening-rewrite-'));
    original = join(dir, 'original.jsonl');
    await writeJournal(original, true);
    assert.ok(statSync(original).size > 16 * MiB, `the journal (${statSync(original).size} bytes) is past the compaction threshold`);
  });
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const at of ['its first bytes', '4 MiB', 'its end'] as const) {
    it(`a compaction at start killed at ${at}: nothing is lost, the reset stays, ids continue`, async () => {
      const file = join(dir, `compact-${at.replace(/\W/g, '')}.jsonl`);
      await copyFile(original, file);
      const before = statSync(file).size;
      const child = spawnMock(file);
      if (at === 'its end') {
        await until(() => /compacted from \d+ to \d+ bytes/.test(child.stderr()), {
          what: 'the compaction done',
          timeoutMs: 60_000,
          intervalMs: 1,
        });
        await child.kill();
        await child.stop();
        assert.ok(statSync(file).size < before / 2, 'the journal was compacted');
      } else {
        await killWhenWritten(child, `${file}.compact.tmp`, at === '4 MiB' ? 4 * MiB : 1);
        assert.ok(existsSync(`${file}.compact.tmp`), 'killed while the compaction was being written');
        assert.equal(statSync(file).size, before, 'the journal at the path is untouched');
      }
      mock = await startMockProcess([...ARGS, '--state-file', file], 60_000);
      if (at !== 'its end') assert.match(mock.stderr(), /an unfinished compaction of a stopped mock .* removed/);
      await assertKept(mock, KEPT, `killed at ${at}`);
      assert.deepEqual(await listAll(mock.url, 'lot-transfers', 'dropped'), [], 'the reset stays');
      assert.equal(await create(mock, 'dropped'), DROPPED + 1, 'the ids the reset dropped are not handed out again');
      assert.equal(await create(mock, 'default'), KEPT + 1);
      assert.ok(!(await readdir(dir)).some((name) => name.includes('.compact.tmp')), 'no unfinished compaction is left');
    });
  }

  it('a fresh journal (the journal was deleted) killed midway: no partial journal at the path; the part written kept aside and replayable', async () => {
    const file = join(dir, 'repair.jsonl');
    await writeJournal(file, false);
    const child = spawnMock(file);
    await until(() => /listening on/.test(child.stdout()), { what: 'the mock listening', timeoutMs: 60_000 });
    await rm(file);
    await killWhenWritten(child, `${file}.rewrite.tmp`, 4 * MiB);
    assert.equal(existsSync(file), false, 'no partial journal at the path');
    mock = await startMockProcess([...ARGS, '--state-file', file], 60_000);
    const aside = /the part it wrote is kept as (\S+) /.exec(mock.stderr())?.[1];
    assert.ok(aside !== undefined && existsSync(aside), mock.stderr());
    assert.match(mock.stderr(), /no journal is at the path/);
    await mock.stop();
    // Every line of the part written replays: a prefix of the records, in order.
    await rm(file);
    mock = await startMockProcess([...ARGS, '--state-file', aside], 60_000);
    const rows = await listAll(mock.url, 'lot-transfers', 'default');
    assert.ok(rows.length > 0 && rows.length < KEPT, `${rows.length} records in the part written`);
    await assertKept(mock, rows.length, 'the part written');
    const skipped = mock
      .stderr()
      .split('\n')
      .filter((line) => line.includes('skipped') && !line.includes('torn last line'));
    assert.deepEqual(skipped, [], 'no damaged line in it (but a torn last one)');
  });

  it('a fresh journal written to the end survives a kill -9 right after: every record after the restart', async () => {
    const file = join(dir, 'repaired.jsonl');
    await writeJournal(file, false);
    const child = spawnMock(file);
    await until(() => /listening on/.test(child.stdout()), { what: 'the mock listening', timeoutMs: 60_000 });
    await rm(file);
    await until(() => /wrote a fresh journal/.test(child.stderr()), {
      what: 'the fresh journal written',
      timeoutMs: 60_000,
      intervalMs: 1,
    });
    await child.kill();
    await child.stop();
    mock = await startMockProcess([...ARGS, '--state-file', file], 60_000);
    await assertKept(mock, KEPT, 'after the kill');
    assert.equal(await create(mock, 'default'), KEPT + 1);
  });
});
