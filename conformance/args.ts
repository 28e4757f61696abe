/**
 * argv → ConformanceConfig. Pure: argv and the environment are arguments, nothing is read from the
 * process. Every problem is a StartError naming the option and the fix.
 */
import { parseArgs } from 'node:util';
import { isLevel } from '../contract/levels.js';
import { REPORTERS, resolveConformanceConfig, type ConformanceConfig, type ReporterName } from './config.js';
import { StartError } from './start-error.js';

export const USAGE = `usage: goods-conformance [--base-url URL] [--token TOKEN] [--order-number NUMBER] [--level spec|strict]
                         [--rejected-token TOKEN] [--unknown-order-number NUMBER] [--read-only]
                         [--max-writes N] [--timeout MS] [--seed N] [--reporter spec|json|junit|html]
                         [--output DIR] [--deadline MS] [--list-checks]
--reporter takes one name or a comma-separated list (e.g. junit,html): one report file each, in --output.
The token may also come from the environment variable CONFORMANCE_TOKEN.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  token: { type: 'string' },
  'order-number': { type: 'string' },
  level: { type: 'string' },
  'rejected-token': { type: 'string' },
  'unknown-order-number': { type: 'string' },
  'read-only': { type: 'boolean' },
  'max-writes': { type: 'string' },
  timeout: { type: 'string' },
  seed: { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  deadline: { type: 'string' },
  'list-checks': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `help: true` when --help was asked for (the CLI prints USAGE and exits 0). */
export type ParsedArgs = { help: true } | { help: false; config: ConformanceConfig };

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw new StartError(`--${name} must be an integer ≥ ${min}, got "${text}"`, `pass e.g. --${name} ${Math.max(min, 1)}`);
  }
  return Number(text);
}

function nonEmpty(name: string, text: string | undefined): string | undefined {
  if (text !== undefined && text.length === 0) throw new StartError(`--${name} is empty`, `pass a value: --${name} VALUE`);
  return text;
}

export function parseConformanceArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ParsedArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new StartError(`bad arguments: ${(error as Error).message}`, 'see --help for the options');
  }
  if (values['help'] === true) return { help: true };
  const str = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };

  const baseUrlText = nonEmpty('base-url', str('base-url'));
  let baseUrl: string | undefined;
  if (baseUrlText !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrlText);
    } catch {
      throw new StartError(`--base-url "${baseUrlText}" is not a URL`, 'pass e.g. --base-url http://127.0.0.1:8080');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new StartError(`--base-url must be http or https, got "${url.protocol}"`, 'pass e.g. --base-url http://127.0.0.1:8080');
    }
    baseUrl = baseUrlText.replace(/\/+$/, '');
  }

  const token = nonEmpty('token', str('token')) ?? (env['CONFORMANCE_TOKEN'] || undefined);
  const listing = values['list-checks'] === true;
  if (baseUrl !== undefined && token === undefined && !listing) {
    throw new StartError('no token for the server under test', 'pass --token TOKEN or set CONFORMANCE_TOKEN');
  }
  if (baseUrl !== undefined && str('order-number') === undefined && !listing) {
    throw new StartError('no order number for the server under test', 'pass --order-number NUMBER (an existing order with lots)');
  }

  const level = str('level');
  if (level !== undefined && !isLevel(level)) {
    throw new StartError(`--level must be spec or strict, got "${level}"`, 'pass --level spec or --level strict');
  }
  const reporterText = str('reporter');
  const reporters = reporterText?.split(',').map((name) => name.trim());
  for (const reporter of reporters ?? []) {
    if (!(REPORTERS as readonly string[]).includes(reporter)) {
      throw new StartError(
        `--reporter must be one of ${REPORTERS.join(', ')} (or a comma-separated list), got "${reporter}"`,
        'pass e.g. --reporter junit',
      );
    }
  }
  const rejectedToken = nonEmpty('rejected-token', str('rejected-token'));

  const config = resolveConformanceConfig({
    baseUrl,
    token,
    rejectedToken,
    orderNumber: nonEmpty('order-number', str('order-number')),
    unknownOrderNumber: nonEmpty('unknown-order-number', str('unknown-order-number')),
    level: level,
    readOnly: values['read-only'] === true ? true : undefined,
    maxWrites: integer('max-writes', str('max-writes'), 0),
    timeoutMs: integer('timeout', str('timeout'), 1),
    seed: integer('seed', str('seed'), 0),
    reporters: reporters as ReporterName[] | undefined,
    outputDir: nonEmpty('output', str('output')),
    deadlineMs: integer('deadline', str('deadline'), 1),
    listChecks: values['list-checks'] === true ? true : undefined,
  });
  if (config.rejectedToken === config.token) {
    throw new StartError('--rejected-token equals the token', 'pass a token the server refuses, e.g. --rejected-token invalid');
  }
  if (config.unknownOrderNumber === config.orderNumber) {
    throw new StartError('--unknown-order-number equals --order-number', 'pass an order number that no order has');
  }
  return { help: false, config };
}
