/**
 * Every workflow file under .github/workflows is valid for GitHub Actions, as judged by the workflow
 * linter action-validator (`@action-validator/cli`: GitHub's workflow schema; runs offline). A new
 * workflow file is linted without touching this test.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToExit } from '../support/processes.js';
import { PROJECT_ROOT } from '../contract/paths.js';

const VALIDATOR = join(PROJECT_ROOT, 'node_modules', '.bin', 'action-validator');
const WORKFLOWS = join(PROJECT_ROOT, '.github', 'workflows');

async function validate(file: string): Promise<{ code: number | null; output: string }> {
  const { code, output } = await runToExit('action-validator', { command: VALIDATOR, args: [file] });
  return { code, output };
}

describe('workflow files (.github/workflows/*.yml) pass the workflow linter', () => {
  const files = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));

  it('finds the workflow files', () => {
    assert.ok(files.includes('ci.yml') && files.includes('conformance.yml'), files.join(', '));
  });

  for (const name of files) {
    it(`${name} is valid`, async () => {
      const { code, output } = await validate(join(WORKFLOWS, name));
      assert.equal(code, 0, `action-validator refused ${name}:\n${output}`);
    });
  }

  it('refuses a broken workflow (a misspelt key, an unknown input type), so the check can fail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workflow-lint-'));
    try {
      const broken = join(dir, 'broken.yml');
      writeFileSync(
        broken,
        [
          'name: broken',
          'on:',
          '  workflow_call:',
          '    inputs:',
          '      harness-package:',
          '        type: strin',
          'jobs:',
          '  run:',
          '    runs-on: ubuntu-latest',
          '    stepz:',
          '      - run: echo hi',
          '',
        ].join('\n'),
      );
      const { code, output } = await validate(broken);
      assert.equal(code, 1, output);
      assert.match(output, /Additional property 'stepz' is not allowed/);
      assert.match(output, /\/on\/workflow_call\/inputs\/harness-package\/type/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
