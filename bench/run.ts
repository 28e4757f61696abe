/**
 * `npm run bench`, the thin CLI over `runBench`: prints the table, writes `reports/bench.json`; Ctrl-C stops every server
 * first. Exit 0: it ran (targets met or not); 1: a measurement failed or a server answered wrongly; 2: bad options.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stopAll } from '../support/processes.js';
import { runBench } from './harness.js';
import { HELP, parseBenchArgs, UsageError } from './options.js';
import { previousRatios, reportJson } from './report.js';
import { formatReport } from './table.js';

async function main(): Promise<number> {
  let args;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\nRun "npm run bench -- --help" for the options.\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\nbench: ${signal}: stopping every server it started ...\n`);
    void stopAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const s = args.settings;
  const loadSeconds = (s.servers.length * 3 * s.rounds * (s.warmupMs + s.durationMs)) / 1000;
  process.stderr.write(`bench: ~${Math.round(loadSeconds)} s of load, then start-up, conformance, self-test and record measurements\n`);
  const report = await runBench(s, (line) => process.stderr.write(`bench: ${line}\n`));
  const previous = previousRatios(existsSync(args.output) ? readFileSync(args.output, 'utf8') : undefined);
  mkdirSync(dirname(args.output), { recursive: true });
  writeFileSync(args.output, reportJson(report));
  process.stdout.write(`${formatReport(report, previous)}\nJSON: ${args.output}\n`);
  return report.problems.length > 0 ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench: ${(error instanceof Error ? error.stack : undefined) ?? String(error)}\n`);
  await stopAll();
  process.exitCode = 1;
}
