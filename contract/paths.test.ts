import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_JSON_PATH, FIXTURES_DIR, packageRootOf, PROJECT_ROOT, shownPath } from './paths.js';

describe('contract/paths: the package resolves its own files from its location', () => {
  it('PROJECT_ROOT is the folder of this package.json, and the bundled contract and fixtures are below it', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string };
    assert.equal(pkg.name, 'goods-contract-harness');
    assert.ok(existsSync(CONTRACT_JSON_PATH) && CONTRACT_JSON_PATH.startsWith(PROJECT_ROOT));
    assert.ok(existsSync(FIXTURES_DIR) && FIXTURES_DIR.startsWith(PROJECT_ROOT));
  });

  it('packageRootOf finds the nearest package.json above a module, whatever the folders are called', () => {
    const base = mkdtempSync(join(tmpdir(), 'paths-'));
    try {
      // a package that sits below a folder named "dist" (a path test that `/dist/` heuristics get wrong)
      const root = join(base, 'dist', 'node_modules', 'goods-contract-harness');
      for (const dir of [join(root, 'dist', 'contract'), join(root, 'contract')]) mkdirSync(dir, { recursive: true });
      writeFileSync(join(base, 'package.json'), '{}');
      writeFileSync(join(root, 'package.json'), '{}');
      assert.equal(packageRootOf(join(root, 'dist', 'contract')), root);
      assert.equal(packageRootOf(join(root, 'contract')), root);
      assert.equal(packageRootOf(join(base, 'dist')), base);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('shownPath: relative to the folder when the file is inside it, else absolute', () => {
    assert.equal(shownPath(CONTRACT_JSON_PATH, PROJECT_ROOT), join('contract', 'generated', 'openapi.json'));
    assert.equal(shownPath('api/openapi.yaml', '/work/project'), join('api', 'openapi.yaml'));
    assert.equal(shownPath('/work/project/..contract.yaml', '/work/project'), '..contract.yaml');
    assert.equal(shownPath('../other/openapi.yaml', '/work/project'), '/work/other/openapi.yaml');
    assert.equal(shownPath('/elsewhere/openapi.json', '/work/project'), '/elsewhere/openapi.json');
    assert.equal(shownPath('/work/project', '/work/project'), '/work/project');
  });
});
