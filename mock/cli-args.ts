/**
 * The command line of `goods-mock`, parsed into a ServerConfig (node:util parseArgs). A wrong option or
 * value is a UsageError whose message names the option and the fix; the CLI exits 2 with it.
 */
import { parseArgv, wholeNumber } from '../util/argv.js';
import { isLevel } from '../contract/levels.js';
import { DEFAULT_CONFIG, type MockConfig } from './config.js';
import { DEFAULT_PROXY, type ProxyConfig } from './proxy/config.js';
import type { ServerConfig } from './server.js';
import type { ExampleRead } from './app.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export const HELP = `Usage: goods-mock [options]

Stateful mock of the goods-handling API, driven by contract/openapi.yaml.

Options:
  --port N             port to listen on (default 4010, or the PORT environment variable; 0 = any free port)
  --host H             interface to listen on (default 127.0.0.1; 0.0.0.0 exposes the mock to the network)
  --fixtures DIR       folder of fixture orders, *.json (default: the bundled fixtures/orders)
  --contract FILE      OpenAPI 3.1 contract, .yaml or .json (default: the bundled contract)
  --token T            accept only this credential, for every security scheme of the contract: a bearer
                       token, an API key, or user:password for Basic (repeatable; default: any
                       well-formed credential)
  --reject-token T     always answer 401 to this credential (repeatable; default: invalid)
  --latency MS         delay every API answer by MS milliseconds (default 0)
  --cors-origin O      allow this browser origin (repeatable; default: any origin, *, on the API paths;
                       /__mock allows only its own origin and the origins given here)
  --allowed-host NAME  also accept requests whose Host header names NAME (repeatable; default: loopback
                       names, IP addresses and --host; any other Host is answered 421)
  --state-file PATH    keep recorded transfers and samples in this journal across restarts
  --set-aside-invalid FILE  with --state-file or --store: move the stored records the contract refuses
                       (written under another contract version) to FILE and start; without it such
                       records stop the start (exit 1), each named in the log
  --admin-token T      require "Authorization: Bearer T" for POST /__mock/reset
  --max-sessions N     most X-Mock-Session sessions kept besides the default one (default 100)
  --store URL          keep the state on Redis (redis://HOST:PORT/DB, or MOCK_STORE), shared by every
                       replica with the same URL and prefix; excludes --state-file
  --store-prefix P     prefix of the Redis keys (default goods-mock)
  --max-records-per-session N   records one session keeps (default 10000)
  --max-recorded-bytes N        bytes of recorded JSON, all sessions (default 134217728 = 128 MiB)
  --max-body-bytes-in-flight N  bytes of request bodies over 64 KiB held at once, from the first byte
                                until parsed and checked, all connections (default 33554432 = 32 MiB)
  --max-answer-bytes-in-flight N  bytes of answers over 64 KiB held for clients that have not read them
                                (slow readers, dripping faults), all connections; one session at most
                                half (default 100663296 = 96 MiB)
  --max-connections N           open connections (default 1024)
  --quiet              no log line per request
  --proxy URL          validating proxy: forward every API request to URL, answer unchanged, judge each exchange
                       against the contract (violations: log, GET /__mock/violations, dashboard, reports)
  --level L            with --proxy: spec (default; only what the specification says) or strict (plus the profile)
  --record DIR         with --proxy: write every order-info answer that passes the strict judgments to DIR as a
                       fixture file for --fixtures (one file per order number, newest answer wins)
  --output DIR         with --proxy: write the JSON and JUnit reports (proxy-report.json, proxy-junit.xml) into DIR
                       on POST /__mock/report and on every stop (default: into reports, on POST /__mock/report,
                       and on stop only when an exchange was judged)
  --keep N             with --proxy: latest exchanges with violations kept for /__mock/violations (default 50)
  --proxy-timeout MS   with --proxy: wait this long for the upstream's answer, then 504 (default 30000)
  -h, --help           show this help

Exit status: 0 after a clean stop (SIGINT/SIGTERM), 1 when the mock cannot start (invalid fixture,
unreadable contract, unwritable state file, stored records the contract refuses, port in use), 2 for a
wrong option or value.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  fixtures: { type: 'string' },
  contract: { type: 'string' },
  token: { type: 'string', multiple: true },
  'reject-token': { type: 'string', multiple: true },
  latency: { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  'state-file': { type: 'string' },
  'set-aside-invalid': { type: 'string' },
  'admin-token': { type: 'string' },
  'max-sessions': { type: 'string' },
  store: { type: 'string' },
  'store-prefix': { type: 'string' },
  'max-records-per-session': { type: 'string' },
  'max-recorded-bytes': { type: 'string' },
  'max-body-bytes-in-flight': { type: 'string' },
  'max-answer-bytes-in-flight': { type: 'string' },
  'max-connections': { type: 'string' },
  quiet: { type: 'boolean' },
  proxy: { type: 'string' },
  level: { type: 'string' },
  record: { type: 'string' },
  output: { type: 'string' },
  keep: { type: 'string' },
  'proxy-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function integer(option: string, value: string, min: number, max: number): number {
  const n = wholeNumber(value, min, max);
  if (n === undefined) throw new UsageError(`--${option} must be a whole number from ${min} to ${max}, not "${value}"`);
  return n;
}

function nonEmpty(option: string, values: string[] | undefined): string[] | undefined {
  for (const value of values ?? []) if (value === '') throw new UsageError(`--${option} needs a non-empty value`);
  return values;
}

export type ParsedCommand = { kind: 'help' } | { kind: 'run'; config: Partial<ServerConfig> };

/** Parses the arguments (without `node` and the script) and the environment. Throws a UsageError. */
export function parseMockArgs(args: string[], env: Record<string, string | undefined> = {}): ParsedCommand {
  const { values } = parseArgv(
    { args, options: OPTIONS, strict: true, allowPositionals: false },
    (sentence) => new UsageError(`${sentence} (run goods-mock --help for the options)`),
  );
  if (values.help) return { kind: 'help' };
  const config: Partial<ServerConfig> = {};
  const port = values.port ?? env['PORT'];
  if (port !== undefined) config.port = integer(values.port !== undefined ? 'port' : 'port (from PORT)', port, 0, 65535);
  if (values.host !== undefined) {
    if (values.host === '') throw new UsageError('--host needs an interface address, e.g. 127.0.0.1 or 0.0.0.0');
    config.host = values.host;
  }
  if (values.fixtures !== undefined) config.fixturesDir = values.fixtures;
  if (values.contract !== undefined) config.contractPath = values.contract;
  const tokens = nonEmpty('token', values.token);
  if (tokens) config.tokens = tokens;
  const rejectTokens = nonEmpty('reject-token', values['reject-token']);
  if (rejectTokens) config.rejectTokens = rejectTokens;
  // A credential for every scheme: a bearer token (RFC 6750 b64token), an API key, or user:password for
  // Basic; visible ASCII without spaces, so it can travel in a header, a query parameter or a cookie.
  for (const token of [...(tokens ?? []), ...(rejectTokens ?? [])]) {
    if (!/^[\x21-\x7e]+$/.test(token)) {
      throw new UsageError(
        `the credential "${token}" has a space or a character that is not visible ASCII; use a bearer token (letters, digits, -._~+/ then optional =), an API key, or user:password for Basic`,
      );
    }
  }
  if (values.latency !== undefined) config.latencyMs = integer('latency', values.latency, 0, 600_000);
  const origins = nonEmpty('cors-origin', values['cors-origin']);
  if (origins) {
    for (const origin of origins) {
      if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
        throw new UsageError(`--cors-origin must be * or an origin like http://localhost:5173 (no path), not "${origin}"`);
      }
    }
    config.corsOrigins = origins;
  }
  const allowedHosts = nonEmpty('allowed-host', values['allowed-host']);
  if (allowedHosts) {
    for (const name of allowedHosts) {
      if (!/^[A-Za-z0-9.-]+$/.test(name))
        throw new UsageError(`--allowed-host must be a host name like mock.test (no port, no scheme), not "${name}"`);
    }
    config.allowedHosts = allowedHosts;
  }
  if (values['state-file'] !== undefined) {
    if (values['state-file'] === '') throw new UsageError('--state-file needs a file path');
    config.stateFile = values['state-file'];
  }
  if (values['admin-token'] !== undefined) {
    if (values['admin-token'] === '') throw new UsageError('--admin-token needs a non-empty token');
    config.adminToken = values['admin-token'];
  }
  if (values['max-sessions'] !== undefined) config.maxSessions = integer('max-sessions', values['max-sessions'], 0, 100_000);
  const store = values.store ?? (env['MOCK_STORE'] === '' ? undefined : env['MOCK_STORE']);
  if (store !== undefined) {
    const from = values.store !== undefined ? '--store' : 'MOCK_STORE';
    let url: URL | undefined;
    try {
      url = new URL(store);
    } catch {
      url = undefined;
    }
    if (!url || !/^rediss?:$/.test(url.protocol) || url.hostname === '' || !/^(\/\d{0,5})?$/.test(url.pathname)) {
      throw new UsageError(`${from} must be a Redis URL like redis://127.0.0.1:6379/0, not "${store.replace(/\/\/[^@/]*@/, '//***@')}"`);
    }
    if (config.stateFile !== undefined) {
      throw new UsageError(`${from} and --state-file exclude each other: the state lives either on Redis or in the state file`);
    }
    config.store = store;
  }
  const setAside = values['set-aside-invalid'];
  if (setAside !== undefined) {
    if (setAside === '') throw new UsageError('--set-aside-invalid needs a file path');
    if (config.stateFile === undefined && config.store === undefined) {
      throw new UsageError('--set-aside-invalid works only with --state-file or --store (it sets aside records they hold)');
    }
    if (setAside === config.stateFile) throw new UsageError('--set-aside-invalid needs a file other than the --state-file');
    config.setAsideInvalid = setAside;
  }
  if (values['store-prefix'] !== undefined) {
    if (!/^[A-Za-z0-9._:-]{1,64}$/.test(values['store-prefix'])) {
      throw new UsageError('--store-prefix must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"');
    }
    config.storePrefix = values['store-prefix'];
  }
  const GiB = 1024 * 1024 * 1024;
  if (values['max-records-per-session'] !== undefined)
    config.maxRecordsPerSession = integer('max-records-per-session', values['max-records-per-session'], 1, 100_000_000);
  if (values['max-recorded-bytes'] !== undefined)
    config.maxRecordedBytes = integer('max-recorded-bytes', values['max-recorded-bytes'], 1024, 64 * GiB);
  if (values['max-body-bytes-in-flight'] !== undefined)
    config.maxBodyBytesInFlight = integer('max-body-bytes-in-flight', values['max-body-bytes-in-flight'], 1024, 64 * GiB);
  if (values['max-answer-bytes-in-flight'] !== undefined)
    config.maxAnswerBytesInFlight = integer('max-answer-bytes-in-flight', values['max-answer-bytes-in-flight'], 1024, 64 * GiB);
  if (values['max-connections'] !== undefined) config.maxConnections = integer('max-connections', values['max-connections'], 1, 1_000_000);
  if (values.quiet) config.quiet = true;
  const proxy = proxyConfig(values);
  if (proxy) config.proxy = proxy;
  return { kind: 'run', config };
}

const PROXY_ONLY = ['level', 'record', 'output', 'keep', 'proxy-timeout'] as const;
const MOCK_ONLY = ['fixtures', 'state-file', 'set-aside-invalid', 'latency', 'token', 'reject-token', 'max-sessions'] as const;

/** The `--proxy` options (undefined without --proxy; the proxy-only options without it are a UsageError). */
function proxyConfig(
  values: Partial<Record<'proxy' | (typeof PROXY_ONLY)[number], string> & Record<(typeof MOCK_ONLY)[number], string | string[]>>,
): ProxyConfig | undefined {
  if (values.proxy !== undefined) {
    // Options of the mock's own handlers would silently do nothing in front of a real server.
    const inert = MOCK_ONLY.find((name) => values[name] !== undefined);
    if (inert) throw new UsageError(`--${inert} has no effect with --proxy (the upstream answers); leave it out`);
  }
  if (values.proxy === undefined) {
    const stray = PROXY_ONLY.find((name) => values[name] !== undefined);
    if (stray) throw new UsageError(`--${stray} works only with --proxy URL (the validating proxy)`);
    return undefined;
  }
  let upstream: URL;
  try {
    upstream = new URL(values.proxy);
  } catch {
    throw new UsageError(`--proxy needs an absolute http(s) URL such as https://staging.example, not "${values.proxy}"`);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new UsageError(`--proxy needs an http:// or https:// URL, not "${upstream.protocol}"`);
  }
  if (upstream.search !== '' || upstream.hash !== '') throw new UsageError('--proxy takes a base URL without query or fragment');
  const level = values.level ?? DEFAULT_PROXY.level;
  if (!isLevel(level)) throw new UsageError(`--level must be spec or strict, not "${level}"`);
  const config: ProxyConfig = { ...DEFAULT_PROXY, upstream: values.proxy, level };
  if (values.record !== undefined) {
    if (values.record === '') throw new UsageError('--record needs a folder');
    config.recordDir = values.record;
  }
  if (values.output !== undefined) {
    if (values.output === '') throw new UsageError('--output needs a folder');
    config.outputDir = values.output;
  }
  if (values.keep !== undefined) config.keep = integer('keep', values.keep, 1, 10_000);
  if (values['proxy-timeout'] !== undefined) config.timeoutMs = integer('proxy-timeout', values['proxy-timeout'], 1, 600_000);
  return config;
}

/** The token shown in the start-up curl line. */
export function exampleToken(config: Partial<MockConfig>): string {
  return config.tokens?.[0] ?? 'dev-token';
}

/** The banner's `curl` of a read to try, with the credential where its scheme carries it (the token for every scheme). */
export function tryCommand(url: string, example: ExampleRead, token: string): string {
  const target = `${url}${example.path}`;
  const carrier = example.scheme?.carrier;
  if (carrier === undefined) return `curl ${target}`;
  if (carrier.kind === 'apiKey') {
    if (carrier.in === 'header') return `curl -H '${carrier.name}: ${token}' ${target}`;
    if (carrier.in === 'cookie') return `curl -b '${carrier.name}=${token}' ${target}`;
    return `curl '${target}${target.includes('?') ? '&' : '?'}${encodeURIComponent(carrier.name)}=${encodeURIComponent(token)}'`;
  }
  if (carrier.scheme === 'basic') return `curl -u '${token.includes(':') ? token : `user:${token}`}' ${target}`;
  return `curl -H 'Authorization: ${carrier.scheme.charAt(0).toUpperCase()}${carrier.scheme.slice(1)} ${token}' ${target}`;
}

/**
 * The dashboard's address; with `--token`, carrying the first token in its fragment (`#token=...`): a
 * browser never sends the fragment, so the token reaches no request and no log, and the page keeps it
 * for the tab and takes it out of the address bar. The start banner prints it.
 */
export function dashboardLink(url: string, tokens: readonly string[] | undefined): string {
  const token = tokens?.[0];
  return `${url}/__mock/${token === undefined ? '' : `#token=${encodeURIComponent(token)}`}`;
}

export { DEFAULT_CONFIG };
