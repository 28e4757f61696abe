import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal, type JournalEntry } from './journal.js';
import type { MockServer } from './server.js';
import { postJson, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const transfer = (n: number) => ({ fk_lot_id: 2101, source_scancode: `S${n}`, target_scancode: `T${n}`, amount: n });
const sample = (n: number) => ({ fk_lot_id: 2001, fk_user_id: n });

async function list(server: MockServer, resource: string, session?: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server.url}/__mock/${resource}`, { headers: session ? { 'X-Mock-Session': session } : {} });
  return (await response.json()) as Record<string, unknown>[];
}

describe('mock durable state (--state-file journal)', () => {
  let dir: string;
  let stateFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'goods-mock-journal-'));
    stateFile = join(dir, 'state.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps recorded objects (per session) across a restart; ids and sequences continue', async () => {
    let server = await startMock({ stateFile });
    const answered = [];
    for (let n = 1; n <= 3; n++) answered.push(await (await postJson(server, TRANSFERS_PATH, transfer(n))).json());
    const sampleAnswer = await (await postJson(server, SAMPLES_PATH, sample(1))).json();
    const otherSession = await (await postJson(server, SAMPLES_PATH, sample(2), { 'X-Mock-Session': 'qa' })).json();
    await server.close();

    const lines = readFileSync(stateFile, 'utf8').trim().split('\n');
    assert.equal(lines.length, 5);
    assert.deepEqual(JSON.parse(lines[4] ?? '') as unknown, {
      op: 'create',
      session: 'qa',
      resource: 'test-samples',
      record: otherSession,
    });

    server = await startMock({ stateFile });
    try {
      assert.deepEqual(await list(server, 'lot-transfers'), answered);
      assert.deepEqual(await list(server, 'test-samples'), [sampleAnswer]);
      assert.deepEqual(await list(server, 'test-samples', 'qa'), [otherSession]);
      const next = (await (await postJson(server, TRANSFERS_PATH, transfer(4))).json()) as { id: number };
      assert.equal(next.id, 4);
      const nextSample = (await (await postJson(server, SAMPLES_PATH, sample(3))).json()) as { id: number; sample_number: string };
      assert.deepEqual([nextSample.id, nextSample.sample_number], [2, 'S-000002']);
    } finally {
      await server.close();
    }
  });

  it('journals a reset: a restart after a reset shows the reset, and ids are not reused', async () => {
    let server = await startMock({ stateFile });
    await postJson(server, TRANSFERS_PATH, transfer(1));
    await postJson(server, TRANSFERS_PATH, transfer(2));
    assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
    const after = await (await postJson(server, TRANSFERS_PATH, transfer(3))).json();
    await server.close();
    server = await startMock({ stateFile });
    try {
      assert.deepEqual(await list(server, 'lot-transfers'), [after]);
      const next = (await (await postJson(server, TRANSFERS_PATH, transfer(4))).json()) as { id: number };
      assert.equal(next.id, 4);
    } finally {
      await server.close();
    }
  });

  it('reports and skips a torn last line, keeps every earlier record, and appends after it cleanly', async () => {
    let server = await startMock({ stateFile });
    const first = await (await postJson(server, SAMPLES_PATH, sample(1))).json();
    const second = await (await postJson(server, SAMPLES_PATH, sample(2))).json();
    await server.close();
    appendFileSync(stateFile, '{"op":"create","session":"default","resource":"test-sam');
    const logged: string[] = [];
    server = await startMock({ stateFile, log: (line) => logged.push(line) });
    let third: unknown;
    try {
      assert.ok(
        logged.some((line) => line.includes(stateFile) && line.includes('line 3') && line.includes('torn')),
        logged.join('\n'),
      );
      assert.deepEqual(await list(server, 'test-samples'), [first, second]);
      third = await (await postJson(server, SAMPLES_PATH, sample(3))).json();
      assert.equal((third as { id: number }).id, 3);
    } finally {
      await server.close();
    }
    server = await startMock({ stateFile, log: () => undefined });
    try {
      assert.deepEqual(await list(server, 'test-samples'), [first, second, third]);
    } finally {
      await server.close();
    }
  });

  it('skips invalid lines anywhere (garbage, wrong shapes) without crashing', async () => {
    const record = {
      id: 7,
      fk_lot_id: 2001,
      fk_user_id: 1,
      lotnumber: 'L',
      sample_number: 'S-000009',
      status: 'NEW',
      notes: '',
      created: 'x',
      modified: 'x',
    };
    writeFileSync(
      stateFile,
      [
        'not json',
        '{"op":"create"}',
        '[]',
        JSON.stringify({ op: 'create', session: 'default', resource: 'test-samples', record }),
        '\u0000\u0000',
        '',
      ].join('\n'),
    );
    const logged: string[] = [];
    const server = await startMock({ stateFile, log: (line) => logged.push(line) });
    try {
      assert.equal(logged.filter((line) => line.includes('skipped')).length, 4);
      assert.deepEqual(await list(server, 'test-samples'), [record]);
      const next = (await (await postJson(server, SAMPLES_PATH, sample(1))).json()) as { id: number; sample_number: string };
      assert.deepEqual([next.id, next.sample_number], [8, 'S-000010']);
    } finally {
      await server.close();
    }
  });

  it('fails start-up with a clear message when the state file cannot be opened', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    const unwritable = join(dir, 'a-file', 'state.jsonl');
    await assert.rejects(startMock({ stateFile: unwritable }), (error: Error) => {
      assert.match(error.message, /cannot open the state file/);
      assert.ok(error.message.includes(unwritable));
      assert.match(error.message, /--state-file/);
      return true;
    });
  });

  it('answers 503, not 201, when a create cannot be made durable (/dev/full), and records nothing', async function () {
    const logged: string[] = [];
    const server = await startMock({ stateFile: '/dev/full', log: (line) => logged.push(line) });
    try {
      const response = await postJson(server, SAMPLES_PATH, sample(1));
      assert.equal(response.status, 503);
      assert.equal(((await response.json()) as { type: string }).type, 'https://goods.example/problems/state-not-durable');
      assert.deepEqual(await list(server, 'test-samples'), []);
      assert.equal((await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 503);
      assert.ok(logged.some((line) => line.includes('state file write failed')));
    } finally {
      await server.close();
    }
  });

  it('group commit: concurrent appends are all written, each resolved only after its flush', async () => {
    const opened = await openJournal(stateFile, () => undefined);
    const appends = Array.from({ length: 200 }, (_, i) =>
      opened.journal.append({ op: 'create', session: `s${i % 3}`, resource: 'test-samples', record: { id: i } }).then(() => {
        const onDisk = readFileSync(stateFile, 'utf8');
        assert.ok(onDisk.includes(`"record":{"id":${i}}`), `append ${i} resolved before it was on disk`);
      }),
    );
    await Promise.all(appends);
    await opened.journal.close();
    const entries: JournalEntry[] = [];
    const reopened = await openJournal(
      stateFile,
      () => undefined,
      (entry) => entries.push(entry),
    );
    await reopened.journal.close();
    assert.equal(reopened.replayed, 200);
    assert.equal(entries.length, 200);
    assert.deepEqual(
      entries.map((e) => (e.op === 'create' ? e.record['id'] : -1)),
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  it('keeps a complete last entry that lacks only its newline, and appends after it on a new line', async () => {
    writeFileSync(stateFile, '{"op":"create","session":"default","resource":"lot-transfers","record":{"id":7}}');
    const first = await openJournal(stateFile, () => undefined);
    await first.journal.append({ op: 'reset', session: 'default' });
    await first.journal.close();
    const ops: string[] = [];
    const logged: string[] = [];
    const second = await openJournal(
      stateFile,
      (line) => logged.push(line),
      (entry) => ops.push(entry.op),
    );
    await second.journal.close();
    assert.deepEqual([ops, logged, second.replayed], [['create', 'reset'], [], 2]);
  });

  it('replays a journal larger than its read chunk line by line: every entry, in order, a torn tail reported', async () => {
    const count = 12_000; // about 2.4 MB: the 1 MiB replay chunk splits lines
    const lines = Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        op: 'create',
        session: 'default',
        resource: 'lot-transfers',
        record: { id: i + 1, note: 'x'.repeat(150 + (i % 7)) },
      }),
    );
    writeFileSync(stateFile, `${lines.join('\n')}\n{"op":"create","sess`);
    const logged: string[] = [];
    const ids: unknown[] = [];
    const opened = await openJournal(
      stateFile,
      (line) => logged.push(line),
      (entry) => ids.push(entry.op === 'create' ? entry.record['id'] : null),
    );
    await opened.journal.append({ op: 'reset', session: 'default' });
    await opened.journal.close();
    assert.equal(opened.replayed, count);
    assert.deepEqual(
      ids,
      Array.from({ length: count }, (_, i) => i + 1),
    );
    assert.deepEqual(logged, [`state file ${stateFile} line ${count + 1}: torn last line (incomplete write) skipped`]);
    // The next append starts on a new line after the torn one, so it replays.
    const again: unknown[] = [];
    const reopened = await openJournal(
      stateFile,
      () => undefined,
      (entry) => again.push(entry.op),
    );
    await reopened.journal.close();
    assert.equal(again.length, count + 1);
    assert.equal(again[count], 'reset');
  });
});
