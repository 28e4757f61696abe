/**
 * mock/store/memory.ts on its own: what the in-process store does beyond the interface both stores
 * share (`stores.test.ts`): large records held as Buffers and answered byte for byte, limits counted
 * in UTF-8 bytes and freed by a reset, replay (out of id order, past the limits, unknown resources),
 * the snapshot a journal rewrite is written from, and its health.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCreateLine, encodeLine } from '../journal-line.js';
import { refusal } from '../../test/support/problems.js';
import type { JsonObject } from '../../contract/document.js';
import { bundledContract } from '../testing.js';
import { MemoryStore, type MemoryStoreOptions } from './memory.js';
import { RefusedRecordsError } from './refused-records.js';
import type { CounterSlot, RecordPlan, StoreLimits } from './types.js';

const ID: CounterSlot = { name: 'id', counter: 'notes#id', kind: 'id' };
const NUMBER: CounterSlot = { name: 'number', counter: 'notes#number', kind: 'sequence', prefix: 'N-', width: 4 };
const SLOTS = new Map([['notes', [ID, NUMBER]]]);
const ROOMY: StoreLimits = { maxSessions: 10, maxRecordsPerSession: 1000, maxRecordedBytes: 1 << 24 };
const ALL = { after: 0, limit: 1000, maxBytes: 1 << 24 };

function plan(text: string): RecordPlan {
  return { resource: 'notes', fields: [ID, { name: 'text', value: text }, NUMBER] };
}

function open(options: Partial<MemoryStoreOptions> = {}): Promise<MemoryStore> {
  return MemoryStore.open({
    limits: ROOMY,
    resources: new Map([['notes', { slots: SLOTS.get('notes') ?? [], key: 'id', assigned: true }]]),
    log: () => undefined,
    ...options,
  });
}

function idOf(json: string): unknown {
  return (JSON.parse(json) as { id: unknown }).id;
}

async function ids(store: MemoryStore, session: string, page = ALL): Promise<unknown[]> {
  const { records } = await store.list(session, 'notes', page);
  return records.map((record) => idOf(record.toString()));
}

/** The JSON of record `id` whose text makes it exactly `bytes` long in UTF-8 (two-byte characters, an ASCII pad). */
function textFor(bytes: number, id: number): string {
  const frame = Buffer.byteLength(JSON.stringify({ id, text: '', number: `N-${String(id).padStart(4, '0')}` }));
  const room = bytes - frame;
  return 'é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2);
}

describe('mock/store/memory', () => {
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'memory-store-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('answers records of 4 KiB and past it byte for byte; one past 4 KiB is held as one Buffer, listed as it is', async () => {
    const store = await open();
    const small = await store.create('default', plan(textFor(4096, 1)));
    const large = await store.create('default', plan(textFor(4097, 2)));
    assert.deepEqual([Buffer.byteLength(small), Buffer.byteLength(large)], [4096, 4097]);
    assert.ok(small.length < 4096, 'the text has two-byte characters: bytes, not characters, decide');
    const first = await store.list('default', 'notes', ALL);
    const second = await store.list('default', 'notes', ALL);
    assert.deepEqual(
      first.records.map((record) => record.toString('utf8')),
      [small, large],
    );
    assert.ok(first.records[1]?.equals(Buffer.from(large)));
    // A large record is held as its Buffer (off the V8 heap) and answered as it is; a small one is a
    // string, turned into a fresh Buffer for each listing.
    assert.equal(first.records[1], second.records[1]);
    assert.notEqual(first.records[0], second.records[0]);
    await store.close();
  });

  it('pages by UTF-8 bytes: a page holds what fits in maxBytes, and always at least one record', async () => {
    const store = await open();
    const answers = [];
    for (let n = 1; n <= 3; n++) answers.push(await store.create('default', plan(textFor(1000, n))));
    assert.ok(answers.every((json) => Buffer.byteLength(json) === 1000 && json.length < 1000));
    assert.deepEqual(await ids(store, 'default', { after: 0, limit: 10, maxBytes: 1999 }), [1]);
    assert.deepEqual(await ids(store, 'default', { after: 0, limit: 10, maxBytes: 2000 }), [1, 2]);
    assert.deepEqual(await ids(store, 'default', { after: 1, limit: 10, maxBytes: 10 }), [2], 'one record even past maxBytes');
    const last = await store.list('default', 'notes', { after: 2, limit: 10, maxBytes: 10 });
    assert.equal(last.nextAfter, undefined, 'the last page says nothing follows');
    assert.deepEqual((await store.list('default', 'unknown', ALL)).records, []);
    await store.close();
  });

  it('answers a create at once without a journal (no promise on the hot path), later with one, and a refusal always as a rejection', async () => {
    const store = await open({ limits: { ...ROOMY, maxRecordsPerSession: 1 } });
    const first = store.create('default', plan('now'));
    assert.equal(typeof first, 'string', 'the memory store answers at once');
    assert.equal(idOf(typeof first === 'string' ? first : ''), 1);
    const refused = store.create('default', plan('full'));
    assert.ok(refused instanceof Promise, 'a refusal is a rejected promise, never a throw');
    assert.equal(await refusal(refused), 'session-full');
    await store.close();
    const journaled = await open({ stateFile: join(folder, 'state.jsonl') });
    const later = journaled.create('default', plan('later'));
    assert.ok(later instanceof Promise, 'with a journal the answer waits for the write');
    assert.equal(idOf(await later), 1);
    await journaled.close();
  });

  it('counts --max-recorded-bytes in UTF-8 bytes, all sessions together, and a reset gives them back', async () => {
    const bytes = 600;
    const store = await open({ limits: { ...ROOMY, maxRecordedBytes: 2 * bytes - 1 } });
    assert.equal(Buffer.byteLength(await store.create('a', plan(textFor(bytes, 1)))), bytes);
    // In characters the second record would fit (about 300 each); in bytes it does not.
    assert.equal(await refusal(store.create('b', plan(textFor(bytes, 1)))), 'mock-full');
    await store.reset('a');
    assert.equal(await refusal(store.create('b', plan(textFor(bytes, 1)))), 'none', 'the reset gave the bytes back');
    assert.equal(await refusal(store.create('a', plan(textFor(bytes, 2)))), 'mock-full');
    await store.close();
  });

  it('a reset of a session it never saw records nothing and takes no session slot', async () => {
    const store = await open({ limits: { ...ROOMY, maxSessions: 1 } });
    await store.reset('ghost');
    assert.deepEqual(await ids(store, 'ghost'), []);
    assert.equal(await refusal(store.create('real', plan('r'))), 'none');
    assert.equal(await refusal(store.create('ghost', plan('g'))), 'too-many-sessions');
    await store.close();
  });

  it('replays records out of id order into ascending lists, past every limit, skipping unknown resources', async () => {
    const stateFile = join(folder, 'state.jsonl');
    const record = (id: number, text: string) => JSON.stringify({ id, text, number: `N-${String(id).padStart(4, '0')}` });
    const lines = [
      encodeCreateLine('a', 'notes', record(3, 'three')),
      encodeCreateLine('a', 'notes', record(1, 'one')),
      encodeCreateLine('b', 'notes', record(7, 'seven')),
      encodeCreateLine('a', 'notes', record(2, 'two')),
      encodeCreateLine('c', 'notes', record(1, 'c1')),
      encodeCreateLine('a', 'retired', record(9, 'gone')),
      encodeLine({ op: 'counters', session: 'b', counters: { 'notes#id': 20, 'notes#number': 30 } }),
    ];
    await writeFile(stateFile, `${lines.join('\n')}\n`);
    const logged: string[] = [];
    // Limits far below what the journal holds: replay is never refused by one.
    const store = await open({
      stateFile,
      limits: { maxSessions: 1, maxRecordsPerSession: 1, maxRecordedBytes: 10 },
      log: (line) => logged.push(line),
    });
    try {
      assert.deepEqual(await ids(store, 'a'), [1, 2, 3]);
      assert.deepEqual(await ids(store, 'a', { after: 1, limit: 1, maxBytes: 1 << 20 }), [2]);
      assert.equal((await store.list('a', 'notes', { after: 1, limit: 1, maxBytes: 1 << 20 })).nextAfter, 2);
      assert.deepEqual(await ids(store, 'b'), [7]);
      assert.deepEqual(await ids(store, 'c'), [1]);
      assert.ok(
        logged.some((line) => line.includes('unknown resource "retired" skipped')),
        logged.join('\n'),
      );
      assert.ok(logged.some((line) => line.includes('7 entries replayed')));
      // The limits hold for new creates: three sessions are past maxSessions 1, a is past one record.
      assert.equal(await refusal(store.create('d', plan('new session'))), 'too-many-sessions');
      assert.equal(await refusal(store.create('a', plan('fourth'))), 'session-full');
    } finally {
      await store.close();
    }
    // Counters continue past the replayed records and the replayed counters line.
    const roomy = await open({ stateFile });
    try {
      assert.equal(idOf(await roomy.create('a', plan('next'))), 4);
      assert.deepEqual(JSON.parse(await roomy.create('b', plan('next'))), { id: 21, text: 'next', number: 'N-0031' });
    } finally {
      await roomy.close();
    }
  });

  it('writes a rewrite from its snapshot: counters of a reset session, large records byte for byte', async () => {
    const stateFile = join(folder, 'state.jsonl');
    const first = await open({ stateFile });
    const large = await first.create('a', plan(`ü${'x'.repeat(6000)}😀`));
    const small = await first.create('a', plan('small'));
    for (let n = 0; n < 100; n++) await first.create('gone', plan(`gone ${n}`));
    await first.reset('gone');
    await first.close();
    // Compaction at start (the journal is mostly what the reset dropped) writes the snapshot.
    const logged: string[] = [];
    const second = await open({ stateFile, compactAboveBytes: 1, log: (line) => logged.push(line) });
    await second.close();
    assert.ok(
      logged.some((line) => line.includes('compacted')),
      logged.join('\n'),
    );
    const entries = (await readFile(stateFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { op: string; session: string; counters?: Record<string, number>; record?: unknown });
    assert.deepEqual(
      entries.map(({ op, session }) => `${op} ${session}`),
      ['counters a', 'create a', 'create a', 'counters gone'],
      'per session its counters, then its records; the default session had nothing',
    );
    assert.deepEqual(entries.at(-1)?.counters, { 'notes#id': 100, 'notes#number': 100 });
    assert.equal(JSON.stringify(entries[1]?.record), large);
    const third = await open({ stateFile });
    try {
      const { records } = await third.list('a', 'notes', ALL);
      assert.deepEqual(
        records.map((record) => record.toString('utf8')),
        [large, small],
      );
      assert.equal(idOf(await third.create('gone', plan('after'))), 101, 'ids dropped by the reset are never handed out again');
    } finally {
      await third.close();
    }
  });

  it('says in its health whether it keeps a journal, and where', async () => {
    const memory = await open();
    assert.deepEqual(await memory.health(), { kind: 'memory', up: true, detail: 'in memory' });
    assert.equal(memory.kind, 'memory');
    await memory.close();
    const stateFile = join(folder, 'state.jsonl');
    const journaled = await open({ stateFile });
    assert.equal(journaled.kind, 'journal');
    assert.deepEqual(await journaled.health(), { kind: 'journal', up: true, detail: `in memory, journaled to ${stateFile}` });
    await journaled.close();
  });
});

describe('mock/store/memory: replayed records checked against the contract in force', () => {
  const bundled = bundledContract();
  const [transfers, samples] = bundled.model.createIds;
  if (transfers === undefined || samples === undefined) throw new Error('the bundled contract has two creates');
  const TRANSFERS = bundled.createOperation(transfers).resource;
  const SAMPLES = bundled.createOperation(samples).resource;
  /** A transfer as the mock answers it (the contract's example of a created transfer), with its id. */
  const transfer = (id: number, change: JsonObject = {}): JsonObject => ({
    ...(bundled.model.create(transfers).successExample as JsonObject),
    id,
    ...change,
  });
  const line = (session: string, record: JsonObject, resource = TRANSFERS) => encodeLine({ op: 'create', session, resource, record });
  let folder = '';
  let stateFile = '';
  let logged: string[] = [];
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'memory-store-check-'));
    stateFile = join(folder, 'state.jsonl');
    logged = [];
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  const openChecked = (options: Partial<MemoryStoreOptions> = {}): Promise<MemoryStore> =>
    MemoryStore.open({
      limits: ROOMY,
      resources: bundled.resources,
      check: bundled.check,
      stateFile,
      log: (text) => logged.push(text),
      ...options,
    });

  const transferIds = async (store: MemoryStore, session = 'default'): Promise<unknown[]> =>
    (await store.list(session, TRANSFERS, ALL)).records.map((record) => idOf(record.toString()));

  it('refuses to open on a record the contract refuses, naming line, resource, pointer and reason; the lock is released', async () => {
    await writeFile(stateFile, [line('default', transfer(1)), line('qa', transfer(2, { fk_lot_id: 'not-a-number', amount: -5 }))].join(''));
    const refused = await openChecked().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof RefusedRecordsError, String(refused));
    assert.match(refused.message, new RegExp(`state file ${stateFile} holds 1 record the contract in force refuses`));
    assert.match(
      refused.message,
      /line 2: a lot-transfers record \(session "qa"\) the contract in force refuses: \/fk_lot_id must be of type integer; \/amount must be > 0/,
    );
    assert.match(refused.message, /--set-aside-invalid FILE/);
    assert.ok(
      logged.some(
        (text) =>
          text ===
          `state file ${stateFile} line 2: a lot-transfers record (session "qa") the contract in force refuses: /fk_lot_id must be of type integer; /amount must be > 0`,
      ),
      logged.join('\n'),
    );
    // Nothing changed: the journal is as it was, and another open may take it.
    assert.equal((await readFile(stateFile, 'utf8')).split('\n').length, 3);
    const again = await openChecked({ setAside: join(folder, 'aside.jsonl') });
    await again.close();
  });

  it('sets aside exactly the refused lines (byte for byte), serves the rest, drops them from the journal, and never reuses their ids', async () => {
    const lines = [
      line('default', transfer(1)),
      line('default', transfer(7, { pallet: 'P-7' })),
      line('default', transfer(3, { id: 'seven' })),
      line('default', transfer(4)),
      line('default', { id: 9 }, 'pallets'),
    ];
    await writeFile(stateFile, lines.join(''));
    const aside = join(folder, 'aside', 'refused.jsonl');
    const store = await openChecked({ setAside: aside });
    try {
      assert.deepEqual(await transferIds(store), [1, 4]);
      assert.equal(await readFile(aside, 'utf8'), [lines[1], lines[2], lines[4]].join(''));
      assert.ok(
        logged.some((text) => text.includes(`3 records the contract in force refuses moved to ${aside}`)),
        logged.join('\n'),
      );
      // Id 7 was set aside, and "seven" held an id that cannot be read (one more reserved): the next is 9.
      const next = await store.create(
        'default',
        bundled.createOperation(transfers).plan(transfer(0), undefined, '2026-11-22T10:11:12.345Z'),
      );
      assert.equal(idOf(next), 9);
    } finally {
      await store.close();
    }
    const journal = await readFile(stateFile, 'utf8');
    assert.ok(!journal.includes('P-7') && !journal.includes('seven') && !journal.includes('pallets'), journal);
    // The next start (no option) serves what is left, with nothing to refuse.
    logged = [];
    const reopened = await openChecked();
    try {
      assert.deepEqual((await transferIds(reopened)).length, 3);
      assert.ok(!logged.some((text) => text.includes('refuses')), logged.join('\n'));
    } finally {
      await reopened.close();
    }
  });

  it('appends to an existing side file, and refuses the state file itself as the side file', async () => {
    await writeFile(stateFile, line('default', transfer(1, { amount: -1 })));
    const aside = join(folder, 'aside.jsonl');
    await writeFile(aside, 'kept\n');
    const itself = await openChecked({ setAside: stateFile }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.match(String(itself), /--set-aside-invalid .* names the state file itself/);
    const store = await openChecked({ setAside: aside });
    await store.close();
    assert.equal(await readFile(aside, 'utf8'), `kept\n${line('default', transfer(1, { amount: -1 }))}`);
  });

  it('refuses a second record under an id its session already has; the same id in another session is fine', async () => {
    await writeFile(stateFile, [line('a', transfer(1)), line('b', transfer(1)), line('a', transfer(1, { amount: 2 }))].join(''));
    const refused = await openChecked().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.match(String(refused), /holds 1 record the contract in force refuses/);
    assert.match(
      String(refused),
      /line 3: a lot-transfers record \(session "a"\) .*: \/id is 1, which an earlier record of this session already has/,
    );
  });

  it('serves on when the refused records were cleared by a later reset of their session (never served; their ids stay reserved)', async () => {
    await writeFile(
      stateFile,
      [line('qa', transfer(5, { amount: -5 })), encodeLine({ op: 'reset', session: 'qa' }), line('default', transfer(1))].join(''),
    );
    const store = await openChecked();
    try {
      assert.ok(
        logged.some((text) => text.includes('1 records the contract in force refuses were cleared by a later reset')),
        logged.join('\n'),
      );
      const next = await store.create('qa', bundled.createOperation(transfers).plan(transfer(0), undefined, '2026-11-22T10:11:12.345Z'));
      assert.equal(idOf(next), 6);
    } finally {
      await store.close();
    }
  });

  it('checks a record once per contract: a clean stop records what was checked, the next start under the same contract trusts it', async () => {
    await writeFile(stateFile, [line('default', transfer(1)), line('default', transfer(2))].join(''));
    let calls = 0;
    const counted: MemoryStoreOptions['check'] = (resource, record) => {
      calls++;
      return bundled.check(resource, record);
    };
    const first = await openChecked({ check: counted, stamp: 'contract A' });
    await first.create('default', bundled.createOperation(transfers).plan(transfer(0), undefined, '2026-11-22T10:11:12.345Z'));
    await first.close();
    assert.equal(calls, 2);
    logged = [];
    const second = await openChecked({ check: counted, stamp: 'contract A' });
    await second.close();
    assert.equal(calls, 2, 'nothing checked again, the create of the mock itself included');
    assert.ok(
      logged.some((text) => text.includes('0 records checked against the contract in force, 3 more were checked at an earlier start')),
      logged.join('\n'),
    );
    const third = await openChecked({ check: counted, stamp: 'contract B' });
    await third.close();
    assert.equal(calls, 5, 'another contract checks every record');
  });

  it('names the first 100 refused records one by one, counts the rest, and sets every one aside', async () => {
    await writeFile(
      stateFile,
      Array.from({ length: 150 }, (_, i) => line('default', transfer(i + 1, { amount: -1 }), i % 2 ? TRANSFERS : SAMPLES)).join(''),
    );
    const aside = join(folder, 'aside.jsonl');
    const store = await openChecked({ setAside: aside });
    await store.close();
    assert.equal(logged.filter((text) => / line \d+: a /.test(text)).length, 100);
    assert.ok(
      logged.some((text) => text.includes('50 more records the contract in force refuses (not listed one by one)')),
      logged.join('\n'),
    );
    assert.equal((await readFile(aside, 'utf8')).trim().split('\n').length, 150);
  });
});
