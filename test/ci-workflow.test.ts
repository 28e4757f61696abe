/** The CI workflow keeps its properties: triggers, permissions, Node versions, step order, each step once (parsed, so it cannot silently rot). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import { PROJECT_ROOT } from '../contract/paths.js';

const WORKFLOW = join(PROJECT_ROOT, '.github', 'workflows', 'ci.yml');

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

function objectAt(value: JsonValue | undefined, what: string): JsonObject {
  assert.ok(isObject(value), `${what} is an object`);
  return value;
}

describe('CI workflow (.github/workflows/ci.yml)', () => {
  const workflow = objectAt(parse(readFileSync(WORKFLOW, 'utf8')) as JsonValue, 'the workflow');
  const jobs = Object.values(objectAt(workflow['jobs'], 'jobs')).map((job, i) => objectAt(job, `job ${i}`));
  const steps = jobs.flatMap((job) => (Array.isArray(job['steps']) ? job['steps'] : [])).map((step, i) => objectAt(step, `step ${i}`));
  const runs = steps.map((step) => text(step['run']));
  const indexOfRun = (command: string): number => runs.findIndex((run) => run.split(/\s*&&\s*|\n/).includes(command));

  it('runs on push and pull_request', () => {
    // YAML 1.1 readers turn a bare `on` key into true; the `yaml` package (YAML 1.2) keeps "on".
    const on = objectAt(workflow['on'], 'on');
    assert.ok('push' in on && 'pull_request' in on);
  });

  it('has read-only permissions', () => {
    assert.deepEqual(workflow['permissions'], { contents: 'read' });
  });

  it('cancels superseded runs of the same ref', () => {
    const concurrency = objectAt(workflow['concurrency'], 'concurrency');
    assert.equal(concurrency['cancel-in-progress'], true);
    assert.match(text(concurrency['group']), /github\.ref/);
  });

  it('tests on Node 20, 22 and 24', () => {
    assert.equal(jobs.length, 1);
    const matrix = objectAt(objectAt(jobs[0]?.['strategy'], 'strategy')['matrix'], 'matrix');
    assert.deepEqual(matrix['node'], ['20', '22', '24']);
    const setup = steps.find((step) => text(step['uses']).startsWith('actions/setup-node@'));
    const options = objectAt(setup?.['with'], 'setup-node with');
    assert.equal(options['node-version'], '${{ matrix.node }}');
    assert.equal(options['cache'], 'npm');
  });

  it('checks out, then npm ci, the prerequisite check (as root: it installs) and test in that order', () => {
    assert.ok(text(steps[0]?.['uses']).startsWith('actions/checkout@'), 'the first step checks out');
    const order = ['npm ci', 'sudo "$(command -v node)" scripts/prerequisites.mjs', 'npm test'].map((command) => {
      const index = indexOfRun(command);
      assert.ok(index >= 0, `a step runs "${command}"`);
      return index;
    });
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      'the steps run in this order',
    );
    assert.deepEqual(
      runs.filter((run) => /apt-get|chromium|redis|junitparser/.test(run)),
      [],
      'the workflow installs nothing by its own list: the system packages are those of scripts/prerequisites.json',
    );
  });

  it('runs the long seed check (left out of npm test) after npm test, on one Node version', () => {
    const index = indexOfRun('npm run check:seeds');
    assert.ok(index > indexOfRun('npm test'), 'a step runs "npm run check:seeds" after npm test');
    assert.match(text(steps[index]?.['if']), /matrix\.node == '20'/);
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.match(pkg.scripts['check:seeds'] ?? '', /seed-table\.check\.ts/);
  });

  it('runs each step once: lint and the type check only through npm test, which runs them', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const test = pkg.scripts['test'] ?? '';
    for (const script of ['lint', 'check:generated', 'lint:contract'])
      assert.ok(test.includes(`npm run ${script}`), `npm test runs ${script}`);
    // npm run lint type-checks the whole project (one program for the type check and ESLint's typed rules).
    assert.match(pkg.scripts['lint'] ?? '', /scripts\/lint-and-types\.ts/);
    // The build: when a source changed since the last one (npm ci's prepare has just built).
    assert.ok(test.includes('node scripts/build-if-stale.mjs'), 'npm test builds what changed');
    for (const command of ['npm run lint', 'npm run typecheck', 'npm run build', 'npm run check:generated'])
      assert.equal(indexOfRun(command), -1, `the workflow does not run "${command}" again`);
    const counts = new Map<string, number>();
    for (const run of runs) if (run !== '') counts.set(run, (counts.get(run) ?? 0) + 1);
    for (const [run, times] of counts) assert.equal(times, 1, `"${run}" runs once`);
  });
});
