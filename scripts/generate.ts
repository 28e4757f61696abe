/**
 * Derives the generated artifacts from `contract/openapi.yaml`:
 * - `contract/generated/openapi.json`: the contract as JSON (what the runtime loads, no YAML parse);
 * - `contract/generated/types.ts`: TypeScript types (openapi-typescript).
 *
 * `tsx scripts/generate.ts` writes them; `--check` only compares and exits 1 on drift, naming the
 * file and the command that fixes it (run by `npm test`).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { readContract } from '../contract/document.js';
import { CONTRACT_JSON_PATH, CONTRACT_YAML_PATH, PROJECT_ROOT } from '../contract/paths.js';
import { TYPES_PATH } from './generated-paths.js';

const HEADER = '// Generated from contract/openapi.yaml by `npm run generate`. Do not edit.\n';

export async function renderArtifacts(): Promise<Map<string, string>> {
  const document = readContract(CONTRACT_YAML_PATH);
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const ast = await openapiTS(pathToFileURL(CONTRACT_YAML_PATH), { alphabetize: false, exportType: false });
  const types = `${HEADER}${astToString(ast)}`;
  return new Map([
    [CONTRACT_JSON_PATH, json],
    [TYPES_PATH, types],
  ]);
}

function current(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function main(check: boolean): Promise<number> {
  const artifacts = await renderArtifacts();
  let drift = 0;
  for (const [path, text] of artifacts) {
    const name = relative(PROJECT_ROOT, path);
    if (current(path) === text) continue;
    if (check) {
      drift++;
      console.error(`${name} is out of date with contract/openapi.yaml: run \`npm run generate\` and commit the result.`);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      console.log(`wrote ${name}`);
    }
  }
  if (check && drift === 0) console.log(`generated artifacts are up to date (${artifacts.size} files)`);
  return drift === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.includes('--check'));
