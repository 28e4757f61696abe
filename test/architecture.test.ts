/**
 * The dependency rule of ARCHITECTURE.md, checked on every import of the project's TypeScript (type-only
 * imports included: they are erased at run time, but a type is still knowledge of the module it comes
 * from, so an arrow the wrong way in types is the same coupling as one in values):
 * - `util/` (general helpers that know nothing of the contract: argv values, errors, JSON text, JSON
 *   Pointer, the bearer syntax) imports nothing of the project; any folder may import it;
 * - `contract/` imports nothing of the project outside `contract/` and `util/`;
 * - `judgments/` imports only `contract/` and `util/` (and itself): the same judgments serve the suite and a proxy;
 * - `report/` (the report model both tools write: results, failures, the JSON, JUnit, human and HTML
 *   renderers) imports only `contract/`, `redaction/` and `util/`: it sits below the suite and the proxy;
 * - `checks/` (the one list of check modules: cases, judge, rule, fault, what the proxy observes) imports
 *   only `contract/`, `judgments/`, `report/` and `util/`: the suite, the proxy and the self-test all read it;
 * - `conformance/` reaches `mock/` only through its public API `mock/index.ts`;
 * - `mock/` never imports `conformance/`, with no exception; inside `mock/`, only the proxy itself and the
 *   mock's composition roots (`server.ts`, `cli.ts`, `cli-args.ts`) import `mock/proxy/`: the proxy
 *   builds on the mock, not the other way round;
 * - `client/` imports only `contract/` and `util/`;
 * - `redaction/` (the one redactor) imports nothing of the project, and both the suite's secrets and
 *   the proxy's redaction go through it.
 * - `support/` (the bench's and the tests' helpers: child processes, free ports, polling) imports only `contract/` and `util/`;
 * - `bench/` imports `contract/`, `util/`, `support/` and the mock's public API (`mock/index.ts`, and the proxy's options);
 * - `scripts/` imports only `contract/`, `util/` and `conformance/coverage.ts` (the coverage table of docs/conformance.md);
 * - no shipped code imports `bench/`, `scripts/`, `support/` or `test/` (only tests and `test/` do);
 * - `test/` never imports `bench/` or `scripts/`;
 * - every folder of the project is covered by one of these rules;
 * - no import circle anywhere in the project, tests included (a circle has no layer to put its files in).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../contract/paths.js';

interface ImportEdge {
  file: string;
  target: string;
}

/** The folders holding none of the project's own code. */
const NOT_CODE = ['node_modules', 'dist', 'reports', 'coverage', 'docs', 'fixtures'];

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) files.push(relative(PROJECT_ROOT, join(entry.parentPath, entry.name)));
  }
  return files;
}

/** The imports of each project file, parsed once for all the rules. */
const parsed = new Map<string, ImportEdge[]>();

/**
 * Every relative import of a file, resolved to a project path (`mock/index.ts`), as the TypeScript
 * compiler reads the file (`text` stands in for the file's own text): static imports and re-exports (type-only ones too) and `import()` calls,
 * never a path that only appears in a comment or a string.
 */
function importsOf(file: string, text?: string): ImportEdge[] {
  const known = text === undefined ? parsed.get(file) : undefined;
  if (known) return known;
  const edges: ImportEdge[] = [];
  const add = (spec: string): void => {
    if (!spec.startsWith('./') && !spec.startsWith('../')) return;
    const target = relative(PROJECT_ROOT, resolve(dirname(join(PROJECT_ROOT, file)), spec)).replace(/\.js$/, '.ts');
    edges.push({ file, target: target.split(sep).join('/') });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [spec] = node.arguments;
      if (spec && ts.isStringLiteralLike(spec)) add(spec.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text ?? readFileSync(join(PROJECT_ROOT, file), 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  if (text === undefined) parsed.set(file, edges);
  return edges;
}

/** Every TypeScript file of the project's code folders. */
function projectFiles(): string[] {
  return readdirSync(PROJECT_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_CODE.includes(entry.name) && !entry.name.startsWith('.'))
    .flatMap((entry) => sourceFiles(entry.name));
}

/**
 * The import circles of a graph (file → the files it imports): its strongly connected components of
 * more than one file, or of one file importing itself (Tarjan's algorithm), each sorted by name.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

const top = (path: string): string => path.split('/')[0] ?? '';

/** The folders shipped in the package, and the folders only development uses. */
const SHIPPED = ['util', 'contract', 'judgments', 'redaction', 'report', 'checks', 'mock', 'conformance', 'client'];
const DEV_ONLY = ['bench', 'scripts', 'support', 'test'];
/** Every folder a rule below covers. */
const RULED = [...SHIPPED, ...DEV_ONLY];

/** The mock's composition roots: the only files of `mock/` outside `mock/proxy/` that import the proxy. */
const MOCK_ROOTS = ['mock/server.ts', 'mock/cli.ts', 'mock/cli-args.ts'];

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
  it('finds the relative imports of a file, type-only ones and re-exports too, and none in comments (the check can fail)', () => {
    const text = [
      "import { a } from '../mock/app.js';",
      "import type { B } from '../report/results.js';",
      "export { c } from './z.js';",
      "// import { d } from '../bench/report.js';",
      "const m = await import('./y.js');",
      "import { e } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(
      importsOf('conformance/x.ts', text).map((e) => e.target),
      ['mock/app.ts', 'report/results.ts', 'conformance/z.ts', 'conformance/y.ts'],
    );
  });

  it('no import circle in the project (type-only imports count)', () => {
    const graph = new Map(projectFiles().map((file) => [file, importsOf(file).map((e) => e.target)]));
    assert.ok(graph.size > 300, `read ${graph.size} files`);
    assert.deepEqual(circles(graph), []);
    // The circle finder sees a two-file circle, a longer one and a file importing itself (it can fail).
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts', 'f.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts']],
    ]);
    assert.deepEqual(
      circles(sample)
        .map((c) => c.join(' '))
        .sort(),
      ['a.ts b.ts', 'c.ts d.ts e.ts', 'f.ts'],
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

  it('report/ imports only contract/, redaction/, util/ and report/ (tests aside): below the suite and the proxy', () => {
    assert.deepEqual(
      violations('report', (e) => ['report', 'contract', 'redaction', 'util'].includes(top(e.target)), false),
      [],
    );
    // Both tools write their reports with it.
    for (const file of ['conformance/report-files.ts', 'mock/proxy/report.ts'])
      assert.ok(
        importsOf(file).some((e) => top(e.target) === 'report'),
        `${file} renders with report/`,
      );
  });

  it('checks/ imports only contract/, judgments/, report/, util/ and checks/: the one list of checks, read by the suite, the proxy and the self-test', () => {
    assert.deepEqual(
      violations('checks', (e) => ['checks', 'contract', 'judgments', 'report', 'util'].includes(top(e.target)), true),
      [],
    );
    for (const file of [
      'conformance/checks/index.ts',
      'mock/proxy/judgments.ts',
      'conformance/self-test/faults.ts',
      'conformance/self-test/reference-server.ts',
    ])
      assert.ok(
        importsOf(file).some((e) => e.target === 'checks/index.ts'),
        `${file} reads the list of checks/index.ts`,
      );
    // The rule check sees a checks/ file importing the suite (it can fail).
    assert.deepEqual(
      importsOf('checks/x.ts', "import type { CheckContext } from '../conformance/context.js';")
        .filter((e) => !['checks', 'contract', 'judgments', 'report', 'util'].includes(top(e.target)))
        .map((e) => e.target),
      ['conformance/context.ts'],
    );
  });

  it("the validating proxy never loads the suite's data generator (json-schema-faker): the suite hands it to the checks (`CheckSource.data`)", () => {
    const reached = (from: string): string[] => {
      const seen = new Set<string>();
      const walk = (file: string): void => {
        if (seen.has(file)) return;
        seen.add(file);
        for (const e of importsOf(file)) walk(e.target);
      };
      walk(from);
      return [...seen];
    };
    const loadsGenerator = (file: string): boolean => /from ['"]json-schema-faker['"]/.test(readFileSync(join(PROJECT_ROOT, file), 'utf8'));
    const proxy = reached('mock/proxy/judgments.ts');
    assert.ok(proxy.includes('checks/create.ts') && proxy.includes('checks/request-errors.ts'));
    assert.deepEqual(proxy.filter(loadsGenerator), []);
    // The rule check sees the suite's side loading it (it can fail).
    assert.ok(reached('conformance/checks/helpers.ts').some(loadsGenerator));
  });

  it('conformance/ reaches mock/ only through mock/index.ts', () => {
    assert.deepEqual(
      violations('conformance', (e) => top(e.target) !== 'mock' || e.target === 'mock/index.ts', true),
      [],
    );
  });

  it('mock/ never imports conformance/, and client/ imports only contract/ (tests aside)', () => {
    assert.deepEqual(
      violations('mock', (e) => top(e.target) !== 'conformance', true),
      [],
    );
    assert.deepEqual(
      violations('client', (e) => ['client', 'contract', 'util'].includes(top(e.target)), false),
      [],
    );
  });

  it('inside mock/, only the proxy and the composition roots import mock/proxy/ (tests aside)', () => {
    const proxy = (path: string): boolean => path.startsWith('mock/proxy/');
    assert.deepEqual(
      violations('mock', (e) => !proxy(e.target) || proxy(e.file) || MOCK_ROOTS.includes(e.file), false),
      [],
    );
    // The check sees the mock's configuration importing the proxy's (it can fail).
    assert.deepEqual(
      importsOf('mock/config.ts', "import type { ProxyConfig } from './proxy/config.js';")
        .filter((e) => proxy(e.target) && !MOCK_ROOTS.includes(e.file))
        .map((e) => e.target),
      ['mock/proxy/config.ts'],
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

  it('scripts/ imports only contract/, util/, support/ (and the coverage table of conformance/coverage.ts for docs/conformance.md)', () => {
    assert.deepEqual(
      violations(
        'scripts',
        (e) => ['scripts', 'contract', 'util', 'support'].includes(top(e.target)) || e.target === 'conformance/coverage.ts',
        true,
      ),
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
      .filter((entry) => entry.isDirectory() && !NOT_CODE.includes(entry.name) && !entry.name.startsWith('.'))
      .filter((entry) => sourceFiles(entry.name).length > 0)
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(folders, [...RULED].sort());
  });
});
