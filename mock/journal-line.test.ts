import assert from 'node:assert/strict';
import {
  createPrefix,
  decodeCreateLine,
  decodeLine,
  encodeCreateLine,
  encodeLine,
  encodeUnreadableCreateLine,
  type JournalEntry,
} from './journal-line.js';

const entry: JournalEntry = {
  op: 'create',
  session: 'qa',
  resource: 'test-samples',
  record: { id: 12, sample_number: 'S-000012', notes: 'ünïcode ✓ "quoted"', nested: { id: 1 } },
};
const line = (text: string) => Buffer.from(text, 'utf8');

describe('journal line (CRC-32 per line)', () => {
  it('encodes one JSON line ending with its checksum member, and decodes it back exactly (checked)', () => {
    const text = encodeLine(entry);
    assert.ok(text.endsWith('"}\n') && !text.slice(0, -1).includes('\n'));
    assert.match(text, /,"crc32":"[0-9a-f]{8}"\}\n$/);
    assert.deepEqual(decodeLine(line(text.slice(0, -1))), { kind: 'entry', entry, checked: true });
  });

  it('encodes a create from its record JSON text exactly as from the parsed entry (a rewrite writes the same lines)', () => {
    if (entry.op !== 'create') throw new Error('a create entry');
    assert.equal(encodeCreateLine(entry.session, entry.resource, JSON.stringify(entry.record)), encodeLine(entry));
    assert.equal(
      encodeCreateLine('a"b', 'r\\', '{"__proto__":1}'),
      encodeLine({ op: 'create', session: 'a"b', resource: 'r\\', record: JSON.parse('{"__proto__":1}') as Record<string, number> }),
    );
  });

  it('decodes a counters entry (written by a rewrite), and refuses counters that are not whole numbers', () => {
    const counters: JournalEntry = { op: 'counters', session: 'qa', counters: { 'test-samples#id': 7, 'test-samples#sample_number': 7 } };
    assert.deepEqual(decodeLine(line(encodeLine(counters).slice(0, -1))), { kind: 'entry', entry: counters, checked: true });
    const bad = encodeLine({ op: 'counters', session: 'qa', counters: { x: 1.5 } });
    assert.equal(decodeLine(line(bad.slice(0, -1))).kind, 'damaged');
  });

  it('finds any single byte changed in place (every position of the line)', () => {
    const good = line(encodeLine(entry).slice(0, -1));
    let undetected = 0;
    for (let i = 0; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i] = (bad[i] ?? 0) ^ 0x01;
      const decoded = decodeLine(bad);
      if (decoded.kind === 'entry' && decoded.checked) undetected++;
      if (decoded.kind === 'entry' && !decoded.checked) assert.fail(`byte ${i}: a changed line decoded as an unchecked entry`);
    }
    assert.equal(undetected, 0);
  });

  it('reports a checksum mismatch, salvaging the entry when it still parses', () => {
    const changed = encodeLine(entry).slice(0, -1).replace('"id":12', '"id":13');
    const decoded = decodeLine(line(changed));
    assert.equal(decoded.kind, 'damaged');
    if (decoded.kind !== 'damaged') return;
    assert.match(decoded.reason, /checksum mismatch/);
    assert.equal(decoded.create, true);
    assert.deepEqual(decoded.salvage, { ...entry, record: { ...entry.record, id: 13 } });
  });

  it('salvages session, resource and scalar members of a line that no longer parses', () => {
    const broken = encodeLine(entry).slice(0, -1).replace('"notes"', '"no\u0000tes').replace('{"id":1}', '{"id":1');
    const decoded = decodeLine(line(broken));
    assert.equal(decoded.kind, 'damaged');
    if (decoded.kind !== 'damaged') return;
    assert.equal(decoded.salvage?.op, 'create');
    if (decoded.salvage?.op !== 'create') return;
    assert.deepEqual([decoded.salvage.session, decoded.salvage.resource], ['qa', 'test-samples']);
    assert.equal(decoded.salvage.record['id'], 12, "the first id member (the record's own) is kept");
    assert.equal(decoded.salvage.record['sample_number'], 'S-000012');
  });

  it('marks a written (checksummed) line as a possible create even when nothing of it can be read', () => {
    const text = encodeLine(entry).slice(0, -1);
    const garbled = `${'#'.repeat(text.length - 20)}${text.slice(-20)}`;
    const decoded = decodeLine(line(garbled));
    assert.deepEqual(
      [decoded.kind, decoded.kind === 'damaged' && decoded.create, decoded.kind === 'damaged' && decoded.salvage],
      ['damaged', true, undefined],
    );
  });

  it('decodes a line without checksum as unchecked, garbage as damaged (not a create), blank as blank', () => {
    assert.deepEqual(decodeLine(line(JSON.stringify(entry))), { kind: 'entry', entry, checked: false });
    assert.deepEqual(decodeLine(line('not json')), { kind: 'damaged', reason: 'invalid line', create: false });
    assert.deepEqual(decodeLine(line('  \r')), { kind: 'blank' });
  });
  it('reads a create laid out as encodeCreateLine writes it by its layout: the entry decodeLine reads, and the record as written', () => {
    if (entry.op !== 'create') throw new Error('a create entry');
    const prefix = createPrefix(entry.session, entry.resource);
    const written = line(encodeCreateLine(entry.session, entry.resource, JSON.stringify(entry.record)).slice(0, -1));
    assert.deepEqual(decodeCreateLine(written, prefix), { entry, recordJson: JSON.stringify(entry.record) });
    assert.deepEqual(decodeLine(written), { kind: 'entry', entry, checked: true });
    // Every other line is left to decodeLine: another session, a member after the record, another kind, no checksum.
    assert.equal(decodeCreateLine(written, createPrefix('other', entry.resource)), undefined);
    assert.equal(
      decodeCreateLine(line(encodeUnreadableCreateLine(entry.session, entry.resource, 'not json').slice(0, -1)), prefix),
      undefined,
    );
    assert.equal(decodeCreateLine(line(encodeLine({ ...entry, at: '2026-01-01T00:00:00Z' }).slice(0, -1)), prefix), undefined);
    assert.equal(decodeCreateLine(line(encodeLine({ op: 'reset', session: entry.session }).slice(0, -1)), prefix), undefined);
    assert.equal(decodeCreateLine(line(JSON.stringify(entry)), prefix), undefined);
    assert.equal(decodeCreateLine(line('[]'), prefix), undefined);
  });

  it('reads no changed create by its layout: any byte changed is left to decodeLine, which tells the damage', () => {
    if (entry.op !== 'create') throw new Error('a create entry');
    const prefix = createPrefix(entry.session, entry.resource);
    const written = line(encodeCreateLine(entry.session, entry.resource, JSON.stringify(entry.record)).slice(0, -1));
    for (let i = 0; i < written.length; i++) {
      const changed = Buffer.from(written);
      changed[i] = (changed[i] ?? 0) ^ 0x01;
      assert.equal(decodeCreateLine(changed, prefix), undefined, `byte ${i} changed`);
    }
    // Told not to verify (bytes whose CRC-32 was checked as a whole): a changed checksum is not read.
    const rechecked = Buffer.from(written);
    const hexAt = rechecked.length - 10;
    rechecked[hexAt] = rechecked[hexAt] === 0x30 ? 0x31 : 0x30;
    assert.equal(decodeCreateLine(rechecked, prefix), undefined, 'verified: the checksum no longer matches');
    assert.deepEqual(decodeCreateLine(rechecked, prefix, false), { entry, recordJson: JSON.stringify(entry.record) });
    // Under a valid checksum: a record that is not an object, and an object member after the record
    // (the text between the prefix and the checksum is then not the record's).
    const written2 = (json: string) => line(encodeCreateLine(entry.session, entry.resource, json).slice(0, -1));
    assert.equal(decodeCreateLine(written2('[1]'), prefix), undefined);
    assert.equal(decodeCreateLine(written2('{},"x":{"id":2}'), prefix), undefined);
    const full = decodeLine(written2('{},"x":{"id":2}'));
    assert.deepEqual(
      full.kind === 'entry' && full.entry.op === 'create' ? full.entry.record : undefined,
      {},
      'the record is the empty object',
    );
  });
});
