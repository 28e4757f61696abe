/**
 * No file of the project's code, tests, scripts, contract or workflows names an issue number (the
 * team's rule: comments and test titles say what and why, never which issue). The files are the ones
 * git would commit (tracked, or new and not ignored), so a new file is checked before it is added.
 * Left out: CHANGELOG.md (a history: it says what each release changed) and the files generated from
 * the contract (their text is the contract's, which is checked itself). Markdown docs are prose, not
 * scanned here.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { runToExit } from '../support/processes.js';
import { requireSystemTool } from '../support/system-tools.js';
import { describeMention, issueMentions } from './issue-numbers.js';

/** What is scanned: code (TypeScript, JavaScript, the dashboard's HTML and CSS), YAML (workflows, the contract, lint rules) and the CI script. */
const SCANNED = /\.(?:[cm]?[jt]s|html|css|ya?ml)$/;
const SCANNED_WITHOUT_EXTENSION = ['.ci/run'];
/** Left out, and why: see the header. */
const LEFT_OUT = ['CHANGELOG.md', 'contract/generated/', 'docs/generated/'];

/** The files a commit would hold (tracked, or untracked and not ignored) that the rule covers, as `/` paths. */
async function scannedFiles(): Promise<string[]> {
  const { code, stdout, output } = await runToExit('git ls-files', {
    command: requireSystemTool('git'),
    args: ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
  });
  assert.equal(code, 0, `git ls-files failed in ${PROJECT_ROOT}:\n${output}`);
  const files = new Set(stdout.split('\0').filter((file) => file !== ''));
  return [...files]
    .filter((file) => SCANNED.test(file) || SCANNED_WITHOUT_EXTENSION.includes(file))
    .filter((file) => !LEFT_OUT.some((left) => file === left || file.startsWith(left)))
    .filter((file) => existsSync(join(PROJECT_ROOT, file)))
    .sort();
}

describe('house rule: comments and test titles say what and why, never which issue', () => {
  it('finds an issue number in a header comment, a test title and a YAML comment, naming file and line', () => {
    // Built at run time, so this file itself holds no issue number.
    const number = (n: number): string => `${'Issue'} ${n}`;
    const sample = [
      '/**',
      ` * ${number(6)}, crashes: the mock is killed mid-burst.`,
      ' */',
      `it('takes the limits (${number(11).toLowerCase()} point 3)', () => {});`,
      `      # tests: each once (${'issues'} #${23}).`,
      "it('issues a token to each client', () => {}); // a verb, no number",
      '// see github.com/owner/repo/issues/12 (an address, not a mention)',
    ].join('\n');
    assert.deepEqual(issueMentions('sample.ts', sample).map(describeMention), [
      `sample.ts:2: * ${number(6)}, crashes: the mock is killed mid-burst.`,
      `sample.ts:4: it('takes the limits (${number(11).toLowerCase()} point 3)', () => {});`,
      `sample.ts:5: # tests: each once (${'issues'} #${23}).`,
    ]);
    assert.deepEqual(issueMentions('clean.ts', '/** The journal rewritten while the mock runs. */\n'), []);
  });

  it('no file of code, tests, scripts, the contract or the workflows names an issue number', async () => {
    const files = await scannedFiles();
    for (const expected of ['.github/workflows/ci.yml', '.ci/run', 'contract/openapi.yaml', 'mock/server.test.ts', 'test/issue-numbers.ts'])
      assert.ok(files.includes(expected), `${expected} is scanned (scanned: ${files.length} files)`);
    const mentions = files.flatMap((file) => issueMentions(file, readFileSync(join(PROJECT_ROOT, file), 'utf8')));
    assert.deepEqual(
      mentions.map(describeMention),
      [],
      'say what is tested and why instead of the issue it came from (docs/ and CHANGELOG.md may tell the history)',
    );
  });
});
