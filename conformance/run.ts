/**
 * `runConformance(config)`: the core of the suite. Reads the contract once (`--contract FILE` or the
 * bundled one, `contract-option.ts`), starts the mock in-process with that same file when no base URL
 * is given, probes the target (something listening, and speaking the URL's protocol: TLS for https://,
 * plain HTTP for http://, a certificate it trusts, with `--ca FILE` too), runs every check of the level
 * as a mocha suite, builds the results model once (`report/results.ts`), writes the report files and
 * answers the verdict. Throws StartError when the run cannot start (exit code 2); a configuration error
 * the answers show (`configuration.ts`) is the outcome `configuration`, exit code 2 too, after the
 * summary and the reports.
 */
import net from 'node:net';
import { resolve } from 'node:path';
import tls from 'node:tls';
import type { OpenApiDocument } from '../contract/document.js';
import { carrierText } from '../contract/security.js';
import { judgeContexts } from '../judgments/context.js';
import { credentialsFor } from '../checks/credentials.js';
import { anyTokenHint, credentialCases } from '../checks/auth.js';
import { checksFor } from './checks/index.js';
import type { Check } from './checks/types.js';
import type { ConformanceConfig } from './config.js';
import { loadCa } from './ca-option.js';
import { checkSuitePeers } from './peers.js';
import { certificateProblem, configurationHints, configurationProblem } from './configuration.js';
import { CheckContext } from './context.js';
import { markerMembers } from './data.js';
import { resourceOf } from '../contract/operations-model.js';
import { inMemoryContract, loadContract } from './contract-option.js';
import { coverageTable } from './coverage.js';
import type { Exchange } from './http.js';
import { writeReports } from './report-files.js';
import { renderHeader, renderSummary } from '../report/human.js';
import { EXIT_CODES, type CheckResult, type ExitCode, type MockSession, type UncheckedRule, type Verdict } from '../report/results.js';
import { createRedactor, credentialsOf, redactingWriter, withoutUserinfo } from './secrets.js';
import { StartError } from './start-error.js';
import { checksOfLevel, runSuite } from './suite.js';
import { messageOf } from '../util/errors.js';

export interface RunOptions {
  /** Where the human report goes (default: stdout). */
  write?: (text: string) => void;
  color?: boolean;
  /** The checks to run (default: the registered list). Tests pass a subset. */
  checks?: readonly Check[];
  /**
   * The contract as an object (tests): judged against instead of reading `config.contractPath` or the
   * bundled contract; the reports name it `(in memory)` with the SHA-256 of `JSON.stringify(document)`.
   * The in-process mock still serves `config.contractPath` (or the bundled contract).
   */
  document?: OpenApiDocument;
}

export interface RunResult {
  /**
   * 0: every check of the level ran and passed; 1: a check failed; 2: the answers show a configuration
   * error (`verdict.configuration`); 3: nothing failed, checks left unchecked.
   */
  exitCode: ExitCode;
  verdict: Verdict;
  /** Report files written. */
  files: string[];
  /**
   * Every request the run sent, in the order sent (for reproducibility checks and debugging); above
   * --concurrency 1 the order of requests in flight at once may vary from run to run, the requests do not.
   */
  requests: { method: string; path: string; body?: string }[];
}

/** The server under test: `--base-url`, or the in-process mock. */
interface ServerUnderTest {
  url: string;
  close(): Promise<void>;
}

/**
 * What the contract asks of the configuration, refused before anything is sent (exit 2): an order number
 * when the contract reads an order, and a credential the suite can send for every secured operation.
 */
function checkConfigurationAgainst(document: OpenApiDocument, config: ConformanceConfig): void {
  const model = judgeContexts(document).strict.model;
  if (model.orderInfo !== undefined && config.orderNumber === '')
    throw new StartError('no order number for the server under test', 'pass --order-number NUMBER (an existing order with lots)');
  for (const op of model.operations) {
    if (!op.security.secured || credentialsFor(op.security, { token: config.token, byScheme: config.credentials }) !== undefined) continue;
    const needs = op.security.alternatives.map((a) => a.map((s) => `${s.name} (${carrierText(s.carrier)})`).join(' and ')).join(', or ');
    throw new StartError(
      `no credential the suite can send for ${op.operationId}, which needs ${needs}`,
      `pass --credential NAME=VALUE for one of them (Basic: user:password; a bearer token: an RFC 6750 token)`,
    );
  }
}

async function startServerUnderTest(config: ConformanceConfig): Promise<ServerUnderTest> {
  if (config.baseUrl !== undefined) return { url: config.baseUrl, close: () => Promise.resolve() };
  let server: { url: string; close(): Promise<void> };
  try {
    const { createMockServer } = await import('../mock/index.js');
    server = await createMockServer({
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      // Every credential the run sends as valid: the token, its Basic form, each --credential.
      tokens: [
        ...new Set([
          config.token,
          config.token.includes(':') ? config.token : `conformance:${config.token}`,
          ...Object.values(config.credentials),
        ]),
      ],
      rejectTokens: [config.rejectedToken],
      // The mock serves the contract the run judges against (the same file, by the same loader).
      ...(config.contractPath !== undefined ? { contractPath: resolve(config.contractPath) } : {}),
    });
  } catch (error) {
    throw new StartError(
      `the in-process mock did not start: ${messageOf(error)}`,
      config.contractPath !== undefined
        ? 'check that the fixtures fit --contract FILE, or pass --base-url'
        : 'run `npm run build` and check the fixtures, or pass --base-url',
    );
  }
  return { url: server.url.replace(/\/+$/, ''), close: () => server.close() };
}

/** Something accepts TCP connections at the URL's host and port. */
function probeListening(url: URL, timeoutMs: number): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolvePromise, reject) => {
    const socket = net.connect({ host, port });
    const fail = (reason: string): void => {
      socket.destroy();
      reject(
        new StartError(
          `nothing is listening at ${withoutUserinfo(url.href).replace(/\/+$/, '')} (${reason})`,
          'start the server, or fix --base-url',
        ),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(`no connection within ${timeoutMs} ms`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.end();
      resolvePromise();
    });
  });
}

/** Tries a TLS handshake: `tls` when it completes, `plain` when the peer answered something that is not TLS, `unknown` otherwise. */
function tlsHandshake(url: URL, timeoutMs: number): Promise<'tls' | 'plain' | 'unknown'> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((done) => {
    // Only the protocol is probed here: the certificate is verified by the real requests.
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(net.isIP(host) ? {} : { servername: host }) });
    const finish = (result: 'tls' | 'plain' | 'unknown'): void => {
      socket.destroy();
      done(result);
    };
    socket.setTimeout(timeoutMs, () => finish('unknown'));
    socket.once('secureConnect', () => finish('tls'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish(
        /wrong version number|packet length too long|EPROTO|unknown protocol|http request/i.test(`${error.code ?? ''} ${error.message}`)
          ? 'plain'
          : 'unknown',
      ),
    );
  });
}

/**
 * After a first request failed without an answer (not a time-out): does the target speak the other
 * protocol than its URL says? A mismatch cannot give a meaningful run (exit 2). Only probed then, so
 * a server that never answers costs no extra time.
 */
async function protocolMismatch(base: string, timeoutMs: number): Promise<void> {
  const url = new URL(base);
  const found = await tlsHandshake(url, Math.min(timeoutMs, 5000));
  if (url.protocol === 'https:' && found === 'plain')
    throw new StartError(
      `${withoutUserinfo(base)} answers plain HTTP, not TLS`,
      `use --base-url http://${url.host}${url.pathname.replace(/\/$/, '')}`,
    );
  if (url.protocol === 'http:' && found === 'tls')
    throw new StartError(
      `${withoutUserinfo(base)} speaks TLS (HTTPS), not plain HTTP`,
      `use --base-url https://${url.host}${url.pathname.replace(/\/$/, '')}`,
    );
}

/** Groups checks by rule (for the lists of rules left out or unchecked). */
function byRule(results: readonly CheckResult[]): UncheckedRule[] {
  const rows = new Map<string, UncheckedRule>();
  for (const r of results) {
    const row = rows.get(r.rule) ?? { rule: r.rule, level: r.level, checks: [], reason: r.reason ?? 'setup' };
    row.checks.push(r.id);
    rows.set(r.rule, row);
  }
  return [...rows.values()];
}

/** Hints: what the run's traffic suggests besides the verdicts (a server accepting any token; records without the run marker). */
function hintsOf(ctx: CheckContext, config: ConformanceConfig): string[] {
  const hints: string[] = [];
  const anyToken = anyTokenHint(ctx.http.history, config);
  if (anyToken !== undefined) hints.push(anyToken);
  // The run marker goes only into members whose schema can hold it.
  for (const op of ctx.model.creates) {
    if (config.readOnly || markerMembers(ctx.derivation(op.operationId), config.runMarker).length > 0) continue;
    hints.push(
      `no member of ${op.operationId} can hold the run marker ${config.runMarker} (the contract's schemas refuse it): find this run's ${op.operationId} records by the run's start time (startedAt in conformance.json) and the ids the creates were answered`,
    );
  }
  return hints;
}

/**
 * The goods-mock session of the run's records: when a server answered the `X-Mock-Session` the suite
 * sends back (goods-mock does; any other server ignores the header), where its records are and how to
 * list and reset them. Nothing is sent to find out.
 */
function mockSessionOf(ctx: CheckContext, config: ConformanceConfig, target: string): { mockSession: MockSession } | Record<string, never> {
  const echoed = ctx.http.history.some((exchange) => exchange.answer?.headers['x-mock-session'] === config.mockSession);
  if (!echoed) return {};
  const control = `${new URL(target).origin}/__mock`;
  return {
    mockSession: {
      name: config.mockSession,
      listings: ctx.model.creates.map((op) => `${control}/${resourceOf(op)}`),
      reset: `${control}/reset`,
    },
  };
}

export async function runConformance(config: ConformanceConfig, options: RunOptions = {}): Promise<RunResult> {
  checkSuitePeers();
  // Every credential the suite was given or builds from the token (other schemes, a prefix, another
  // letter case, the Basic credential) is known to the one redactor (secrets.ts); everything printed
  // or written goes through it.
  const built: string[] = [];
  for (const list of Object.values(credentialCases({ ...config, rejectedToken: config.token })))
    for (const { authorization } of list) {
      const credential = /^\S+\s+(\S.*)$/.exec(authorization ?? '')?.[1];
      if (credential !== undefined && credential !== config.token) built.push(credential);
    }
  const secrets = credentialsOf(config);
  // Built from a token that is no secret (the in-process mock's documented token), they are none either.
  const redactor = createRedactor(secrets.includes(config.token) ? [...secrets, ...built] : secrets);
  const write = redactingWriter(options.write ?? ((text: string) => void process.stdout.write(text)), redactor);
  const startedAt = new Date();
  // Read once, before anything starts: a contract that cannot be read or used stops the run (exit 2).
  const contract = options.document !== undefined ? inMemoryContract(options.document) : loadContract(config.contractPath);
  const document = contract.document;
  checkConfigurationAgainst(document, config);
  const ca = config.caPath !== undefined ? loadCa(config.caPath) : undefined;
  const target = await startServerUnderTest(config);
  let closeConnections = (): Promise<void> => Promise.resolve();
  try {
    await probeListening(new URL(target.url), Math.min(config.timeoutMs, 5000));
    const deadline = config.deadlineMs === undefined ? undefined : startedAt.getTime() + config.deadlineMs;
    const ctx = new CheckContext({
      config,
      baseUrl: target.url,
      document,
      ...(deadline !== undefined ? { deadline } : {}),
      ...(ca !== undefined ? { ca: ca.certificates } : {}),
    });
    closeConnections = () => ctx.http.close();
    for (const secret of redactor.secrets) ctx.expect.addSecret(secret);
    const checks = checksOfLevel(options.checks ?? checksFor(document), config.level);
    const outputDir = resolve(config.outputDir);
    const shown = withoutUserinfo(target.url);
    write(
      renderHeader({
        level: config.level,
        checks: checks.length,
        target: shown,
        inProcess: config.baseUrl === undefined,
        contract: contract.judged,
        seed: config.seed,
        timeoutMs: config.timeoutMs,
        deadlineMs: config.deadlineMs,
        caPath: ca?.path,
        concurrency: config.concurrency,
      }),
    );
    // The main order is the first request, sent on behalf of the first order check: a protocol mismatch
    // (https:// against plain HTTP, http:// against TLS) or a certificate not trusted is found here, before
    // any check reports.
    const orderCheck = checks.find((c) => ctx.model.orderInfo !== undefined && c.operations[0] === ctx.model.orderInfo.operationId);
    let main: Exchange | undefined;
    if (orderCheck) {
      main = await ctx.as(orderCheck.id, () => ctx.orderExchange());
      if (!main.answer && !main.timedOut && !main.notSent) {
        const certificate = certificateProblem(main, shown, ca?.path);
        if (certificate) throw certificate;
        await protocolMismatch(target.url, config.timeoutMs);
      }
    }
    const run = await runSuite({ checks, ctx, write, color: options.color ?? false, startedAt: startedAt.getTime() });
    const results = run.results;
    const count = (status: CheckResult['status']): number => results.filter((r) => r.status === status).length;
    const counts = {
      total: results.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      notRun: count('not-run'),
      cases: results.reduce((n, r) => n + r.cases.filter((c) => c.status === 'passed' || c.status === 'failed').length, 0),
    };
    const leftOut = byRule(results.filter((r) => r.status === 'skipped' && r.reason === 'read-only'));
    const unchecked = byRule(results.filter((r) => r.status === 'not-run' || (r.status === 'skipped' && r.reason !== 'read-only')));
    // A configuration error the answers show wins over any failure: nothing said about the contract.
    const configuration = configurationProblem(main, ctx.http.history, config);
    const outcome = configuration ? 'configuration' : counts.failed > 0 ? 'failed' : unchecked.length > 0 ? 'incomplete' : 'passed';
    const exitCode = EXIT_CODES[outcome];
    // Sent: answered or ended with an error; not the requests an earlier time-out or the deadline blocked.
    const sent = ctx.http.history.filter((e) => !e.notSent && (e.answer !== undefined || e.error !== undefined));
    const verdict: Verdict = {
      tool: 'goods-conformance',
      level: config.level,
      seed: config.seed,
      runMarker: config.runMarker,
      target: shown,
      contract: { ...contract.judged },
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      outcome,
      exitCode,
      passed: exitCode === 0,
      ...(configuration ? { configuration } : {}),
      counts,
      operationsTested: [...new Set(results.filter((r) => r.status === 'passed' || r.status === 'failed').flatMap((r) => r.operations))],
      leftOut,
      unchecked,
      hints: [...configurationHints(main, ctx.http.history, config), ...hintsOf(ctx, config)],
      coverage: coverageTable(results),
      writes: ctx.writes,
      recordsCreated: ctx.postsAccepted,
      requests: sent.length,
      traffic: ctx.http.traffic,
      ...(config.baseUrl !== undefined ? mockSessionOf(ctx, config, shown) : {}),
      checks: results,
    };
    // The reports and the summary: sanitized (secrets.ts) and rendered as pure functions of the verdict.
    const { files, shown: sanitized } = writeReports(verdict, { reporters: config.reporters, outputDir, redactor });
    write(renderSummary(sanitized, { color: options.color ?? false, files }));
    // Made when read (tests and the proofs read them; the CLI does not): the bodies decoded as text cost
    // megabytes a run.
    let requests: RunResult['requests'] | undefined;
    return {
      exitCode,
      verdict,
      files,
      get requests() {
        requests ??= sent.map(({ request }) => ({
          method: request.method,
          path: request.path,
          ...(request.body !== undefined ? { body: request.body.toString('utf8') } : {}),
        }));
        return requests;
      },
    };
  } finally {
    await closeConnections();
    await target.close();
  }
}
