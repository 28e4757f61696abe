import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProblems, RefusalReport, SetAsideFile, SetAsideFileError } from './refused-records.js';

describe('mock/store/refused-records: naming refused records, and the side file', () => {
  let folder = '';
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'refused-records-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('names at most five problems of a record, then counts the rest', () => {
    const problems = Array.from({ length: 7 }, (_, i) => ({ pointer: `/m${i}`, detail: 'is wrong' }));
    assert.equal(describeProblems(problems), '/m0 is wrong; /m1 is wrong; /m2 is wrong; /m3 is wrong; /m4 is wrong; and 2 more');
    assert.equal(describeProblems([{ pointer: '', detail: 'is not JSON' }]), '(the record) is not JSON');
  });

  it('refuses the start naming the count and the first record, and points at the option', () => {
    const logged: string[] = [];
    const report = new RefusalReport('state file s.jsonl', (line) => logged.push(line));
    report.add({ where: 'line 2', session: 'qa', resource: 'notes', problems: [{ pointer: '/id', detail: 'must be of type integer' }] });
    report.add({ where: 'line 5', session: 'qa', resource: 'notes', problems: [{ pointer: '/x', detail: 'is not a member' }] });
    assert.deepEqual(logged, [
      'state file s.jsonl line 2: a notes record (session "qa") the contract in force refuses: /id must be of type integer',
      'state file s.jsonl line 5: a notes record (session "qa") the contract in force refuses: /x is not a member',
    ]);
    assert.match(
      report.refusal().message,
      /^state file s\.jsonl holds 2 records the contract in force refuses .*; the first: line 2: .*--set-aside-invalid FILE/,
    );
  });

  it('appends and syncs lines after what the file held, and cuts back to an earlier size (a set-aside that did not finish)', async () => {
    const path = join(folder, 'deeper', 'aside.jsonl');
    const side = await SetAsideFile.open(path);
    await side.write(['one\n']);
    const before = side.size;
    await side.write(['two\n', Buffer.from('three\n')]);
    await side.cutBack(before);
    await side.close();
    assert.equal(await readFile(path, 'utf8'), 'one\n');
    const again = await SetAsideFile.open(path);
    assert.equal(again.size, 4);
    // Another mock appended to the same file meanwhile: its lines are never cut.
    await again.write(['four\n']);
    await appendFile(path, 'theirs\n');
    await again.cutBack(4);
    await again.close();
    assert.equal(await readFile(path, 'utf8'), 'one\nfour\ntheirs\n');
  });

  it('refuses a path it cannot write, and the store file itself (by name or by another path to it)', async () => {
    const file = join(folder, 'a-file');
    await writeFile(file, '');
    const refused = (path: string, storeFile?: string) =>
      SetAsideFile.open(path, storeFile).then(
        () => undefined,
        (error: unknown) => error,
      );
    const unwritable = await refused(join(file, 'aside.jsonl'));
    assert.ok(unwritable instanceof SetAsideFileError);
    assert.match(unwritable.message, /cannot open --set-aside-invalid .* for appending \(E\w+\); choose a writable file/);
    assert.match(String(await refused(file, file)), /names the state file itself/);
    const link = join(folder, 'link');
    await symlink(file, link);
    assert.match(String(await refused(link, file)), /names the state file itself/);
  });
});
