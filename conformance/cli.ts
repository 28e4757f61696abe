#!/usr/bin/env node
/**
 * `goods-conformance` / `npm run conformance -- ...`: argv → config → runConformance → exit code.
 * 0: every check of the level ran and passed; 1: a check failed; 2: a configuration error (one line on
 * stderr: the reason and the fix, naming the option): the run could not start, or the answers showed it
 * (then after the summary and the reports); 3: nothing failed, but checks were skipped or not run.
 * `goods-conformance compat OLD NEW ...` compares two contracts instead (`compat/main.ts`: exit 0
 * compatible, 1 breaking, 2 could not compare).
 */
import { parseConformanceArgs, HELP } from './args.js';
import { compatMain } from './compat/main.js';
import { checksFor } from './checks/index.js';
import { loadContract } from './contract-option.js';
import { describeChecks } from './coverage.js';
import { configurationLine } from '../report/human.js';
import { runConformance } from './run.js';
import { renderSelfTest, runSelfTest, selfTestExitCode } from './self-test/run.js';
import { createRedactor, redactorFor, sanitizeText, type Redactor } from './secrets.js';
import { StartError } from './start-error.js';

// Until the options are read, only URL userinfo is known to hide; then every credential of the run.
let redactor: Redactor = createRedactor([]);
const shown = (text: string): string => sanitizeText(text, redactor);

async function main(): Promise<number> {
  // `goods-conformance compat OLD NEW ...`: the compatibility of two contracts (conformance/compat/).
  if (process.argv[2] === 'compat') {
    return compatMain(process.argv.slice(3), {
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
    });
  }
  try {
    const parsed = parseConformanceArgs(process.argv.slice(2), process.env);
    if (parsed.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    redactor = redactorFor(parsed.config);
    if (parsed.config.listChecks || parsed.config.selfTest) {
      const contract = loadContract(parsed.config.contractPath);
      if (parsed.config.listChecks) {
        process.stdout.write(describeChecks(parsed.config.level, checksFor(contract.document)));
        return 0;
      }
      const result = await runSelfTest(contract.document, { seed: parsed.config.seed });
      process.stdout.write(renderSelfTest(result, `${contract.judged.path} (sha256 ${contract.judged.sha256.slice(0, 12)})`));
      return selfTestExitCode(result);
    }
    const color = process.stdout.isTTY && (process.env['NO_COLOR'] ?? '') === '';
    const result = await runConformance(parsed.config, { color });
    const configuration = result.verdict.configuration;
    if (configuration) process.stderr.write(`goods-conformance: ${shown(configurationLine(configuration))}\n`);
    return result.exitCode;
  } catch (error) {
    if (error instanceof StartError) {
      process.stderr.write(`goods-conformance: ${shown(error.reason)}; ${shown(error.fix)}\n`);
      return 2;
    }
    process.stderr.write(
      `goods-conformance: the run could not start: ${shown(error instanceof Error ? error.message : String(error))}; report this with the command line used\n`,
    );
    return 2;
  }
}

// Output piped into a command that stops reading (e.g. `| head`) must not crash the run.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`goods-conformance: internal error (unhandled rejection): ${shown(String(reason))}\n`);
  process.exitCode = 2;
});

void main().then((code) => {
  process.exitCode = code;
  // A server that keeps a connection open must not keep the process alive.
  setTimeout(() => process.exit(code), 1000).unref();
});
