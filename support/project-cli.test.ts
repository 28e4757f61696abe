import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';
import { cliFromDist, DIST_IS_CURRENT, FROM_SOURCE, projectCli, tsxLoader } from './project-cli.js';

describe('support/project-cli', () => {
  const saved = process.env[DIST_IS_CURRENT];
  afterEach(() => {
    if (saved === undefined) delete process.env[DIST_IS_CURRENT];
    else process.env[DIST_IS_CURRENT] = saved;
  });

  it('runs from source through tsx unless npm test says dist/ is current (this test runs from source)', () => {
    assert.equal(FROM_SOURCE, true);
    assert.equal(cliFromDist({}), false);
    assert.equal(cliFromDist({ [DIST_IS_CURRENT]: '0' }), false);
    assert.equal(cliFromDist({ [DIST_IS_CURRENT]: '1' }), true);
    delete process.env[DIST_IS_CURRENT];
    const source = projectCli('mock/cli', ['--port', '0'], ['--expose-gc']);
    assert.equal(source.command, process.execPath);
    assert.deepEqual(source.args, ['--expose-gc', '--import', tsxLoader(), join(PROJECT_ROOT, 'mock/cli.ts'), '--port', '0']);
    assert.ok(existsSync(fileURLToPath(source.args[2] ?? '')), 'tsx is named by its file, so a child in any folder finds it');
    assert.ok(existsSync(source.args[3] ?? ''), 'the source CLI exists');
  });

  it('runs the compiled CLI from dist/ when told so', () => {
    process.env[DIST_IS_CURRENT] = '1';
    const compiled = projectCli('conformance/cli', ['--help']);
    assert.deepEqual(compiled.args, [join(PROJECT_ROOT, 'dist/conformance/cli.js'), '--help']);
  });
});
