/**
 * `runCompat(config)`: the core of `goods-conformance compat`. Reads both contracts with the suite's
 * loader (a contract that cannot be read or judged is a StartError: exit 2), compares them, proves the
 * verdict when asked (`proof.ts`), concludes (`model.ts`) and writes the report files asked for.
 */
import { checkSuitePeers } from '../peers.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractProblem } from '../../contract/soundness.js';
import { loadContract, type RunContract } from '../contract-option.js';
import { StartError } from '../start-error.js';
import type { CompatConfig, CompatReporter } from './args.js';
import { diffContracts } from './diff.js';
import { renderMarkdown } from './markdown.js';
import { conclude, type CompatReport } from './model.js';
import { prove } from './proof.js';

/** The file each reporter writes, and its renderer (a pure function of the report). */
export const COMPAT_FILES: Record<CompatReporter, { file: string; render: (report: CompatReport) => string }> = {
  json: { file: 'compat.json', render: (report) => `${JSON.stringify(report, null, 2)}\n` },
  markdown: { file: 'compat.md', render: renderMarkdown },
};

function load(which: 'OLD' | 'NEW', path: string): RunContract {
  try {
    return loadContract(path);
  } catch (error) {
    if (error instanceof StartError)
      throw new StartError(
        `the ${which} contract: ${error.reason}`,
        error.cause instanceof ContractProblem
          ? `correct the ${which} contract there`
          : `pass a readable OpenAPI 3.1 contract (.yaml or .json) as ${which}`,
        { cause: error.cause },
      );
    throw error;
  }
}

export interface CompatResult {
  report: CompatReport;
  /** Report files written. */
  files: string[];
}

export async function runCompat(config: CompatConfig): Promise<CompatResult> {
  const old = load('OLD', config.oldPath);
  const next = load('NEW', config.newPath);
  let changes = diffContracts(old.document, next.document);
  const base = { old: old.judged, new: next.judged, level: config.level, failOn: config.failOn };
  let report: CompatReport;
  if (config.prove) {
    // The proof runs each side's suite: its runner must be installed.
    checkSuitePeers();
    const proven = await prove(
      { document: old.document, path: config.oldPath },
      { document: next.document, path: config.newPath },
      changes,
      {
        level: config.level,
        seed: config.seed,
        timeoutMs: config.timeoutMs,
        ...(config.fixturesDir !== undefined ? { fixturesDir: config.fixturesDir } : {}),
      },
    );
    changes = proven.changes;
    report = conclude({ ...base, changes, proof: proven.proof });
  } else {
    report = conclude({ ...base, changes });
  }
  const files: string[] = [];
  for (const name of config.reporters) {
    mkdirSync(config.outputDir, { recursive: true });
    const file = join(config.outputDir, COMPAT_FILES[name].file);
    writeFileSync(file, COMPAT_FILES[name].render(report));
    files.push(file);
  }
  return { report, files };
}
