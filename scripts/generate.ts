/**
 * CLI: derives the generated artifacts from `contract/openapi.yaml` (see `render-artifacts.ts`).
 *
 * `tsx scripts/generate.ts` writes them; `--check` only compares and exits 1 on drift, naming the
 * file and the command that fixes it (run by `npm test`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { findDrift, renderArtifacts } from './render-artifacts.js';

async function main(check: boolean): Promise<number> {
  const artifacts = await renderArtifacts();
  const drift = findDrift(artifacts);
  if (check) {
    for (const stale of drift) console.error(stale.message);
    if (drift.length === 0) console.log(`generated artifacts are up to date (${artifacts.size} files)`);
    return drift.length === 0 ? 0 : 1;
  }
  for (const stale of drift) {
    mkdirSync(dirname(stale.path), { recursive: true });
    writeFileSync(stale.path, artifacts.get(stale.path) ?? '');
    console.log(`wrote ${stale.name}`);
  }
  return 0;
}

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
process.exitCode = await main(values.check);
