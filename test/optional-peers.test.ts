/**
 * The optional peer dependencies (docs/package.md, "What installing it adds"): the packages only some
 * commands need are declared once, optional, with the version the project is tested with; the code
 * names the same ones; and no shipped module imports one as a value at load time, so the mock, the
 * client and the proxy load without them (the package test installs the package without them and runs
 * them).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SUITE_PEERS } from '../conformance/peers.js';
import { PROJECT_ROOT } from '../contract/paths.js';
import { PRISM_PACKAGE } from '../mock/prism-fallback.js';

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const SHIPPED = ['util', 'contract', 'judgments', 'redaction', 'checks', 'mock', 'conformance', 'client'];

/** The packages a file imports as values when it loads (static imports, not `import type`). */
function staticValueImports(text: string): string[] {
  return [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+['"]([^'"./][^'"]*)['"]/gm)].map((m) => m[1] ?? '');
}

describe('optional peer dependencies', () => {
  it('are the ones the code names (the suite: mocha; the mock: Prism), each optional, with an exact tested version', () => {
    assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), [...SUITE_PEERS, PRISM_PACKAGE].sort());
    for (const name of Object.keys(pkg.peerDependencies)) {
      assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
      assert.match(pkg.devDependencies[name] ?? '', /^\d+\.\d+\.\d+$/, `${name} is a devDependency at an exact version (the one tested)`);
      assert.equal(pkg.dependencies[name], undefined, `${name} is not also a dependency`);
    }
  });

  it('the docs name each at the version the project is tested with (`npm install -D mocha@...`)', () => {
    const named = new RegExp(`(${Object.keys(pkg.peerDependencies).join('|')})@(\\d[\\w.-]*)`, 'g');
    const wrong: string[] = [];
    for (const page of [
      'README.md',
      ...readdirSync(join(PROJECT_ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ])
      for (const match of readFileSync(join(PROJECT_ROOT, page), 'utf8').matchAll(named))
        if (pkg.devDependencies[match[1] ?? ''] !== match[2])
          wrong.push(`${page}: ${match[0]} (tested: ${pkg.devDependencies[match[1] ?? ''] ?? '?'})`);
    assert.deepEqual(wrong, []);
  });

  it('finds static value imports of packages (the check can fail)', () => {
    const text =
      "import Mocha from 'mocha';\nimport type Pactum from 'pactum';\nimport { x } from './y.js';\nconst p = await import('pactum');\nimport {\n  a,\n} from 'yaml';";
    assert.deepEqual(staticValueImports(text), ['mocha', 'yaml']);
  });

  it('no shipped module imports one at load time (only `import type`, or `import()` once it is known to be there)', () => {
    const peers = new Set(Object.keys(pkg.peerDependencies));
    const found: string[] = [];
    for (const folder of SHIPPED) {
      for (const entry of readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true, recursive: true })) {
        const file = join(entry.parentPath, entry.name);
        const path = relative(PROJECT_ROOT, file);
        if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts') || /(^|\/)testing(\/|\.ts$)/.test(path))
          continue;
        for (const name of staticValueImports(readFileSync(file, 'utf8'))) if (peers.has(name)) found.push(`${path} imports ${name}`);
      }
    }
    assert.deepEqual(found, []);
  });
});
