import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_JSON_PATH, CONTRACT_YAML_PATH } from '../contract/paths.js';
import { TYPES_PATH } from './generated-paths.js';
import { COVERAGE_DOC_PATH, findDrift, renderArtifacts } from './render-artifacts.js';

describe('generated artifacts (scripts/render-artifacts.ts)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'render-artifacts-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('the committed contract/generated files and the coverage table of docs/conformance.md equal their rendering', async () => {
    const artifacts = await renderArtifacts();
    assert.deepEqual([...artifacts.keys()].sort(), [CONTRACT_JSON_PATH, TYPES_PATH, COVERAGE_DOC_PATH].sort());
    const drift = findDrift(artifacts);
    assert.deepEqual(
      drift.map((d) => d.message),
      [],
      'the generated files are stale: run `npm run generate` and commit the result',
    );
  });

  it('detects a changed contract: a copy with one more member renders different artifacts', async () => {
    const yaml = readFileSync(CONTRACT_YAML_PATH, 'utf8');
    const marker = '    Container:\n      type: object\n';
    assert.ok(yaml.includes(marker), 'the Container schema is where the test expects it');
    const changed = yaml.replace(marker, `${marker}      properties:\n        containerNumber:\n          type: string\n`);
    const copy = join(dir, 'openapi.yaml');
    writeFileSync(copy, changed);
    const drift = findDrift(await renderArtifacts(copy));
    assert.deepEqual(drift.map((d) => d.name).sort(), ['contract/generated/openapi.json', 'contract/generated/types.ts']);
    // The coverage table comes from the check list, not from this copy: it does not drift.
    assert.ok(!drift.some((d) => d.name === 'docs/conformance.md'));
    for (const stale of drift) assert.match(stale.message, /run `npm run generate`/);
  });

  it('reports a missing or hand-edited artifact file', async () => {
    const artifacts = await renderArtifacts();
    const edited = (path: string): string | undefined => (path === TYPES_PATH ? `${artifacts.get(path) ?? ''}// edited\n` : undefined);
    const drift = findDrift(artifacts, edited);
    assert.deepEqual(drift.map((d) => d.name).sort(), [
      'contract/generated/openapi.json',
      'contract/generated/types.ts',
      'docs/conformance.md',
    ]);
    const exact = findDrift(artifacts, (path) => artifacts.get(path));
    assert.deepEqual(exact, []);
  });
});
