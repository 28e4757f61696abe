/**
 * The reusable compatibility workflow (.github/workflows/compat.yml), read as data and its script run
 * by bash against a stand-in of the installed bin; and the example caller of docs/compat.md, linted by
 * action-validator, running it only on pull requests that change the contract.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { runToExit } from '../../support/processes.js';
import { readWorkflow, runStepScript, type StepRun } from '../../test/support/workflow.js';

interface Caller {
  on: { pull_request: { paths: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { uses: string; with: Record<string, unknown> }>;
}

const { workflow, steps } = readWorkflow('compat.yml');
const checkouts = steps.filter((s) => s.uses?.startsWith('actions/checkout@'));
const compare = steps.find((s) => s.run?.includes('goods-conformance'));
const install = steps.find((s) => s.env?.['HARNESS_PACKAGE'] !== undefined);

/** Runs the compare step's script with a stand-in bin that prints its arguments, writes compat.md and exits `exit`. */
function runCompare(env: Record<string, string>, exit: number): StepRun {
  return runStepScript(compare?.run ?? '', env, `mkdir -p reports\necho '## the report' > reports/compat.md\nexit ${exit}\n`);
}

const INPUTS = { CONTRACT: 'api specs/openapi.yaml', FAIL_ON: 'clients', LEVEL: 'strict', PROVE: 'true', FIXTURES: '' };

describe('compat workflow (.github/workflows/compat.yml)', () => {
  it('is reusable: harness-package and contract required (no default), fail-on clients, level strict, prove on by default', () => {
    const { inputs } = workflow.on.workflow_call;
    assert.deepEqual(
      Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, [input.required, input.type, input.default]])),
      {
        'harness-package': [true, 'string', undefined],
        contract: [true, 'string', undefined],
        'base-ref': [false, 'string', ''],
        'fail-on': [false, 'string', 'clients'],
        level: [false, 'string', 'strict'],
        prove: [false, 'boolean', true],
        fixtures: [false, 'string', ''],
      },
    );
    assert.deepEqual(workflow.permissions, { contents: 'read' });
    assert.match(install?.run ?? '', /npm install [^\n]*"\$HARNESS_PACKAGE"/);
  });

  it('checks out only the contract at the base and at the pull request (and the fixtures), as data, without credentials', () => {
    assert.equal(checkouts.length, 2);
    const [old, next] = checkouts;
    assert.deepEqual(old?.with, {
      ref: '${{ inputs.base-ref || github.event.pull_request.base.sha }}',
      path: 'old',
      'sparse-checkout': '${{ inputs.contract }}',
      'sparse-checkout-cone-mode': false,
      'persist-credentials': false,
    });
    assert.deepEqual(next?.with, {
      path: 'new',
      'sparse-checkout': '${{ inputs.contract }}\n${{ inputs.fixtures }}\n',
      'sparse-checkout-cone-mode': false,
      'persist-credentials': false,
    });
    assert.ok(
      compare && steps.indexOf(compare) > steps.indexOf(next ?? compare) && steps.indexOf(compare) > steps.indexOf(install ?? compare),
    );
  });

  it('compares old/<contract> with new/<contract>, proves, writes both reports; the summary gets compat.md; the exit code is the tool’s', () => {
    const passed = runCompare(INPUTS, 0);
    assert.equal(passed.status, 0);
    assert.deepEqual(passed.args, [
      'compat',
      'old/api specs/openapi.yaml',
      'new/api specs/openapi.yaml',
      '--fail-on',
      'clients',
      '--level',
      'strict',
      '--reporter',
      'json,markdown',
      '--output',
      'reports',
      '--prove',
    ]);
    assert.equal(passed.summary, '## the report\n');
    const breaking = runCompare({ ...INPUTS, PROVE: 'false', FIXTURES: 'mock orders', FAIL_ON: 'any' }, 1);
    assert.equal(breaking.status, 1, 'a breaking change fails the job');
    assert.equal(breaking.summary, '## the report\n', 'the report is on the summary page even then');
    assert.ok(!breaking.args.includes('--prove'));
    assert.deepEqual(breaking.args.slice(breaking.args.indexOf('--fixtures')), ['--fixtures', 'new/mock orders']);
    assert.equal(runCompare(INPUTS, 2).status, 2);
  });

  it('uploads compat.json and compat.md even when the job fails; no expression is pasted into a script', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    assert.equal(upload?.if, 'always()');
    assert.equal(upload?.with?.['path'], 'reports/compat.json\nreports/compat.md\n');
    for (const step of steps) assert.doesNotMatch(step.run ?? '', /\$\{\{/, step.name ?? '');
  });

  it("docs/compat.md's example caller passes the workflow linter and runs it only on pull requests that change the contract", async () => {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'compat.md'), 'utf8');
    const text = /<!-- compat-caller:start -->\s*```yaml\n([\s\S]*?)```\s*<!-- compat-caller:end -->/.exec(doc)?.[1];
    assert.ok(text, 'docs/compat.md has the example caller');
    const caller = parse(text) as Caller;
    const job = caller.jobs['compat'];
    assert.ok(job);
    assert.match(job.uses, /\/\.github\/workflows\/compat\.yml@v\d/);
    assert.deepEqual(caller.on.pull_request.paths, [job.with['contract']], 'the paths filter is the contract input');
    const inputs = workflow.on.workflow_call.inputs;
    for (const key of Object.keys(job.with)) assert.ok(key in inputs, `${key} is an input`);
    for (const [name, input] of Object.entries(inputs)) if (input.required === true) assert.ok(name in job.with, `${name} given`);
    const dir = mkdtempSync(join(tmpdir(), 'workflow-caller-'));
    try {
      const file = join(dir, 'contract-compat.yml');
      writeFileSync(file, text);
      const lint = await runToExit('action-validator', {
        command: join(PROJECT_ROOT, 'node_modules', '.bin', 'action-validator'),
        args: [file],
      });
      assert.equal(lint.code, 0, lint.output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
