/**
 * argv → ConformanceConfig. Pure: argv and the environment are arguments, nothing is read from the
 * process. Every problem is a StartError naming the option and the fix.
 */
import { parseArgv, wholeNumber } from '../util/argv.js';
import { isLevel } from '../contract/levels.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_REJECTED_TOKEN,
  MAX_CONCURRENCY,
  MOCK_ORDER_NUMBER,
  MOCK_TOKEN,
  REPORTER_ALIASES,
  REPORTERS,
  reporterNamed,
  resolveConformanceConfig,
  type ConformanceConfig,
} from './config.js';
import { StartError } from './start-error.js';

/** `--help`: every option with its default, the environment variables and the exit codes. */
export const HELP = `Usage: goods-conformance [options]
       goods-conformance compat OLD NEW [options]   compare two contracts (see compat --help)

Checks that a server follows the goods-handling API's specification (level spec) and the project's
profile (level strict). Without --base-url it starts the mock in-process and checks it.

Target:
  --base-url URL                 the server under test, http or https (default: the in-process mock on a
                                 free loopback port); userinfo in the URL is never shown in any output
  --token TOKEN                  a bearer token the server accepts (default: $CONFORMANCE_TOKEN; required
                                 with --base-url; default against the mock: ${MOCK_TOKEN})
  --credential NAME=VALUE        the credential of the contract's security scheme NAME (repeatable): an API
                                 key, user:password for Basic (default: the token; Basic: conformance:TOKEN)
  --order-number NUMBER          an existing order with lots (required with --base-url when the contract
                                 reads an order; default against the mock: ${MOCK_ORDER_NUMBER})
  --rejected-token TOKEN         a token the server must refuse (default: ${DEFAULT_REJECTED_TOKEN})
  --unknown-order-number NUMBER  an order number no order has (default: CONFORMANCE-UNKNOWN <run marker>)
  --contract FILE                OpenAPI 3.1 contract, .yaml or .json, read by the same loader as
                                 goods-mock --contract (default: the bundled contract)
  --ca FILE                      PEM certificates to trust for https:// besides the bundled CAs, e.g.
                                 your company CA (default: none; certificates are always verified)

What runs:
  --level spec|strict            spec: only the specification's facts; strict: plus the profile (default spec)
  --list-checks                  print every check of the level with its rule, level and the cases it
                                 sends, then exit 0 (sends nothing)
  --self-test                    measure the suite's power from the contract (with --contract: that one):
                                 run it against a reference server of the contract (must pass at both
                                 levels) and against one faulty server per keyword of every member of every
                                 request and answer schema and per profile rule (each must fail); prints the
                                 kill rate per operation and in total, the survivors named; exit 0 at 100%,
                                 1 otherwise (loopback only, sends nothing elsewhere)
  --read-only                    send no POST request; the write checks are left out and listed (default off)
  --max-writes N                 most requests meant to create a record (default 100; 0 = none)
  --seed N                       seed of the generated request bodies; the same seed sends the same
                                 requests (default: random, printed at the end)

Time:
  --timeout MS                   time limit of each request from its connection, never shortened (default 5000)
  --deadline MS                  optional bound of the whole run; checks it cuts off are reported as not
                                 run, never as failed (default: none)
  --concurrency N                most requests in flight at once, 1 to ${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY}); 1 sends one
                                 request after another in check order. Lower it for a rate-limited server;
                                 the verdicts do not depend on it

Reports:
  --reporter NAMES               ${REPORTERS.join(', ')}, or a comma-separated list (default console). The
                                 console always gets the human report; json writes conformance.json,
                                 junit junit.xml, html conformance.html (${Object.entries(REPORTER_ALIASES)
                                   .map(([alias, name]) => `${alias}: the former name of ${name}`)
                                   .join('; ')})
  --output DIR                   folder of the report files (default reports)
  -h, --help                     show this help

Environment:
  CONFORMANCE_TOKEN              the token when --token is not given (keeps it off the command line)
  NO_COLOR                       set to anything: no colors on the console (colors only on a terminal)

Every credential (token, rejected token, the Basic credential built from the token, URL userinfo) is
replaced by <redacted> in everything printed or written, in plain, base64 and percent-encoded form;
control characters of answers are shown escaped (\\x1b).

Exit status:
  0  every check of the level ran and passed (checks left out by --read-only are listed)
  1  a check failed
  2  a configuration error, one line naming the option to fix: the run could not start (bad options, a
     contract or --ca file that cannot be read or used, nothing listening, TLS/plain-HTTP mismatch, a
     TLS certificate not trusted), or the answers show it (the main order not found, the token refused
     on it, nothing but 401s, an HTML page instead of the API; the summary still lists the checks)
  3  nothing failed, but checks were skipped or not run for another reason (write budget, an order
     without lots, --deadline, a time-out); the summary names the rules left unchecked`;

/** The first line of --help (kept for messages that point at the options). */
export const USAGE = HELP.split('\n')[0] ?? '';

const OPTIONS = {
  'base-url': { type: 'string' },
  contract: { type: 'string' },
  ca: { type: 'string' },
  token: { type: 'string' },
  credential: { type: 'string', multiple: true },
  'order-number': { type: 'string' },
  level: { type: 'string' },
  'rejected-token': { type: 'string' },
  'unknown-order-number': { type: 'string' },
  'read-only': { type: 'boolean' },
  'max-writes': { type: 'string' },
  timeout: { type: 'string' },
  concurrency: { type: 'string' },
  seed: { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  deadline: { type: 'string' },
  'list-checks': { type: 'boolean' },
  'self-test': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Every option the parser accepts (--help documents each one). */
export const OPTION_NAMES: readonly string[] = Object.keys(OPTIONS);

/**
 * `help: true` when --help was asked for (the CLI prints HELP and exits 0); `config.listChecks` for
 * --list-checks (the CLI prints the checks of `config.level` and exits 0).
 */
export type ParsedArgs = { help: true } | { help: false; config: ConformanceConfig };

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (wholeNumber(text.trim(), min) === undefined) {
    throw new StartError(`--${name} must be an integer ≥ ${min}, got "${text}"`, `pass e.g. --${name} ${Math.max(min, 1)}`);
  }
  return Number(text);
}

function concurrencyOf(text: string | undefined): number | undefined {
  const n = integer('concurrency', text, 1);
  if (n !== undefined && n > MAX_CONCURRENCY)
    throw new StartError(
      `--concurrency must be at most ${MAX_CONCURRENCY}, got "${text ?? ''}"`,
      `pass e.g. --concurrency ${DEFAULT_CONCURRENCY}`,
    );
  return n;
}

function nonEmpty(name: string, text: string | undefined): string | undefined {
  if (text !== undefined && text.length === 0) throw new StartError(`--${name} is empty`, `pass a value: --${name} VALUE`);
  return text;
}

export function parseConformanceArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ParsedArgs {
  const values: Record<string, string | boolean | string[] | undefined> = parseArgv(
    { args: [...argv], options: OPTIONS, strict: true, allowPositionals: false },
    (sentence) => new StartError(`bad arguments: ${sentence}`, 'see --help for the options'),
  ).values;
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
  const selfTest = values['self-test'] === true;
  const listing = values['list-checks'] === true || selfTest;
  if (baseUrl !== undefined && token === undefined && !listing) {
    throw new StartError('no token for the server under test', 'pass --token TOKEN or set CONFORMANCE_TOKEN');
  }
  const credentials: Record<string, string> = {};
  const given = values['credential'];
  for (const text of Array.isArray(given) ? given : []) {
    if (typeof text !== 'string') continue;
    const at = text.indexOf('=');
    if (at <= 0 || at === text.length - 1)
      throw new StartError(
        `--credential must be NAME=VALUE (a security scheme of the contract and its credential), got "${text.slice(0, 40)}"`,
        'pass e.g. --credential apiKeyAuth=KEY or --credential basicAuth=user:password',
      );
    credentials[text.slice(0, at)] = text.slice(at + 1);
  }

  const level = str('level');
  if (level !== undefined && !isLevel(level)) {
    throw new StartError(`--level must be spec or strict, got "${level}"`, 'pass --level spec or --level strict');
  }
  const reporterText = str('reporter');
  const reporters = reporterText?.split(',').map((text) => {
    const name = text.trim();
    const reporter = reporterNamed(name);
    if (reporter === undefined) {
      throw new StartError(
        `--reporter must be one of ${REPORTERS.join(', ')} (or a comma-separated list), got "${name}"`,
        'pass e.g. --reporter junit',
      );
    }
    return reporter;
  });
  const rejectedToken = nonEmpty('rejected-token', str('rejected-token'));

  const config = resolveConformanceConfig({
    baseUrl,
    contractPath: nonEmpty('contract', str('contract')),
    caPath: nonEmpty('ca', str('ca')),
    token,
    ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
    rejectedToken,
    // Against a server, no default: the run refuses to start when the contract reads an order (run.ts).
    orderNumber: nonEmpty('order-number', str('order-number')) ?? (baseUrl !== undefined ? '' : undefined),
    unknownOrderNumber: nonEmpty('unknown-order-number', str('unknown-order-number')),
    level: level,
    readOnly: values['read-only'] === true ? true : undefined,
    maxWrites: integer('max-writes', str('max-writes'), 0),
    timeoutMs: integer('timeout', str('timeout'), 1),
    concurrency: concurrencyOf(str('concurrency')),
    seed: integer('seed', str('seed'), 0),
    reporters,
    outputDir: nonEmpty('output', str('output')),
    deadlineMs: integer('deadline', str('deadline'), 1),
    listChecks: values['list-checks'] === true ? true : undefined,
    selfTest: selfTest ? true : undefined,
  });
  if (config.rejectedToken === config.token) {
    throw new StartError('--rejected-token equals the token', 'pass a token the server refuses, e.g. --rejected-token invalid');
  }
  if (config.unknownOrderNumber === config.orderNumber) {
    throw new StartError('--unknown-order-number equals --order-number', 'pass an order number that no order has');
  }
  return { help: false, config };
}
