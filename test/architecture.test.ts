/**
 * The dependency rule of ARCHITECTURE.md, checked on every import of the project's TypeScript:
 * - `util/` (general helpers that know nothing of the contract: argv values, errors, JSON text, JSON
 *   Pointer, the bearer syntax) imports nothing of the project; any folder may import it;
 * - `contract/` imports nothing of the project outside `contract/` and `util/`;
 * - `judgments/` imports only `contract/` and `util/` (and itself): the same judgments serve the suite and a proxy;
 * - `conformance/` reaches `mock/` only through its public API `mock/index.ts`;
 * - `mock/` never imports `conformance/`; `client/` imports only `contract/` and `util/`;
 * - `redaction/` (the one redactor) imports nothing of the project, and both the suite's secrets and
 *   the proxy's redaction go through it.
 * - `support/` (the bench's and the tests' helpers: child processes, free ports, polling) imports only `contract/` and `util/`;
 * - `bench/` imports `contract/`, `util/`, `support/` and the mock's public API (`mock/index.ts`, and the proxy's options);
 * - `scripts/` imports only `contract/`, `util/` and `conformance/coverage.ts` (the coverage table of docs/conformance.md);
 * - no shipped code imports `bench/`, `scripts/`, `support/` or `test/` (only tests and `test/` do);
 * - `test/` never imports `bench/` or `scripts/`;
 * - every folder of the project is covered by one of these rules.
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

/** The folders shipped in the package, and the folders only development uses. */
const SHIPPED = ['util', 'contract', 'judgments', 'redaction', 'mock', 'conformance', 'client'];
const DEV_ONLY = ['bench', 'scripts', 'support', 'test'];
/** Every folder a rule below covers. */
const RULED = [...SHIPPED, ...DEV_ONLY];

/**
 * The one exception to "mock/ never imports conformance/": the validating proxy writes its reports
 * with the suite's results model and its pure JSON and JUnit renderers (the same schema and format
 * as the suite's reports), from one file.
 */
const PROXY_REPORT_EXCEPTION = new Set(['results', 'json', 'junit'].map((name) => `mock/proxy/report.ts -> conformance/report/${name}.ts`));

/** Tests: `*.test.ts`, and the long checks `*.check.ts` that mocha runs on demand (neither is built nor shipped: tsconfig.build.json). */
const isTest = (file: string): boolean => /\.(test|check)\.ts$/.test(file);

function violations(folder: string, allowed: (edge: ImportEdge) => boolean, tests: boolean): string[] {
  return sourceFiles(folder)
    .filter((file) => tests || !isTest(file))
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

  it('util/ imports nothing of the project outside util/', () => {
    assert.deepEqual(
      violations('util', (e) => top(e.target) === 'util', true),
      [],
    );
    // The check sees a util/ file importing contract/ (it can fail).
    assert.deepEqual(
      importsOf('util/x.ts', "import { a } from '../contract/document.js';")
        .filter((e) => top(e.target) !== 'util')
        .map((e) => e.target),
      ['contract/document.ts'],
    );
  });

  it('contract/ imports nothing of the project outside contract/ and util/ (tests aside)', () => {
    assert.deepEqual(
      violations('contract', (e) => ['contract', 'util'].includes(top(e.target)), false),
      [],
    );
  });

  it('judgments/ imports only contract/, util/ and judgments/', () => {
    assert.deepEqual(
      violations('judgments', (e) => ['judgments', 'contract', 'util'].includes(top(e.target)), true),
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
    for (const file of ['conformance/secrets.ts', 'mock/proxy/app.ts'])
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
      violations('client', (e) => ['client', 'contract', 'util'].includes(top(e.target)), false),
      [],
    );
  });

  it('support/ imports only contract/, util/ and support/', () => {
    assert.deepEqual(
      violations('support', (e) => ['support', 'contract', 'util'].includes(top(e.target)), true),
      [],
    );
  });

  it('bench/ imports contract/, util/, support/, bench/ and the mock only through its public API (and the proxy options)', () => {
    const mockApi = new Set(['mock/index.ts', 'mock/proxy/config.ts']);
    assert.deepEqual(
      violations('bench', (e) => ['bench', 'support', 'contract', 'util'].includes(top(e.target)) || mockApi.has(e.target), true),
      [],
    );
  });

  it('scripts/ imports only contract/, util/ (and the coverage table of conformance/coverage.ts for docs/conformance.md)', () => {
    assert.deepEqual(
      violations('scripts', (e) => ['scripts', 'contract', 'util'].includes(top(e.target)) || e.target === 'conformance/coverage.ts', true),
      [],
    );
  });

  it('no shipped code imports bench/, scripts/, support/ or test/ (tests aside)', () => {
    for (const folder of SHIPPED)
      assert.deepEqual(
        violations(folder, (e) => !DEV_ONLY.includes(top(e.target)), false),
        [],
        folder,
      );
  });

  it('test/ never imports bench/ or scripts/: what tests share with the bench lives in support/', () => {
    assert.deepEqual(
      violations('test', (e) => !['bench', 'scripts'].includes(top(e.target)), true),
      [],
    );
  });

  it('every TypeScript folder of the project is under one of these rules', () => {
    const folders = readdirSync(PROJECT_ROOT, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() &&
          !['node_modules', 'dist', 'reports', 'docs', 'fixtures'].includes(entry.name) &&
          !entry.name.startsWith('.'),
      )
      .filter((entry) => sourceFiles(entry.name).length > 0)
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(folders, [...RULED].sort());
  });
});
