/** The reusable CI workflow for backend teams (.github/workflows/conformance.yml). */
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
interface Workflow {
  on: { workflow_call: { inputs: Record<string, { required?: boolean; type: string }>; secrets: Record<string, { required?: boolean }> } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const workflow = parse(readFileSync(join(PROJECT_ROOT, '.github/workflows/conformance.yml'), 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

describe('conformance workflow (.github/workflows/conformance.yml)', () => {
  it('is reusable (workflow_call) with inputs base-url, order-number, level and the token as a secret', () => {
    const { inputs, secrets } = workflow.on.workflow_call;
    assert.equal(inputs['base-url']?.required, true);
    assert.equal(inputs['order-number']?.required, true);
    assert.equal(inputs['level']?.type, 'string');
    assert.equal(secrets['token']?.required, true);
    assert.deepEqual(workflow.permissions, { contents: 'read' });
  });

  it('runs the suite with the inputs, the token from the environment, JUnit and HTML reports', () => {
    const run = steps.find((s) => s.run?.includes('npm run conformance'));
    assert.ok(run, 'a step runs npm run conformance');
    assert.equal(run.env?.['CONFORMANCE_TOKEN'], '${{ secrets.token }}');
    assert.doesNotMatch(run.run ?? '', /\$\{\{/, 'no expression is pasted into the script');
    for (const option of [
      '--base-url "$BASE_URL"',
      '--order-number "$ORDER_NUMBER"',
      '--level "$LEVEL"',
      '--reporter junit,html',
      '--output reports',
    ]) {
      assert.ok(run.run?.includes(option), option);
    }
    assert.ok(!/continue-on-error|\|\| true/.test(JSON.stringify(run)), 'a failing run fails the job');
    assert.ok(steps.indexOf(run) > steps.findIndex((s) => s.run === 'npm ci'));
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
