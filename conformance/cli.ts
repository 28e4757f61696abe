#!/usr/bin/env node
/**
 * `goods-conformance` / `npm run conformance -- ...`: argv → config → runConformance → exit code.
 * 0: every check of the level passed; 1: a check failed; 2: the run could not start (one line:
 * the reason and the fix).
 */
import { parseConformanceArgs, USAGE } from './args.js';
import { describeChecks } from './coverage.js';
import { runConformance } from './run.js';
import { StartError } from './start-error.js';

async function main(): Promise<number> {
  try {
    const parsed = parseConformanceArgs(process.argv.slice(2), process.env);
    if (parsed.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (parsed.config.listChecks) {
      process.stdout.write(describeChecks(parsed.config.level));
      return 0;
    }
    const result = await runConformance(parsed.config, { color: process.stdout.isTTY });
    return result.exitCode;
  } catch (error) {
    if (error instanceof StartError) {
      process.stderr.write(`goods-conformance: ${error.reason}; ${error.fix}\n`);
      return 2;
    }
    process.stderr.write(
      `goods-conformance: the run could not start: ${error instanceof Error ? error.message : String(error)}; report this with the command line used\n`,
    );
    return 2;
  }
}

// Output piped into a command that stops reading (e.g. `| head`) must not crash the run.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`goods-conformance: internal error (unhandled rejection): ${String(reason)}\n`);
  process.exitCode = 2;
});

void main().then((code) => {
  process.exitCode = code;
  // A server that keeps a connection open must not keep the process alive.
  setTimeout(() => process.exit(code), 1000).unref();
});
