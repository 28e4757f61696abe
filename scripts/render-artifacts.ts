/**
 * Renders the artifacts generated from the contract, without writing anything:
 * - `contract/generated/openapi.json`: the contract as JSON (what the runtime loads, no YAML parse);
 * - `contract/generated/types.ts`: TypeScript types (openapi-typescript);
 * - the coverage table of `docs/conformance.md` (between its coverage markers), from the suite's check list.
 *
 * `scripts/generate.ts` (the CLI) writes or checks them; `render-artifacts.test.ts` checks them too.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { readContract } from '../contract/document.js';
import { CONTRACT_JSON_PATH, CONTRACT_YAML_PATH, PROJECT_ROOT } from '../contract/paths.js';
import { withCoverageTable } from '../conformance/coverage.js';
import { TYPES_PATH } from './generated-paths.js';

/** The page that carries the suite's coverage table (README.md links to it). */
export const COVERAGE_DOC_PATH = `${PROJECT_ROOT}/docs/conformance.md`;

const HEADER = '// Generated from contract/openapi.yaml by `npm run generate`. Do not edit.\n';

/** Output path → the text it must hold, rendered from the YAML contract at `yamlPath`. */
export async function renderArtifacts(yamlPath: string = CONTRACT_YAML_PATH): Promise<Map<string, string>> {
  const document = readContract(yamlPath);
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const ast = await openapiTS(pathToFileURL(yamlPath), { alphabetize: false, exportType: false, defaultNonNullable: false });
  const types = `${HEADER}${astToString(ast)}`;
  const coverageDoc = readIfPresent(COVERAGE_DOC_PATH);
  return new Map([
    [CONTRACT_JSON_PATH, json],
    [TYPES_PATH, types],
    ...(coverageDoc !== undefined ? ([[COVERAGE_DOC_PATH, withCoverageTable(coverageDoc)]] as const) : []),
  ]);
}

/** The text of a file, or undefined when it cannot be read. */
export function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** One artifact whose file differs from its rendering. */
export interface Drift {
  path: string;
  /** The path relative to the project root, for messages. */
  name: string;
  message: string;
}

/** Compares rendered artifacts with the files on disk (or with `read`), listing every stale one. */
export function findDrift(artifacts: Map<string, string>, read: (path: string) => string | undefined = readIfPresent): Drift[] {
  const drift: Drift[] = [];
  for (const [path, text] of artifacts) {
    if (read(path) === text) continue;
    const name = relative(PROJECT_ROOT, path);
    drift.push({
      path,
      name,
      message: `${name} is out of date with contract/openapi.yaml: run \`npm run generate\` and commit the result.`,
    });
  }
  return drift;
}
