/**
 * The reusable CI workflow for backend teams (.github/workflows/conformance.yml), read as data. Its
 * shell steps are also run for real against the installed package by test/package/install.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../contract/paths.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Input {
  required?: boolean;
  type: string;
  default?: unknown;
}
interface Workflow {
  on: { workflow_call: { inputs: Record<string, Input>; secrets: Record<string, { required?: boolean }> } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const workflow = parse(readFileSync(join(PROJECT_ROOT, '.github/workflows/conformance.yml'), 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const install = steps.find((s) => s.env?.['HARNESS_PACKAGE'] !== undefined);
const suite = steps.find((s) => s.run?.includes('goods-conformance'));

describe('conformance workflow (.github/workflows/conformance.yml)', () => {
  it('is reusable (workflow_call) with inputs base-url, order-number, level and the token as a secret', () => {
    const { inputs, secrets } = workflow.on.workflow_call;
    assert.equal(inputs['base-url']?.required, true);
    assert.equal(inputs['order-number']?.required, true);
    assert.equal(inputs['level']?.type, 'string');
    assert.equal(secrets['token']?.required, true);
    assert.deepEqual(workflow.permissions, { contents: 'read' });
  });

  it('runs the harness the caller names (required harness-package, no default), never code of the calling repository', () => {
    const input = workflow.on.workflow_call.inputs['harness-package'];
    assert.equal(input?.required, true);
    assert.equal(input?.type, 'string');
    assert.equal(input?.default, undefined, 'no default: a caller who leaves it out gets an error from GitHub, not some other code');
    assert.deepEqual(
      steps.filter((s) => s.uses?.startsWith('actions/checkout@')),
      [],
      'nothing is checked out: inside a reusable workflow github.repository is the caller',
    );
    assert.doesNotMatch(JSON.stringify(workflow), /github\.repository|github\.sha|github\.ref/);
  });

  it('installs that package spec into its own folder and fails when it is not goods-contract-harness', () => {
    assert.ok(install?.run, 'a step installs the harness');
    assert.equal(install.env?.['HARNESS_PACKAGE'], '${{ inputs.harness-package }}');
    assert.match(install.run, /npm install [^\n]*"\$HARNESS_PACKAGE"/);
    assert.match(install.run, /node_modules\/goods-contract-harness\/package\.json[^\n]*\n[^\n]*::error::/);
    assert.match(install.run, /exit [12]/);
  });

  it('runs the installed suite with the inputs, the token from the environment, JUnit and HTML reports', () => {
    assert.ok(suite?.run, 'a step runs goods-conformance');
    assert.equal(suite.env?.['CONFORMANCE_TOKEN'], '${{ secrets.token }}');
    assert.equal(
      suite.env?.['HARNESS_DIR'],
      install?.env?.['HARNESS_DIR'],
      'the suite runs from the folder the harness was installed into',
    );
    assert.match(suite.run, /"\$HARNESS_DIR\/node_modules\/\.bin\/goods-conformance"/);
    for (const option of [
      '--base-url "$BASE_URL"',
      '--order-number "$ORDER_NUMBER"',
      '--level "$LEVEL"',
      '--reporter junit,html',
      '--output reports',
    ]) {
      assert.ok(suite.run.includes(option), option);
    }
    assert.ok(!/continue-on-error|\|\| true/.test(JSON.stringify(suite)), 'a failing run fails the job');
    assert.ok(install && steps.indexOf(suite) > steps.indexOf(install), 'the suite runs after the install');
  });

  it('pastes no expression into a script (inputs reach the shell only through env)', () => {
    for (const step of steps) assert.doesNotMatch(step.run ?? '', /\$\{\{/, step.name ?? '');
  });

  it('uploads the JUnit and HTML reports even when the suite failed', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    assert.ok(upload);
    assert.equal(upload.if, 'always()');
    const path = String(upload.with?.['path']);
    assert.match(path, /reports\/junit\.xml/);
    assert.match(path, /reports\/conformance\.html/);
  });
});
