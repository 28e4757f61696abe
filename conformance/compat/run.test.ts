/**
 * `runCompat` (the core of `goods-conformance compat`) on pairs of contract files: the verdict and the
 * exit code per --fail-on and --level, the console and Markdown reports, and compat.json valid against
 * its JSON Schema (compat.schema.json).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { pairNamed, schemaNamed, writePair, type Edit } from '../testing/compat-pairs.js';
import { COMPAT_DEFAULTS, type CompatConfig } from './args.js';
import { renderHuman } from './human.js';
import { renderMarkdown } from './markdown.js';
import type { CompatReport, FailOn } from './model.js';
import { runCompat } from './run.js';

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'conformance', 'compat', 'compat.schema.json'), 'utf8')) as object,
);

function schemaProblems(report: unknown): string[] {
  return validate(report) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function compare(name: string, options: Partial<CompatConfig> = {}): Promise<{ report: CompatReport; files: string[] }> {
  const paths = writePair(pairNamed(name));
  dirs.push(paths.dir);
  return runCompat({ ...COMPAT_DEFAULTS, prove: false, reporters: [], oldPath: paths.old, newPath: paths.new, ...options });
}

describe('compat: the verdict, the exit code and the reports', function () {
  this.timeout(30_000);

  it('a request enum widened: compatible for clients, breaking for servers; the exit code follows --fail-on', async () => {
    const exits: Record<string, number> = {};
    for (const failOn of ['clients', 'servers', 'any'] as FailOn[]) {
      const { report } = await compare('a request enum widened', { failOn });
      assert.deepEqual(report.verdict, { clients: 'compatible', servers: 'breaking' });
      exits[failOn] = report.exitCode;
    }
    assert.deepEqual(exits, { clients: 0, servers: 1, any: 1 });
  });

  it('the console groups the changes: breaking for clients, breaking for servers, compatible', async () => {
    const { report } = await compare('a request enum widened');
    const text = renderHuman(report);
    const groups = text.split('\n').filter((line) => /^\S.* \(\d+\)$/.test(line));
    assert.deepEqual(groups, ['Breaking for clients (0)', 'Breaking for servers (1)', 'Compatible (1)']);
    const servers = text.slice(text.indexOf('Breaking for servers'), text.indexOf('Compatible ('));
    assert.match(
      servers,
      /createTestSample {2}request \/status enum {2}\[spec\]\n {4}enum: "BLOCKED" added: v1 clients' requests still fit/,
    );
    assert.match(servers, /old \/components\/schemas\/TestSampleFields\/properties\/status\/enum/);
    assert.match(text, /Verdict: compatible for clients, breaking for servers; --fail-on clients: exit 0\n$/);
  });

  it('an API-key scheme put on one operation: breaking for clients (exit 1), named with the scheme, where it stands in both contracts', async () => {
    const { report } = await compare('an API-key scheme replacing the bearer token on one operation');
    assert.deepEqual([report.verdict, report.exitCode, report.counts.changes], [{ clients: 'breaking', servers: 'breaking' }, 1, 1]);
    const text = renderHuman(report);
    assert.match(
      text,
      /Breaking for clients \(1\)\n {2}createTestSample {2}operation security-scheme bearerAuth→apiKeyAuth {2}\[spec\]\n {4}bearerAuth \(Authorization: Bearer\) replaced by apiKeyAuth \(header x-api-key\): a v1 client sending what v1 asks for is refused now/,
    );
    assert.match(text, /old \/security\/0\/bearerAuth/);
    assert.match(text, /new \/paths\/~1goodsReception~1rest~1v1~1test-samples~1create\/post\/security\/0\/apiKeyAuth/);
    assert.deepEqual(schemaProblems(JSON.parse(JSON.stringify(report))), []);
  });

  it('--level spec counts only specification facts: a default changed (a profile rule) is listed, not counted', async () => {
    const { report } = await compare('a default changed', { level: 'spec', failOn: 'any' });
    assert.deepEqual([report.verdict, report.exitCode, report.counts.notCounted], [{ clients: 'compatible', servers: 'compatible' }, 0, 1]);
    assert.match(
      renderHuman(report),
      /Profile rules \(not counted at level spec\) \(1\)\n {2}createTestSample {2}request \/status default {2}\[profile\]/,
    );
    const strict = await compare('a default changed', { failOn: 'any' });
    assert.equal(strict.report.exitCode, 1);
  });

  it('writes compat.json (valid against compat.schema.json) and compat.md, with the proof', async () => {
    const output = mkdtempSync(join(tmpdir(), 'goods-compat-out-'));
    dirs.push(output);
    const { report, files } = await compare('a request bound narrowed (a maximum added)', {
      prove: true,
      reporters: ['json', 'markdown'],
      outputDir: output,
    });
    assert.deepEqual(files, [join(output, 'compat.json'), join(output, 'compat.md')]);
    const json: unknown = JSON.parse(readFileSync(join(output, 'compat.json'), 'utf8'));
    assert.deepEqual(schemaProblems(json), []);
    assert.deepEqual(json, JSON.parse(JSON.stringify(report)));
    assert.equal(report.proof?.runs.length, 2);
    const markdown = readFileSync(join(output, 'compat.md'), 'utf8');
    assert.equal(markdown, renderMarkdown(report));
    assert.match(markdown, /^## Contract compatibility: breaking for clients, breaking for servers\n/);
    assert.match(
      markdown,
      /\n### Breaking for clients \(1\)\n\n\| Operation \| Where \| Level \| Clients \| Servers \| Reason \| Old \| New \| Proof \|\n/,
    );
    assert.match(markdown, /\| clients: confirmed, servers: confirmed \|\n/);
    assert.match(markdown, /\n### Proof \(suites at level `strict`, seed 1\)\n/);
    assert.match(markdown, /No disagreement: every failure of the runs is explained/);
  });

  it('the schema refuses a report that breaks it (the check can fail)', async () => {
    const { report } = await compare('a default changed');
    assert.deepEqual(schemaProblems(JSON.parse(JSON.stringify(report))), []);
    assert.notDeepEqual(schemaProblems({ ...report, exitCode: 3 }), []);
    assert.notDeepEqual(schemaProblems({ ...report, changes: [{ ...report.changes[0], clients: 'maybe' }] }), []);
  });

  it('Markdown: a value with a pipe or a backtick cannot break the table', async () => {
    const pattern: Edit = (doc) => {
      schemaNamed(doc, 'ScanCode')['pattern'] = '^(A|`B`)$';
    };
    const paths = writePair({ name: 'pattern', old: [], new: [pattern], changes: [] });
    dirs.push(paths.dir);
    const { report } = await runCompat({ ...COMPAT_DEFAULTS, prove: false, reporters: [], oldPath: paths.old, newPath: paths.new });
    const rows = renderMarkdown(report)
      .split('\n')
      .filter((line) => line.startsWith('| `createLotTransfer`'));
    assert.ok(rows.length > 0);
    for (const row of rows) assert.equal(row.split(/(?<!\\)\|/).length - 2, 8, row);
  });
});
