/**
 * `runConformance(config)`: the core of the suite. Starts the mock in-process when no base URL is
 * given, probes the target, runs every check of the level as a mocha suite, writes the report
 * files and answers the verdict. Throws StartError when the run cannot start (exit code 2).
 */
import net from 'node:net';
import { resolve } from 'node:path';
import { readContract, type OpenApiDocument } from '../contract/document.js';
import { CHECKS } from './checks/index.js';
import type { Check } from './checks/types.js';
import type { ConformanceConfig } from './config.js';
import { CheckContext } from './context.js';
import { writeReports } from './report/files.js';
import { renderSummary } from './report/human.js';
import type { CheckResult, UncheckedRule, Verdict } from './report/results.js';
import { redactingWriter, redactorFor, sanitizeVerdict, withoutUserinfo } from './secrets.js';
import { StartError } from './start-error.js';
import { checksOfLevel, runSuite } from './suite.js';

export interface RunOptions {
  /** Where the human report goes (default: stdout). */
  write?: (text: string) => void;
  color?: boolean;
  /** The checks to run (default: the registered list). Tests pass a subset. */
  checks?: readonly Check[];
  /** The contract (default: the bundled one). */
  document?: OpenApiDocument;
}

export interface RunResult {
  /** 0: every check of the level ran and passed; 1: a check failed; 3: checks were not run. */
  exitCode: 0 | 1 | 3;
  verdict: Verdict;
  /** Report files written. */
  files: string[];
  /** Every request the run sent, in order (for reproducibility checks and debugging). */
  requests: { method: string; path: string; body?: string }[];
}

interface Target {
  url: string;
  close(): Promise<void>;
}

async function startTarget(config: ConformanceConfig): Promise<Target> {
  if (config.baseUrl !== undefined) return { url: config.baseUrl, close: () => Promise.resolve() };
  let server: { url: string; close(): Promise<void> };
  try {
    const { createMockServer } = await import('../mock/index.js');
    server = await createMockServer({
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      tokens: [config.token],
      rejectTokens: [config.rejectedToken],
    });
  } catch (error) {
    throw new StartError(
      `the in-process mock did not start: ${(error as Error).message}`,
      'run `npm run build` and check the fixtures, or pass --base-url',
    );
  }
  return { url: server.url.replace(/\/+$/, ''), close: () => server.close() };
}

/** Something accepts TCP connections at the URL's host and port. */
function probe(url: string, timeoutMs: number): Promise<void> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolvePromise, reject) => {
    const socket = net.connect({ host, port });
    const fail = (reason: string): void => {
      socket.destroy();
      reject(new StartError(`nothing is listening at ${url} (${reason})`, 'start the server, or fix --base-url'));
    };
    socket.setTimeout(timeoutMs, () => fail(`no connection within ${timeoutMs} ms`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.end();
      resolvePromise();
    });
  });
}

/*
 * STUB of the i10b branch (reports and secrets): a minimal outcome so that the renderers run end to end.
 * The i10a branch owns the real judgment (not-run, reasons, coverage, hints); at merge take its version.
 */
function stubOutcome(
  results: readonly CheckResult[],
): Pick<Verdict, 'outcome' | 'exitCode' | 'passed' | 'leftOut' | 'unchecked' | 'coverage'> {
  const unchecked = (filter: (r: CheckResult) => boolean): UncheckedRule[] =>
    results.filter(filter).map((r) => ({ rule: r.rule, level: r.level, checks: [r.id], reason: r.reason ?? 'setup' }));
  const leftOut = unchecked((r) => r.status !== 'passed' && r.status !== 'failed' && r.reason === 'read-only');
  const other = unchecked(
    (r) => r.status !== 'passed' && r.status !== 'failed' && r.reason !== 'read-only' && r.reason !== 'not-applicable',
  );
  const failed = results.some((r) => r.status === 'failed');
  const outcome = failed ? 'failed' : other.length > 0 ? 'incomplete' : 'passed';
  const rules = [...new Set(results.map((r) => r.rule))];
  const rank = { failed: 3, 'not-run': 2, skipped: 1, passed: 0 } as const;
  const coverage = rules.map((rule) => {
    const of = results.filter((r) => r.rule === rule);
    const verdict = of.map((r) => r.status).reduce((a, b) => (rank[b] > rank[a] ? b : a), 'passed' as CheckResult['status']);
    return {
      rule,
      level: of[0]?.level ?? 'spec',
      checks: of.map((r) => r.id),
      casesSent: of.reduce((n, r) => n + r.cases.length, 0),
      verdict,
    };
  });
  return { outcome, exitCode: failed ? 1 : other.length > 0 ? 3 : 0, passed: outcome === 'passed', leftOut, unchecked: other, coverage };
}

export async function runConformance(config: ConformanceConfig, options: RunOptions = {}): Promise<RunResult> {
  // Everything printed goes through the redactor (secrets.ts); the renderers escape control characters.
  const redactor = redactorFor(config);
  const write = redactingWriter(options.write ?? ((text: string) => void process.stdout.write(text)), redactor);
  const startedAt = new Date();
  const target = await startTarget(config);
  try {
    await probe(target.url, Math.min(config.timeoutMs, 5000));
    const document = options.document ?? readContract();
    const ctx = new CheckContext({ config, baseUrl: target.url, document, deadline: startedAt.getTime() + config.runDeadlineMs });
    // What the checks show of their requests is redacted with the same credentials (secrets.ts knows them).
    for (const secret of redactor.secrets) ctx.expect.addSecret(secret);
    const checks = checksOfLevel(options.checks ?? CHECKS, config.level);
    const outputDir = resolve(config.outputDir);
    write(
      `goods conformance: level ${config.level}, ${checks.length} checks against ${target.url}${config.baseUrl === undefined ? ' (in-process mock)' : ''}, seed ${config.seed}\n`,
    );
    const run = await runSuite({
      checks,
      ctx,
      write,
      color: options.color ?? false,
      timeoutMs: config.runDeadlineMs + config.timeoutMs,
    });
    const counts = {
      total: run.results.length,
      passed: run.results.filter((r) => r.status === 'passed').length,
      failed: run.results.filter((r) => r.status === 'failed').length,
      skipped: run.results.filter((r) => r.status === 'skipped').length,
      notRun: run.results.filter((r) => r.status === 'not-run').length,
      cases: run.results.reduce((n, r) => n + r.cases.length, 0),
    };
    const verdict: Verdict = {
      tool: 'goods-conformance',
      level: config.level,
      seed: config.seed,
      runMarker: config.runMarker,
      target: withoutUserinfo(target.url),
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      ...stubOutcome(run.results),
      counts,
      operationsTested: [
        ...new Set(run.results.filter((r) => r.status === 'passed' || r.status === 'failed').flatMap((r) => r.operations)),
      ],
      hints: [],
      writes: ctx.writes,
      recordsCreated: ctx.created,
      checks: run.results,
    };
    // The reports and the summary: sanitized (secrets.ts) and rendered as pure functions of the verdict.
    const files = writeReports(verdict, { reporters: config.reporters, outputDir, redactor });
    write(renderSummary(sanitizeVerdict(verdict, redactor), { color: options.color ?? false, files }));
    const requests = ctx.http.history.map(({ request }) => ({
      method: request.method,
      path: request.path,
      ...(request.body !== undefined ? { body: request.body.toString('utf8') } : {}),
    }));
    return { exitCode: verdict.exitCode, verdict, files, requests };
  } finally {
    await target.close();
  }
}
