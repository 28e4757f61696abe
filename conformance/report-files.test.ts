/** writeReports: one file per file reporter, each written from the sanitized verdict. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactorFor } from './secrets.js';
import { writeReports } from './report-files.js';
import { CHECKS, rawControls, verdictOf } from '../report/verdict-fixture.js';

const TOKEN = 'tok-files-Secret-0042';

describe('report files (writeReports)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'reports-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes only the reports asked for, into the output folder (created when missing)', () => {
    const out = join(dir, 'nested', 'reports');
    const { files } = writeReports(verdictOf(), {
      reporters: ['console', 'junit'],
      outputDir: out,
      redactor: redactorFor({ token: TOKEN, rejectedToken: 'invalid' }),
    });
    assert.deepEqual(files, [join(out, 'junit.xml')]);
    assert.ok(!existsSync(join(out, 'conformance.json')));
    assert.deepEqual(
      writeReports(verdictOf(), {
        reporters: ['console'],
        outputDir: join(dir, 'none'),
        redactor: redactorFor({ token: TOKEN, rejectedToken: 'invalid' }),
      }).files,
      [],
    );
    assert.ok(!existsSync(join(dir, 'none')));
  });

  it('no report carries a credential, URL userinfo or a raw control character, even when the verdict does', () => {
    const leaky = verdictOf(
      CHECKS.map((c) => ({
        ...c,
        message: `${c.message ?? ''} Bearer ${TOKEN} ${Buffer.from(`u:${TOKEN}`).toString('base64')} ${encodeURIComponent(TOKEN)}`,
      })),
      { target: 'https://user:pa55-word-x@h.example', hints: [`token ${TOKEN} refused`] },
    );
    const redactor = redactorFor({ token: TOKEN, rejectedToken: 'invalid', baseUrl: 'https://user:pa55-word-x@h.example' });
    const { files, shown } = writeReports(leaky, { reporters: ['json', 'junit', 'html'], outputDir: dir, redactor });
    assert.equal(files.length, 3);
    assert.ok(!JSON.stringify(shown).includes(TOKEN), 'the sanitized verdict the summary is rendered from');
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const secret of [TOKEN, 'pa55-word-x', Buffer.from(TOKEN).toString('base64').slice(0, 12), encodeURIComponent(TOKEN)]) {
        assert.ok(!text.includes(secret), `${secret} in ${file}`);
      }
      assert.match(text, /redacted/);
      assert.deepEqual(rawControls(text), [], file);
    }
  });
});
