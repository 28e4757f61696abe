/**
 * `runConformance(config)`: the core of the suite. Starts the mock in-process when no base URL is
 * given, probes the target, runs every check of the level as a mocha suite, writes the report
 * files and answers the verdict. Throws StartError when the run cannot start (exit code 2).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { readContract, type OpenApiDocument } from '../contract/document.js';
import { CHECKS } from './checks/index.js';
import type { Check } from './checks/types.js';
import type { ConformanceConfig } from './config.js';
import { CheckContext } from './context.js';
import { renderHtml } from './report/html.js';
import type { Verdict } from './report/results.js';
import { StartError } from './start-error.js';
import { checksOfLevel, runSuite } from './suite.js';
import { basicCredentials } from './checks/auth.js';

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
  /** 0: every check of the level passed; 1: a check failed. */
  exitCode: 0 | 1;
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

function writeReport(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

export async function runConformance(config: ConformanceConfig, options: RunOptions = {}): Promise<RunResult> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const startedAt = new Date();
  const target = await startTarget(config);
  try {
    await probe(target.url, Math.min(config.timeoutMs, 5000));
    const document = options.document ?? readContract();
    const ctx = new CheckContext({ config, baseUrl: target.url, document, deadline: startedAt.getTime() + config.runDeadlineMs });
    ctx.expect.addSecret(basicCredentials(config.token));
    const checks = checksOfLevel(options.checks ?? CHECKS, config.level);
    const outputDir = resolve(config.outputDir);
    const files: string[] = [];
    const junitFile = config.reporters.includes('junit') ? join(outputDir, 'junit.xml') : undefined;
    write(
      `goods conformance: level ${config.level}, ${checks.length} checks against ${target.url}${config.baseUrl === undefined ? ' (in-process mock)' : ''}, seed ${config.seed}\n`,
    );
    const run = await runSuite({
      checks,
      ctx,
      write,
      color: options.color ?? false,
      timeoutMs: config.runDeadlineMs + config.timeoutMs,
      ...(junitFile ? { junitFile } : {}),
    });
    if (junitFile) files.push(junitFile);
    const counts = {
      total: run.results.length,
      passed: run.results.filter((r) => r.status === 'passed').length,
      failed: run.results.filter((r) => r.status === 'failed').length,
      skipped: run.results.filter((r) => r.status === 'skipped').length,
    };
    const verdict: Verdict = {
      tool: 'goods-conformance',
      level: config.level,
      seed: config.seed,
      runMarker: config.runMarker,
      target: target.url,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      passed: counts.failed === 0,
      counts,
      operationsTested: [...new Set(run.results.filter((r) => r.status !== 'skipped').flatMap((r) => r.operations))],
      writes: ctx.writes,
      recordsCreated: ctx.created,
      checks: run.results,
    };
    if (config.reporters.includes('json')) files.push(writeReport(outputDir, 'conformance.json', `${JSON.stringify(verdict, null, 2)}\n`));
    if (config.reporters.includes('html')) files.push(writeReport(outputDir, 'conformance.html', renderHtml(verdict)));
    write(
      `\n${verdict.passed ? 'PASSED' : 'FAILED'}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.total} checks (level ${config.level}) in ${verdict.durationMs} ms\n` +
        `seed ${config.seed} (--seed ${config.seed} sends the same requests)\n` +
        `run marker ${config.runMarker}: ${ctx.writes} create request(s) sent, ${ctx.created} record(s) created; find them by this marker in scancodes, notes, sample numbers\n` +
        files.map((f) => `report: ${f}\n`).join(''),
    );
    const requests = ctx.http.history.map(({ request }) => ({
      method: request.method,
      path: request.path,
      ...(request.body !== undefined ? { body: request.body.toString('utf8') } : {}),
    }));
    return { exitCode: verdict.passed ? 0 : 1, verdict, files, requests };
  } finally {
    await target.close();
  }
}
