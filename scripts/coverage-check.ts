/**
 * CLI: the per-folder coverage gate of `npm test` (see `coverage-thresholds.ts`, docs/coverage.md).
 *
 *     tsx scripts/coverage-check.ts [--summary coverage/coverage-summary.json] [--thresholds scripts/coverage-thresholds.json]
 *
 * Prints each folder's measured coverage against its thresholds; exit 0 when every folder holds, 1
 * when one is below (each named), 2 on bad input (a file missing or not what it should be, a bad option).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { argvFault, argvFaultText } from '../util/argv.js';
import { PROJECT_ROOT } from '../contract/paths.js';
import { checkCoverage, CoverageInputError, type CoverageCheckConfig } from './coverage-thresholds.js';

const OPTIONS = {
  summary: { type: 'string', default: 'coverage/coverage-summary.json' },
  thresholds: { type: 'string', default: 'scripts/coverage-thresholds.json' },
} as const;

function configOf(args: string[]): CoverageCheckConfig {
  const { values } = parseArgs({ args, options: OPTIONS, strict: true });
  return { summaryPath: resolve(values.summary), thresholdsPath: resolve(values.thresholds), root: PROJECT_ROOT };
}

function main(args: string[]): number {
  let config: CoverageCheckConfig;
  try {
    config = configOf(args);
  } catch (error) {
    const fault = argvFault(error, args, OPTIONS);
    if (!fault) throw error;
    console.error(`coverage-check: ${argvFaultText(fault)}; options: --summary FILE, --thresholds FILE`);
    return 2;
  }
  try {
    const { text, failures } = checkCoverage(config);
    console.log(text);
    for (const failure of failures) console.error(`coverage below threshold: ${failure}`);
    return failures.length === 0 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof CoverageInputError)) throw error;
    console.error(`coverage-check: ${error.message}`);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
