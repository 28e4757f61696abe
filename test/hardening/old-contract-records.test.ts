/**
 * A journal or a Redis written under another contract version, replayed by the mock CLI in a child
 * process: a record the contract in force refuses (a member of the wrong type or out of bounds, a
 * member it does not know) or one without a usable key (`"id": "seven"`), each with a valid checksum,
 * is never served and never dropped in silence. Start-up exits 1 naming the record (line or Redis
 * key, resource, JSON Pointer, reason) and the way out; with `--set-aside-invalid FILE` the records
 * are moved to FILE (exactly those lines) and the mock serves the rest.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { encodeCreateLine, encodeLine } from '../../mock/journal-line.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { listAll } from './support/burst.js';
import { runMockToExit, startMockProcess } from './support/mock-process.js';

type Row = Record<string, string | number | boolean>;

/** A lot transfer as the mock answers it under the bundled contract. */
function transfer(id: number | string, change: Row = {}): Row {
  return {
    id,
    fk_lot_id: 2001,
    source_scancode: `S-${id}`,
    target_scancode: 'T-1',
    amount: 2.5,
    completed: false,
    lotnumber: 'L-240101',
    created: '2026-11-22T10:11:12.345Z',
    modified: '2026-11-22T10:11:12.345Z',
    ...change,
  };
}

/** Each case: the record another contract version wrote, and what the start-up must name (pointer and reason). */
const CASES: { label: string; record: Row; names: RegExp }[] = [
  {
    label: 'members the contract refuses (fk_lot_id "not-a-number", amount -5)',
    record: transfer(3, { fk_lot_id: 'not-a-number', amount: -5 }),
    names: /\/fk_lot_id must be of type integer; \/amount must be > 0/,
  },
  {
    label: 'a member the contract does not know',
    record: transfer(3, { pallet: 'P-9' }),
    names: /\/pallet is not a member of LotTransfer/,
  },
  { label: 'a record without a usable key (id "seven")', record: transfer('seven'), names: /\/id must be of type integer/ },
];

const RESOURCE = 'lot-transfers';

describe('hardening: records written under another contract version (--state-file, --store)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'old-contract-records-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  describe('a journal', () => {
    const journal = (records: Row[]): string[] =>
      records.map((record) => encodeLine({ op: 'create', session: 'default', resource: RESOURCE, record }));

    for (const { label, record, names } of CASES) {
      it(`exits 1 naming the line, resource, pointer and reason: ${label}`, async () => {
        const stateFile = join(dir, 'state.jsonl');
        await writeFile(stateFile, journal([transfer(1), transfer(2), record, transfer(4)]).join(''));
        const result = await runMockToExit(['--port', '0', '--quiet', '--state-file', stateFile]);
        assert.equal(result.code, 1, result.stderr);
        assert.doesNotMatch(result.stdout, /listening/);
        assert.match(
          result.stderr,
          new RegExp(
            `state file ${stateFile} line 3: a lot-transfers record \\(session "default"\\) the contract in force refuses: ${names.source}`,
          ),
        );
        assert.match(result.stderr, /goods-mock: cannot start: .*holds 1 record the contract in force refuses.*--set-aside-invalid FILE/);
        assert.equal((await readFile(stateFile, 'utf8')).split('\n').length, 5, 'the journal is left as it was');
      });
    }

    it('with --set-aside-invalid FILE: FILE holds exactly the refused lines, the rest is served, and the next start needs no option', async () => {
      const stateFile = join(dir, 'state.jsonl');
      const aside = join(dir, 'refused', 'records.jsonl');
      const lines = journal([transfer(1), ...CASES.map((c) => c.record), transfer(5)]);
      await writeFile(stateFile, lines.join(''));
      let mock = await startMockProcess(['--quiet', '--state-file', stateFile, '--set-aside-invalid', aside]);
      try {
        assert.equal(await readFile(aside, 'utf8'), lines.slice(1, 4).join(''));
        assert.deepEqual(
          (await listAll(mock.url, RESOURCE, 'default')).map((row) => row['id']),
          [1, 5],
        );
        assert.match(mock.stderr(), /3 records the contract in force refuses moved to/);
      } finally {
        await mock.stop();
      }
      mock = await startMockProcess(['--quiet', '--state-file', stateFile]);
      try {
        assert.equal((await listAll(mock.url, RESOURCE, 'default')).length, 2);
      } finally {
        await mock.stop();
      }
    });
  });

  describe('a Redis (a real redis-server)', () => {
    let redis: TestRedis;
    let admin: Redis;
    let prefixes = 0;
    before(async () => {
      redis = await startRedis({ appendfsync: 'everysec' });
      admin = new Redis(redis.url);
    });
    after(async () => {
      admin.disconnect();
      await redis.dispose();
    });

    /** Records as a create script of another contract version wrote them (the set, the counts, the counter). */
    async function plant(prefix: string, records: Row[]): Promise<string[]> {
      const lines: string[] = [];
      for (const [i, record] of records.entries()) {
        const json = JSON.stringify(record);
        const size = Buffer.byteLength(json);
        await admin
          .multi()
          .zadd(`${prefix}:s:default:${RESOURCE}`, String(i + 1), json)
          .hincrby(`${prefix}:s:default`, '#records', 1)
          .hincrby(`${prefix}:s:default`, '#bytes', size)
          .hset(`${prefix}:s:default`, `${RESOURCE}#id`, i + 1)
          .incrby(`${prefix}:bytes`, size)
          .exec();
        lines.push(encodeCreateLine('default', RESOURCE, json));
      }
      return lines;
    }

    for (const { label, record, names } of CASES) {
      it(`exits 1 naming the key, id, resource, pointer and reason: ${label}`, async () => {
        const prefix = `old${++prefixes}`;
        await plant(prefix, [transfer(1), transfer(2), { ...record, ...(record['id'] === 'seven' ? {} : { id: 3 }) }]);
        const result = await runMockToExit(['--port', '0', '--quiet', '--store', redis.url, '--store-prefix', prefix]);
        assert.equal(result.code, 1, result.stderr);
        assert.doesNotMatch(result.stdout, /listening/);
        assert.match(
          result.stderr,
          new RegExp(
            `key ${prefix}:s:default:${RESOURCE} id 3: a lot-transfers record \\(session "default"\\) the contract in force refuses: ${names.source}`,
          ),
        );
        assert.match(result.stderr, /goods-mock: cannot start: .*holds 1 record the contract in force refuses.*--set-aside-invalid FILE/);
        assert.equal(await admin.zcard(`${prefix}:s:default:${RESOURCE}`), 3, 'Redis is left as it was');
      });
    }

    it('with --set-aside-invalid FILE: FILE holds exactly the refused records as journal lines, the rest is served, the next replica needs no option', async () => {
      const prefix = `old${++prefixes}`;
      const aside = join(dir, 'refused.jsonl');
      const lines = await plant(prefix, [
        transfer(1),
        ...CASES.map((c, i) => ({ ...c.record, ...(c.record['id'] === 'seven' ? {} : { id: i + 2 }) })),
        transfer(5),
      ]);
      let mock = await startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', prefix, '--set-aside-invalid', aside]);
      try {
        assert.equal(await readFile(aside, 'utf8'), lines.slice(1, 4).join(''));
        assert.deepEqual(
          (await listAll(mock.url, RESOURCE, 'default')).map((row) => row['id']),
          [1, 5],
        );
        assert.match(mock.stdout() + mock.stderr(), /3 records the contract in force refuses moved to/);
      } finally {
        await mock.stop();
      }
      mock = await startMockProcess(['--quiet', '--store', redis.url, '--store-prefix', prefix]);
      try {
        assert.equal((await listAll(mock.url, RESOURCE, 'default')).length, 2);
      } finally {
        await mock.stop();
      }
    });
  });
});
