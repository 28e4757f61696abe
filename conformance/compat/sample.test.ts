/**
 * The sample report of docs/compat.md is what the tool writes for its pair (`SAMPLE_PAIR`), proven:
 * regenerated here and compared. `COMPAT_SAMPLE_WRITE=1 npx mocha conformance/compat/sample.test.ts`
 * writes the fresh one into docs/compat.md.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { editedContract, SAMPLE_PAIR } from '../testing/compat-pairs.js';
import { COMPAT_DEFAULTS } from './args.js';
import { renderMarkdown } from './markdown.js';
import { runCompat } from './run.js';

const DOC = join(PROJECT_ROOT, 'docs', 'compat.md');
const START = '<!-- compat-sample:start -->\n';
const END = '<!-- compat-sample:end -->';

/** The sample, made the way the doc says: two contract files named relative to the folder it runs in. */
async function freshSample(): Promise<{ markdown: string; exitCode: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'goods-compat-sample-'));
  const here = process.cwd();
  try {
    for (const [version, edits] of [
      ['v1', SAMPLE_PAIR.old],
      ['v2', SAMPLE_PAIR.new],
    ] as const) {
      mkdirSync(join(dir, version));
      writeFileSync(join(dir, version, 'openapi.json'), JSON.stringify(editedContract(edits), null, 2));
    }
    // Relative paths, so the report names `v1/openapi.json` wherever the test runs.
    process.chdir(dir);
    const { report } = await runCompat({
      ...COMPAT_DEFAULTS,
      oldPath: 'v1/openapi.json',
      newPath: 'v2/openapi.json',
      prove: true,
      reporters: [],
    });
    return { markdown: renderMarkdown(report), exitCode: report.exitCode };
  } finally {
    process.chdir(here);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('compat: the sample report of docs/compat.md', function () {
  this.timeout(60_000);

  it('is the report the tool writes for its pair (exit 1: breaking for clients)', async () => {
    const { markdown, exitCode } = await freshSample();
    assert.equal(exitCode, 1);
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    assert.ok(start >= 0 && end > start, 'docs/compat.md has the sample markers');
    const fresh = `${doc.slice(0, start + START.length)}${markdown}${doc.slice(end)}`;
    if (process.env['COMPAT_SAMPLE_WRITE'] === '1') {
      writeFileSync(DOC, fresh);
      return;
    }
    assert.equal(
      doc.slice(start + START.length, end),
      markdown,
      'docs/compat.md: the sample is stale; run COMPAT_SAMPLE_WRITE=1 npx mocha conformance/compat/sample.test.ts',
    );
  });
});
