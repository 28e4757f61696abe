#!/usr/bin/env node
/** `goods-mock` / `npm start`: a thin CLI over createMockServer (see `--help`). */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { exampleToken, HELP, parseMockArgs, UsageError } from './cli-args.js';
import { createMockServer } from './server.js';

/** Creates the missing folders of `dir`, one level at a time (a recursive mkdir under /proc never returns on Node 20). */
function makeParents(dir: string): void {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const folder of missing) mkdirSync(folder);
}

async function main(): Promise<void> {
  let command;
  try {
    command = parseMockArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`goods-mock: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  let server;
  try {
    // A state file in a folder that does not exist yet (`--state-file .state/mock.jsonl` on a fresh clone).
    // A folder that cannot be made is left to the state file's own check, which names the file.
    if (command.config.stateFile !== undefined) {
      try {
        makeParents(dirname(command.config.stateFile));
      } catch {
        // reported by createMockServer
      }
    }
    server = await createMockServer(command.config);
  } catch (error) {
    process.stderr.write(`goods-mock: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const first = server.orderNumbers[0] ?? 'ORD-2026-0001';
  process.stdout.write(
    [
      `goods-mock listening on ${server.url}`,
      `Fixture orders: ${server.orderNumbers.join(', ')}`,
      `Try: curl -H 'Authorization: Bearer ${exampleToken(command.config)}' ${server.url}/manualProduction/rest/v1/orders/info/${encodeURIComponent(first)}`,
      `State: ${server.url}/__mock/lot-transfers, ${server.url}/__mock/test-samples; dashboard ${server.url}/__mock/`,
      '',
    ].join('\n'),
  );
  const stop = (signal: string) => {
    process.stderr.write(`goods-mock: ${signal}, stopping\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`goods-mock: error while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`goods-mock: ${(error as Error).message}\n`);
  process.exit(1);
});
