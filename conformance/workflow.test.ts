/**
 * The reusable CI workflow for backend teams (.github/workflows/conformance.yml), read as data. Its
 * shell steps are also run for real against the installed package by test/package/install.test.ts.
 */
import assert from 'node:assert/strict';
import { readWorkflow, runStepScript } from '../test/support/workflow.js';

const { workflow, steps } = readWorkflow('conformance.yml');
const install = steps.find((s) => s.env?.['HARNESS_PACKAGE'] !== undefined);
const suite = steps.find((s) => s.run?.includes('goods-conformance'));
const contractCheckout = steps.find((s) => s.uses?.startsWith('actions/checkout@') && s.with?.['sparse-checkout'] !== undefined);

describe('conformance workflow (.github/workflows/conformance.yml)', () => {
  it('is reusable (workflow_call) with inputs base-url, order-number, level and the token as a secret', () => {
    const { inputs, secrets = {} } = workflow.on.workflow_call;
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
    // Inside a reusable workflow github.repository is the caller: the one checkout is the caller's contract
    // file (data, never run), and only when the contract input names one.
    for (const checkout of steps.filter((s) => s.uses?.startsWith('actions/checkout@'))) {
      assert.equal(checkout, contractCheckout, 'no checkout but the contract file');
    }
    assert.doesNotMatch(JSON.stringify(workflow), /github\.repository|github\.sha|github\.ref/);
  });

  it('contract (optional, empty by default = the bundled contract): only that file of the caller is checked out, passed as --contract', () => {
    const input = workflow.on.workflow_call.inputs['contract'];
    assert.deepEqual(
      { required: input?.required, type: input?.type, default: input?.default },
      { required: false, type: 'string', default: '' },
    );
    assert.ok(contractCheckout, 'a step checks out the contract file');
    assert.equal(contractCheckout.if, "inputs.contract != ''", 'nothing is checked out without a contract input');
    assert.deepEqual(contractCheckout.with, {
      path: 'caller-contract',
      'sparse-checkout': '${{ inputs.contract }}',
      'sparse-checkout-cone-mode': false,
      'persist-credentials': false,
    });
    assert.ok(suite?.run && steps.indexOf(contractCheckout) < steps.indexOf(suite), 'checked out before the suite runs');
    assert.equal(suite.env?.['CONTRACT'], '${{ inputs.contract }}');
    assert.ok(suite.run.includes('if [ -n "$CONTRACT" ]; then extra+=(--contract "caller-contract/$CONTRACT"); fi'), suite.run);
    assert.ok(suite.run.includes('"${extra[@]}"'), 'the extra options reach the command');
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

  it("the suite step's script, run by bash: --contract caller-contract/<input> only when the input is given (spaces kept)", () => {
    assert.ok(suite?.run);
    // A stand-in for the installed bin prints each argument on a line of its own.
    const argsWith = (contract: string): string[] => {
      const env = { BASE_URL: 'http://h', ORDER_NUMBER: 'A', LEVEL: 'spec', READ_ONLY: 'false', CONTRACT: contract };
      const run = runStepScript(suite.run ?? '', env);
      assert.equal(run.status, 0, run.stderr);
      return run.args;
    };
    assert.ok(!argsWith('').includes('--contract'));
    const args = argsWith('api specs/openapi.yaml');
    assert.deepEqual(args.slice(args.indexOf('--contract'), args.indexOf('--contract') + 2), [
      '--contract',
      'caller-contract/api specs/openapi.yaml',
    ]);
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
