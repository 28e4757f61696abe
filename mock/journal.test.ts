import assert from 'node:assert/strict';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open as openFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { isObject, type JsonObject } from '../contract/document.js';
import { crcOfPrefix } from './journal-files.js';
import { encodeLine, encodeUnreadableCreateLine } from './journal-line.js';
import { openJournal, type DamagedLine, type JournalEntry } from './journal.js';
import type { MockServer } from './server.js';
import { postJson, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';

const transfer = (n: number) => ({ fk_lot_id: 2101, source_scancode: `S${n}`, target_scancode: `T${n}`, amount: n });
const sample = (n: number) => ({ fk_lot_id: 2001, fk_user_id: n });

async function list(server: MockServer, resource: string, session?: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server.url}/__mock/${resource}`, { headers: session ? { 'X-Mock-Session': session } : {} });
  return (await response.json()) as Record<string, unknown>[];
}

/** Opens the journal at `file` (replaying it) and closes it again: the entries replayed and the lines logged. */
async function replay(file: string): Promise<{ logged: string[]; seen: JournalEntry[] }> {
  const logged: string[] = [];
  const seen: JournalEntry[] = [];
  const opened = await openJournal(
    file,
    (line) => logged.push(line),
    (entry) => seen.push(entry),
  );
  await opened.journal.close();
  return { logged, seen };
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
    const entry = { op: 'create', session: 'qa', resource: 'test-samples', record: otherSession };
    // Each line is the entry's JSON plus its CRC-32 as the last member.
    assert.deepEqual(JSON.parse(lines[4] ?? '') as unknown, {
      ...entry,
      crc32: crc32(JSON.stringify(entry)).toString(16).padStart(8, '0'),
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
      // A record the contract accepts (a record it refuses stops the start: "record-check" tests below).
      created: '2026-11-22T10:11:12.345Z',
      modified: '2026-11-22T10:11:12.345Z',
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
    writeFileSync(stateFile, encodeLine({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 7 } }).trimEnd());
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
      encodeLine({
        op: 'create',
        session: 'default',
        resource: 'lot-transfers',
        record: { id: i + 1, note: 'x'.repeat(150 + (i % 7)) },
      }),
    );
    writeFileSync(stateFile, `${lines.join('')}{"op":"create","sess`);
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

  it('creates missing parent folders of the state file (the README example on a fresh clone)', async () => {
    const nested = join(dir, '.state', 'deeper', 'mock.jsonl');
    const server = await startMock({ stateFile: nested });
    try {
      assert.equal((await postJson(server, SAMPLES_PATH, sample(1))).status, 201);
    } finally {
      await server.close();
    }
    assert.equal(readFileSync(nested, 'utf8').split('\n').length, 2);
  });

  it('locks the state file: a second open on it fails naming the file and the pid; closing releases it', async () => {
    const server = await startMock({ stateFile });
    try {
      assert.equal(readFileSync(`${stateFile}.lock`, 'utf8'), `${process.pid}\n`);
      await assert.rejects(startMock({ stateFile }), (error: Error) => {
        assert.ok(error.message.includes(stateFile) && error.message.includes(`pid ${process.pid}`), error.message);
        return true;
      });
    } finally {
      await server.close();
    }
    assert.equal(existsSync(`${stateFile}.lock`), false, 'released on close');
    const again = await startMock({ stateFile });
    await again.close();
  });

  const damage: [string, (file: string) => void, RegExp][] = [
    ['deleted', (file) => unlinkSync(file), /was deleted or renamed/],
    ['renamed', (file) => renameSync(file, `${file}.moved`), /was deleted or renamed/],
    [
      'replaced',
      (file) => {
        writeFileSync(`${file}.new`, 'another file\n');
        renameSync(`${file}.new`, file);
      },
      /was replaced by another file/,
    ],
    ['truncated', (file) => truncateSync(file, 10), /was truncated \(10 bytes/],
    ['changed by another program', (file) => appendFileSync(file, 'x\n'), /was changed by another program/],
  ];
  for (const [kind, act, why] of damage) {
    it(`writes a fresh journal when the state file was ${kind} while the mock runs: every acknowledged create survives a restart`, async () => {
      const logged: string[] = [];
      let server = await startMock({ stateFile, log: (line) => logged.push(line) });
      const answered: unknown[] = [];
      try {
        for (let n = 1; n <= 2; n++) answered.push(await (await postJson(server, SAMPLES_PATH, sample(n))).json());
        // A session reset after two creates: its ids are never handed out again, rewritten or not.
        for (let n = 1; n <= 2; n++) await postJson(server, SAMPLES_PATH, sample(n), { 'X-Mock-Session': 'qa' });
        const reset = await fetch(`${server.url}/__mock/reset`, {
          method: 'POST',
          headers: { 'X-Mock-Reset': '1', 'X-Mock-Session': 'qa' },
        });
        assert.equal(reset.status, 204);
        act(stateFile);
        const next = await postJson(server, SAMPLES_PATH, sample(3));
        assert.equal(next.status, 201, 'the next create is answered 201: the journal was written afresh first');
        answered.push(await next.json());
        const line = logged.find((l) => l.includes('wrote a fresh journal'));
        assert.ok(line?.includes(stateFile), logged.join('\n'));
        assert.match(line ?? '', why);
        if (kind === 'replaced' || kind.startsWith('changed'))
          assert.match(line ?? '', /the file found at the path kept as .*\.displaced-/);
      } finally {
        await server.close();
      }
      if (kind === 'renamed')
        assert.equal(readFileSync(`${stateFile}.moved`, 'utf8').trim().split('\n').length, 5, 'the moved file is left alone');
      server = await startMock({ stateFile });
      try {
        assert.deepEqual(await list(server, 'test-samples'), answered, 'every acknowledged create is there after a restart');
        const again = (await (await postJson(server, SAMPLES_PATH, sample(4))).json()) as { id: number };
        assert.equal(again.id, 4, 'ids continue');
        assert.deepEqual(await list(server, 'test-samples', 'qa'), [], 'the reset is kept');
        const qa = (await (await postJson(server, SAMPLES_PATH, sample(5), { 'X-Mock-Session': 'qa' })).json()) as { id: number };
        assert.equal(qa.id, 3, 'the reset session keeps its counters: ids 1 and 2 are not handed out again');
      } finally {
        await server.close();
      }
    });
  }

  it('writes a fresh journal when the file is deleted and no create follows: by itself within a second, and at close', async () => {
    const logged: string[] = [];
    let server = await startMock({ stateFile, log: (line) => logged.push(line) });
    const answered: unknown[] = [];
    try {
      for (let n = 1; n <= 2; n++) answered.push(await (await postJson(server, TRANSFERS_PATH, transfer(n))).json());
      unlinkSync(stateFile);
      const started = Date.now();
      const rewritten = () => logged.some((line) => line.includes('wrote a fresh journal'));
      while (!rewritten() && Date.now() - started < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(existsSync(stateFile), 'rewritten without a write asking for it');
      assert.ok(
        logged.some((line) => line.includes('was deleted or renamed') && line.includes('wrote a fresh journal')),
        logged.join('\n'),
      );
      // Deleted again just before the mock stops: written afresh at close.
      unlinkSync(stateFile);
    } finally {
      await server.close();
    }
    assert.ok(existsSync(stateFile), 'rewritten at close');
    server = await startMock({ stateFile });
    try {
      assert.deepEqual(await list(server, 'lot-transfers'), answered);
    } finally {
      await server.close();
    }
  });

  it('writes the fresh journal at the path itself when the symbolic link naming the journal is removed (once, not on every write)', async () => {
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, '');
    symlinkSync(target, stateFile);
    const logged: string[] = [];
    let server = await startMock({ stateFile, log: (line) => logged.push(line) });
    const answered: unknown[] = [];
    try {
      answered.push(await (await postJson(server, SAMPLES_PATH, sample(1))).json());
      unlinkSync(stateFile);
      for (let n = 2; n <= 3; n++) answered.push(await (await postJson(server, SAMPLES_PATH, sample(n))).json());
      assert.equal(logged.filter((line) => line.includes('wrote a fresh journal')).length, 1, logged.join('\n'));
      assert.ok(lstatSync(stateFile).isFile(), 'a file at the path, where the link was');
    } finally {
      await server.close();
    }
    server = await startMock({ stateFile });
    try {
      assert.deepEqual(await list(server, 'test-samples'), answered);
    } finally {
      await server.close();
    }
  });

  it('answers 503 and records nothing while a fresh journal cannot be written (its folder replaced by a file)', async () => {
    const nested = join(dir, 'nested', 'state.jsonl');
    const logged: string[] = [];
    const server = await startMock({ stateFile: nested, log: (line) => logged.push(line) });
    try {
      const first = await (await postJson(server, SAMPLES_PATH, sample(1))).json();
      rmSync(join(dir, 'nested'), { recursive: true });
      writeFileSync(join(dir, 'nested'), 'not a folder');
      const refused = await postJson(server, SAMPLES_PATH, sample(2));
      assert.equal(refused.status, 503);
      assert.equal(((await refused.json()) as { type: string }).type, 'https://goods.example/problems/state-not-durable');
      assert.deepEqual(await list(server, 'test-samples'), [first], 'the refused create is not recorded');
      assert.ok(
        logged.some((line) => line.includes('a fresh journal could not be written')),
        logged.join('\n'),
      );
      // The folder comes back: the next create is written (with a fresh journal) and answered 201.
      rmSync(join(dir, 'nested'));
      const later = await postJson(server, SAMPLES_PATH, sample(3));
      assert.equal(later.status, 201);
      assert.equal(readFileSync(nested, 'utf8').trim().split('\n').length, 3, 'a counters line and the two records');
    } finally {
      await server.close();
    }
  });

  it('reports a line changed in place (checksum) with its line number, skips it, keeps the others and never reuses its id', async () => {
    let server = await startMock({ stateFile });
    const answered: { id: number }[] = [];
    for (let n = 1; n <= 4; n++) answered.push((await (await postJson(server, SAMPLES_PATH, sample(n))).json()) as { id: number });
    await server.close();
    const lines = readFileSync(stateFile, 'utf8').split('\n');
    // Line 2 (in the middle) and line 4 (the last complete line): one byte changed each.
    lines[1] = (lines[1] ?? '').replace('"fk_user_id":2', '"fk_user_id":9');
    lines[3] = (lines[3] ?? '').replace('"fk_user_id":4', '"fk_user_id":8');
    writeFileSync(stateFile, lines.join('\n'));
    const logged: string[] = [];
    server = await startMock({ stateFile, log: (line) => logged.push(line) });
    try {
      const reported = logged.filter((line) => line.includes('checksum mismatch'));
      assert.deepEqual(
        reported.map((line) => /line (\d+):/.exec(line)?.[1]),
        ['2', '4'],
        logged.join('\n'),
      );
      assert.ok(reported.every((line) => line.includes(stateFile) && line.includes('skipped')));
      assert.deepEqual(await list(server, 'test-samples'), [answered[0], answered[2]]);
      const next = (await (await postJson(server, SAMPLES_PATH, sample(5))).json()) as { id: number };
      assert.ok(next.id > 4, `id ${next.id} comes after every id ever written (4)`);
    } finally {
      await server.close();
    }
  });

  it('never reuses the id of a damaged last line, even when its session and id can no longer be read', async () => {
    let server = await startMock({ stateFile });
    await postJson(server, SAMPLES_PATH, sample(1), { 'X-Mock-Session': 'qa' });
    await postJson(server, SAMPLES_PATH, sample(2), { 'X-Mock-Session': 'qa' });
    await server.close();
    const lines = readFileSync(stateFile, 'utf8').split('\n');
    const last = lines[1] ?? '';
    // Everything but the checksum member overwritten: nothing of the entry can be read.
    lines[1] = `${'#'.repeat(last.length - 20)}${last.slice(-20)}`;
    writeFileSync(stateFile, lines.join('\n'));
    const logged: string[] = [];
    server = await startMock({ stateFile, log: (line) => logged.push(line) });
    try {
      assert.ok(
        logged.some((line) => line.includes(`${stateFile} line 2:`) && line.includes('skipped')),
        logged.join('\n'),
      );
      const next = (await (await postJson(server, SAMPLES_PATH, sample(3), { 'X-Mock-Session': 'qa' })).json()) as {
        id: number;
        sample_number: string;
      };
      assert.ok(next.id > 2, `id ${next.id} is not the damaged line's 2`);
      assert.notEqual(next.sample_number, 'S-000002');
    } finally {
      await server.close();
    }
  });

  it('passes damaged lines to onDamaged in file order, with what they still show', async () => {
    const entries = [1, 2, 3].map((id): JournalEntry => ({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id } }));
    const text = entries.map(encodeLine);
    text[1] = (text[1] ?? '').replace('"id":2', '"id":5');
    writeFileSync(stateFile, text.join(''));
    const events: string[] = [];
    const opened = await openJournal(
      stateFile,
      () => undefined,
      (entry) => events.push(`entry ${entry.op === 'create' ? JSON.stringify(entry.record['id']) : ''}`),
      {
        onDamaged: (damaged: DamagedLine) =>
          events.push(`damaged line ${damaged.line} ${JSON.stringify(damaged.salvage)} ${damaged.create}`),
      },
    );
    await opened.journal.close();
    assert.deepEqual(events, ['entry 1', `damaged line 2 ${JSON.stringify({ ...entries[1], record: { id: 5 } })} true`, 'entry 3']);
  });

  it('accepts a journal without checksums (an older mock) with one warning, but not an unchecked line after checked ones', async () => {
    const legacy = JSON.stringify({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 1 } });
    const checked = encodeLine({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 2 } });
    const added = JSON.stringify({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 3 } });
    writeFileSync(stateFile, `${legacy}\n${checked}${added}\n`);
    const logged: string[] = [];
    const ids: unknown[] = [];
    const damaged: DamagedLine[] = [];
    const opened = await openJournal(
      stateFile,
      (line) => logged.push(line),
      (entry) => ids.push(entry.op === 'create' ? entry.record['id'] : null),
      { onDamaged: (line) => damaged.push(line) },
    );
    await opened.journal.close();
    assert.deepEqual(ids, [1, 2]);
    assert.deepEqual(
      damaged.map((d) => [d.line, d.create]),
      [[3, true]],
    );
    assert.equal(logged.length, 2, logged.join('\n'));
    assert.ok(logged.some((line) => line.includes(`${stateFile} line 3: line without checksum after checksummed lines`)));
    assert.ok(logged.some((line) => line.includes('1 entries without a checksum') && line.includes('accepted unverified')));
  });

  it('keeps line 1 of a journal that starts with a UTF-8 byte order mark', async () => {
    const entries = [1, 2].map((id): JournalEntry => ({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id } }));
    writeFileSync(stateFile, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(entries.map(encodeLine).join(''))]));
    const { logged, seen } = await replay(stateFile);
    assert.deepEqual(seen, entries);
    assert.deepEqual(logged, [`state file ${stateFile}: UTF-8 byte order mark at the start ignored`]);
  });

  it('replays an entry spanning several read chunks intact', async () => {
    const big: JournalEntry = {
      op: 'create',
      session: 'default',
      resource: 'lot-transfers',
      record: { id: 1, note: 'é'.repeat(1_600_000) },
    };
    const small: JournalEntry = { op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 2 } };
    writeFileSync(stateFile, encodeLine(big) + encodeLine(small));
    const seen: JournalEntry[] = [];
    const opened = await openJournal(
      stateFile,
      () => undefined,
      (entry) => seen.push(entry),
    );
    await opened.journal.close();
    assert.deepEqual(seen, [big, small]);
  });

  it('reports and skips a line longer than the line limit (never a record), in the middle and unterminated at the end (64 MiB)', async () => {
    const entry = (id: number): JournalEntry => ({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id } });
    writeFileSync(stateFile, `${encodeLine(entry(1))}{"op":"create","note":"${'x'.repeat(3 * 1024 * 1024)}"}\n${encodeLine(entry(2))}`);
    appendFileSync(
      stateFile,
      `{"op":"create","session":"default","resource":"lot-transfers","record":{"note":"${'y'.repeat(64 * 1024 * 1024)}`,
    );
    const logged: string[] = [];
    const seen: JournalEntry[] = [];
    const opened = await openJournal(
      stateFile,
      (line) => logged.push(line),
      (e) => seen.push(e),
      { maxLineBytes: 2 * 1024 * 1024 },
    );
    await opened.journal.append(entry(3));
    await opened.journal.close();
    assert.deepEqual(seen, [entry(1), entry(2)]);
    assert.deepEqual(logged, [
      `state file ${stateFile} line 2: line longer than ${2 * 1024 * 1024} bytes (it cannot be a record) skipped`,
      `state file ${stateFile} line 4: line longer than ${2 * 1024 * 1024} bytes (it cannot be a record) skipped`,
    ]);
    // The unterminated 64 MiB tail was never acknowledged: it is cut off, and the next entry follows it.
    const again: JournalEntry[] = [];
    const reopened = await openJournal(
      stateFile,
      () => undefined,
      (e) => again.push(e),
      { maxLineBytes: 2 * 1024 * 1024 },
    );
    await reopened.journal.close();
    assert.deepEqual(again, [entry(1), entry(2), entry(3)]);
    assert.ok(readFileSync(stateFile).length < 4 * 1024 * 1024, 'the 64 MiB tail is gone');
  });

  it('reports an unterminated 64 MiB line with the default line limit (16 MiB) and keeps what came before', async function () {
    this.timeout(60_000);
    const entry: JournalEntry = { op: 'create', session: 'default', resource: 'lot-transfers', record: { id: 1 } };
    writeFileSync(stateFile, `${encodeLine(entry)}{"op":"create","note":"${'z'.repeat(64 * 1024 * 1024)}`);
    const { logged, seen } = await replay(stateFile);
    assert.deepEqual(seen, [entry]);
    assert.deepEqual(logged, [
      `state file ${stateFile} line 2: line longer than ${16 * 1024 * 1024} bytes (it cannot be a record) skipped`,
    ]);
  });

  it('replays in linear time: a line spanning many read chunks is joined once, not re-copied per chunk', async () => {
    const big: JournalEntry = {
      op: 'create',
      session: 'default',
      resource: 'lot-transfers',
      record: { id: 1, note: 'x'.repeat(12 * 1024 * 1024) },
    };
    writeFileSync(stateFile, encodeLine(big));
    const size = readFileSync(stateFile).length;
    // Count the bytes replay joins with Buffer.concat (re-copying the pending line on every 1 MiB chunk
    // would join about 6 times the file: 1 + 2 + ... + 12 MiB).
    const concat = Buffer.concat.bind(Buffer);
    const saved = Object.getOwnPropertyDescriptor(Buffer, 'concat');
    let joined = 0;
    Buffer.concat = (list, totalLength) => {
      const out = concat(list, totalLength);
      joined += out.length;
      return out;
    };
    const seen: JournalEntry[] = [];
    try {
      const opened = await openJournal(
        stateFile,
        () => undefined,
        (entry) => seen.push(entry),
      );
      await opened.journal.close();
    } finally {
      if (saved) Object.defineProperty(Buffer, 'concat', saved);
    }
    assert.deepEqual(seen, [big]);
    assert.ok(joined > 0 && joined <= size, `replay joined ${joined} bytes for a ${size}-byte journal`);
  });
});

describe('mock journal: what was vouched for is remembered (<file>.checked)', () => {
  let dir: string;
  let stateFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'goods-mock-journal-vouched-'));
    stateFile = join(dir, 'state.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const entry = (id: number): JournalEntry => ({ op: 'create', session: 'default', resource: 'lot-transfers', record: { id } });

  /** Opens the journal under `stamp`, returns which replayed lines were trusted; vouches and appends `more` when asked. */
  async function open(stamp: string, vouch: boolean, more: JournalEntry[] = []): Promise<boolean[]> {
    const trusted: boolean[] = [];
    const opened = await openJournal(
      stateFile,
      () => undefined,
      (_entry, at) => trusted.push(at.trusted),
      { stamp, snapshot: () => [] },
    );
    if (vouch) opened.journal.vouch();
    for (const next of more) await opened.journal.append(next);
    await opened.journal.close();
    return trusted;
  }

  it('trusts at the next open, under the same stamp, exactly the lines vouched for at a clean close', async () => {
    writeFileSync(stateFile, [entry(1), entry(2)].map(encodeLine).join(''));
    assert.deepEqual(await open('contract A', true, [entry(3)]), [false, false], 'nothing was vouched for before');
    assert.ok(existsSync(`${stateFile}.checked`));
    assert.deepEqual(await open('contract A', false), [true, true, true]);
    // Bytes appended by someone else after the vouched ones are not trusted.
    appendFileSync(stateFile, encodeLine(entry(4)));
    assert.deepEqual(await open('contract A', false), [true, true, true, false]);
    assert.deepEqual(await open('contract B', false), [false, false, false, false], 'another stamp trusts nothing');
  });

  it('replays vouched lines as it replays the same lines unvouched: the same entries, the record text as written, damage still damage', async () => {
    const entries: JournalEntry[] = [
      entry(1),
      { op: 'create', session: 'qa', resource: 'lot-transfers', record: { id: 1, note: 'ünï "q"' } },
      entry(2),
      { op: 'create', session: 'default', resource: 'test-samples', record: { id: 1 } },
      entry(3),
      { op: 'reset', session: 'qa' },
      entry(4),
      entry(5),
      entry(6),
    ];
    const lines = entries.map(encodeLine);
    // A line changed in place (checksum mismatch) among them, and one with a member after its record.
    lines.splice(3, 0, encodeLine(entry(9)).replace('"id":9', '"id":8'));
    lines.push(encodeUnreadableCreateLine('default', 'lot-transfers', '{"id":'));
    writeFileSync(stateFile, lines.join(''));
    const replayed = async (vouch: boolean) => {
      const seen: { entry: JournalEntry; trusted: boolean; recordJson: string | undefined }[] = [];
      const damaged: number[] = [];
      const opened = await openJournal(
        stateFile,
        () => undefined,
        (e, at) => seen.push({ entry: e, trusted: at.trusted, recordJson: at.recordJson }),
        {
          stamp: 'contract A',
          snapshot: () => [],
          onDamaged: (d) => damaged.push(d.line),
        },
      );
      if (vouch) opened.journal.vouch();
      await opened.journal.close();
      return { seen, damaged };
    };
    const first = await replayed(true);
    const second = await replayed(false);
    assert.ok(
      first.seen.every((s) => !s.trusted) && second.seen.every((s) => s.trusted),
      'vouched at the first open, trusted at the second',
    );
    assert.deepEqual(
      second.seen.map((s) => s.entry),
      first.seen.map((s) => s.entry),
    );
    assert.deepEqual(second.damaged, first.damaged);
    assert.deepEqual(first.damaged, [4], 'the changed line');
    for (const { entry: e, recordJson } of second.seen)
      if (recordJson !== undefined) assert.equal(recordJson, e.op === 'create' ? JSON.stringify(e.record) : undefined);
    assert.ok(second.seen.filter((s) => s.recordJson !== undefined).length >= 3, 'the bulk read by its layout');
  });

  it("records whether the vouched bytes held only valid lines; only then does a trusted start skip the lines' own checksums", async () => {
    const checked = (): JsonObject => {
      const value: unknown = JSON.parse(readFileSync(`${stateFile}.checked`, 'utf8'));
      assert.ok(isObject(value), '<file>.checked holds a JSON object');
      return value;
    };
    writeFileSync(stateFile, [1, 2, 3, 4].map((n) => encodeLine(entry(n))).join(''));
    await open('contract A', true);
    assert.equal(checked()['clean'], true, 'four valid lines');
    // A checksum changed in place, and the vouched bytes' CRC-32 recorded anew (as a hand edit could
    // make it): the bytes match as a whole, and a clean record vouches for every line in them.
    const lines = readFileSync(stateFile, 'utf8').split('\n');
    const third = lines[2] ?? '';
    lines[2] = `${third.slice(0, -3)}${third.at(-3) === '0' ? '1' : '0'}"}`;
    writeFileSync(stateFile, lines.join('\n'));
    const handle = await openFile(stateFile, 'r');
    const crc = await crcOfPrefix(handle, Number(checked()['bytes']));
    await handle.close();
    const record = (clean: boolean) => writeFileSync(`${stateFile}.checked`, `${JSON.stringify({ ...checked(), crc32: crc, clean })}\n`);
    const replay = async () => {
      const ids: number[] = [];
      const damaged: number[] = [];
      const opened = await openJournal(
        stateFile,
        () => undefined,
        (e) => void (e.op === 'create' && ids.push(Number(e.record['id']))),
        { stamp: 'contract A', snapshot: () => [], onDamaged: (d) => damaged.push(d.line) },
      );
      await opened.journal.close();
      return { ids, damaged };
    };
    record(true);
    assert.deepEqual(await replay(), { ids: [1, 2, 3, 4], damaged: [] }, 'clean: the line is not checked on its own');
    // An older `.checked` (no `clean`) or a record of damage: every line's checksum is checked.
    record(false);
    assert.deepEqual(await replay(), { ids: [1, 2, 4], damaged: [3] });
    const older = { ...checked(), crc32: crc };
    Reflect.deleteProperty(older, 'clean');
    writeFileSync(`${stateFile}.checked`, `${JSON.stringify(older)}\n`);
    assert.deepEqual(await replay(), { ids: [1, 2, 4], damaged: [3] });
    // A start that met a damaged line vouches for its bytes as not clean.
    await open('contract A', true);
    assert.equal(checked()['clean'], false);
  });

  it('trusts nothing without a vouch, nor once the vouched bytes changed (a line rewritten with a valid checksum)', async () => {
    writeFileSync(stateFile, [entry(1), entry(2)].map(encodeLine).join(''));
    await open('contract A', false);
    assert.ok(!existsSync(`${stateFile}.checked`), 'no vouch: nothing recorded');
    await open('contract A', true);
    const lines = readFileSync(stateFile, 'utf8').split('\n');
    lines[0] = encodeLine(entry(7)).trimEnd();
    writeFileSync(stateFile, lines.join('\n'));
    assert.deepEqual(await open('contract A', false), [false, false]);
  });
});
