#!/usr/bin/env node
/** `goods-mock` / `npm start`: a thin CLI over createMockServer (see `--help`). */
import { exampleToken, HELP, parseMockArgs, tryCommand, UsageError } from './cli-args.js';
import { resolveConfig } from './config.js';
import { DEFAULT_OUTPUT_DIR } from './proxy/config.js';
import { createMockServer } from './server.js';
import { describeStore } from './store/describe.js';
import { messageOf } from '../util/errors.js';

/** The upstream URL without userinfo (a password never reaches the terminal). */
function proxyTarget(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
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
    server = await createMockServer(command.config);
  } catch (error) {
    process.stderr.write(`goods-mock: cannot start: ${messageOf(error)}\n`);
    process.exit(1);
  }
  const proxy = command.config.proxy;
  if (proxy) {
    process.stdout.write(
      [
        `goods-mock proxying ${server.url} to ${proxyTarget(proxy.upstream)} (judged at the ${proxy.level} level)`,
        `Violations: ${server.url}/__mock/violations; dashboard ${server.url}/__mock/; reports into ${proxy.outputDir ?? DEFAULT_OUTPUT_DIR} on POST ${server.url}/__mock/report and on stop${proxy.outputDir === undefined ? ' (when an exchange was judged)' : ''}`,
        ...(proxy.recordDir !== undefined ? [`Recording order-info answers that pass the strict judgments into ${proxy.recordDir}`] : []),
        '',
      ].join('\n'),
    );
  } else
    process.stdout.write(
      [
        `goods-mock listening on ${server.url}`,
        `Store: ${describeStore(resolveConfig(command.config))}`,
        ...(server.orderNumbers.length > 0 ? [`Fixture orders: ${server.orderNumbers.join(', ')}`] : []),
        ...(server.exampleRead !== undefined ? [`Try: ${tryCommand(server.url, server.exampleRead, exampleToken(command.config))}`] : []),
        `State: ${server.resources.map((resource) => `${server.url}/__mock/${resource}`).join(', ')}; dashboard ${server.url}/__mock/`,
        '',
      ].join('\n'),
    );
  const stop = (signal: string) => {
    process.stderr.write(`goods-mock: ${signal}, stopping\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`goods-mock: error while stopping: ${messageOf(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`goods-mock: ${messageOf(error)}\n`);
  process.exit(1);
});
