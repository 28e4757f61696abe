/**
 * How long `npm test` takes is a generated figure, never typed by hand: `npm run test:time`
 * (scripts/test-time.ts) records one whole run on a clean clone in docs/generated/test-time.json,
 * and README.md's Development section and docs/development.md state that record's time and tests.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

interface TestTimeRecord {
  commit: string;
  measured: string;
  seconds: number;
  tests: { passing: number; failing: number; pending: number };
  machine: { cpus: number; node: string; loadBefore: number[]; loadAfter: number[] };
  files: { file: string; seconds: number; cpuSeconds: number }[];
}

const RECORD = 'docs/generated/test-time.json';

/** "4 min 32 s": how the documents state a recorded time. */
function minutesAndSeconds(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** The sentence both documents carry, from the record. */
function statedTime(record: TestTimeRecord): string {
  return (
    `The last recorded \`npm test\` (a clean clone, ${record.machine.cpus} cores shared with other work, load average ` +
    `${record.machine.loadBefore[0] ?? '?'} at its start) took ${minutesAndSeconds(record.seconds)} for ${record.tests.passing.toLocaleString('en-US')} tests`
  );
}

function read(path: string): string {
  return readFileSync(join(PROJECT_ROOT, path), 'utf8');
}

/** The text of a `## ` section of a Markdown page (up to the next `## ` heading). */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `a section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Markdown wraps lines: compare text with each run of white space as one space. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

describe('the time of npm test: a recorded figure (docs/generated/test-time.json)', () => {
  const record = JSON.parse(read(RECORD)) as TestTimeRecord;

  it('formats a time as minutes and seconds', () => {
    assert.equal(minutesAndSeconds(272.4), '4 min 32 s');
    assert.equal(minutesAndSeconds(59.6), '1 min 0 s');
    assert.equal(minutesAndSeconds(300), '5 min 0 s');
  });

  it('the record is of a passing run of a commit, with every test file timed', () => {
    assert.match(record.commit, /^[0-9a-f]{40}$/);
    assert.match(record.measured, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(record.seconds > 0 && record.tests.passing > 0, JSON.stringify(record.tests));
    assert.equal(record.tests.failing, 0);
    assert.ok(record.machine.cpus > 0 && record.machine.loadBefore.length === 3);
    assert.ok(record.files.length > 100, `${record.files.length} files timed`);
    for (const file of record.files)
      assert.ok(file.file.endsWith('.test.ts') && file.seconds >= 0 && file.cpuSeconds >= 0, JSON.stringify(file));
  });

  for (const [page, text] of [
    ["README.md's Development section", () => section(read('README.md'), 'Development')],
    ['docs/development.md', () => read('docs/development.md')],
  ] as const) {
    it(`${page} states the recorded time and test count`, () => {
      const sentence = statedTime(record);
      assert.ok(flat(text()).includes(flat(sentence)), `${page} says: "${sentence}" (with a link to ${RECORD})`);
    });
  }
});
