/**
 * The dependency rule of ARCHITECTURE.md, checked on every import of the project's TypeScript:
 * - `contract/` imports nothing of the project outside `contract/`;
 * - `judgments/` imports only `contract/` (and itself): the same judgments serve the suite and a proxy;
 * - `conformance/` reaches `mock/` only through its public API `mock/index.ts`;
 * - `mock/` never imports `conformance/`; `client/` imports only `contract/`;
 * - `redaction/` (the one redactor) imports nothing of the project, and both the suite's secrets and
 *   the proxy's redaction go through it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

interface ImportEdge {
  file: string;
  target: string;
}

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) files.push(relative(PROJECT_ROOT, join(entry.parentPath, entry.name)));
  }
  return files;
}

/** Every relative import of a file, resolved to a project path (`mock/index.ts`). */
function importsOf(file: string, text = readFileSync(join(PROJECT_ROOT, file), 'utf8')): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const spec = match[1] ?? '';
    const target = relative(PROJECT_ROOT, resolve(dirname(join(PROJECT_ROOT, file)), spec)).replace(/\.js$/, '.ts');
    edges.push({ file, target: target.split(sep).join('/') });
  }
  return edges;
}

const top = (path: string): string => path.split('/')[0] ?? '';

/**
 * The one exception to "mock/ never imports conformance/": the validating proxy writes its reports
 * with the suite's results model and its pure JSON and JUnit renderers (the same schema and format
 * as the suite's reports), from one file.
 */
const PROXY_REPORT_EXCEPTION = new Set(['results', 'json', 'junit'].map((name) => `mock/proxy/report.ts -> conformance/report/${name}.ts`));

function violations(folder: string, allowed: (edge: ImportEdge) => boolean, tests: boolean): string[] {
  return sourceFiles(folder)
    .filter((file) => tests || !file.endsWith('.test.ts'))
    .flatMap((file) => importsOf(file))
    .filter((edge) => !allowed(edge))
    .map((edge) => `${edge.file} imports ${edge.target}`);
}

describe('architecture: the dependency rule', () => {
  it('finds the relative imports of a file (the check can fail)', () => {
    const edges = importsOf('conformance/x.ts', "import { a } from '../mock/app.js';\nconst m = await import('./y.js');");
    assert.deepEqual(
      edges.map((e) => e.target),
      ['mock/app.ts', 'conformance/y.ts'],
    );
  });

  it('contract/ imports nothing of the project outside contract/ (tests aside)', () => {
    assert.deepEqual(
      violations('contract', (e) => top(e.target) === 'contract', false),
      [],
    );
  });

  it('judgments/ imports only contract/ and judgments/', () => {
    assert.deepEqual(
      violations('judgments', (e) => ['judgments', 'contract'].includes(top(e.target)), true),
      [],
    );
  });

  it('the rule check sees a judgments/ file importing conformance/ (it can fail)', () => {
    const edges = importsOf('judgments/x.ts', "import { a } from '../conformance/http.js';");
    assert.deepEqual(
      edges.filter((e) => !['judgments', 'contract'].includes(top(e.target))).map((e) => e.target),
      ['conformance/http.ts'],
    );
  });

  it('redaction/ imports nothing of the project outside redaction/; the suite and the proxy both redact through it', () => {
    assert.deepEqual(
      violations('redaction', (e) => top(e.target) === 'redaction', true),
      [],
    );
    for (const file of ['conformance/secrets.ts', 'mock/proxy/redact.ts'])
      assert.ok(
        importsOf(file).some((e) => e.target === 'redaction/redactor.ts'),
        `${file} redacts with redaction/redactor.ts`,
      );
    // The rule check sees a redaction/ file importing another folder (it can fail).
    assert.deepEqual(
      importsOf('redaction/x.ts', "import { a } from '../conformance/config.js';")
        .filter((e) => top(e.target) !== 'redaction')
        .map((e) => e.target),
      ['conformance/config.ts'],
    );
  });

  it('conformance/ reaches mock/ only through mock/index.ts', () => {
    assert.deepEqual(
      violations('conformance', (e) => top(e.target) !== 'mock' || e.target === 'mock/index.ts', true),
      [],
    );
  });

  it('mock/ never imports conformance/ (but the proxy reports with the suite renderers), and client/ imports only contract/ (tests aside)', () => {
    assert.deepEqual(
      violations('mock', (e) => top(e.target) !== 'conformance' || PROXY_REPORT_EXCEPTION.has(`${e.file} -> ${e.target}`), true),
      [],
    );
    assert.deepEqual(
      violations('client', (e) => ['client', 'contract'].includes(top(e.target)), false),
      [],
    );
  });
});
