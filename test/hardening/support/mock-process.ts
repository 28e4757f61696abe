/**
 * The mock's CLI in a child process (`node --import tsx mock/cli.ts`), so a crash is seen as a crash:
 * the test knows whether the process is still alive, its exit code and signal, and everything it wrote.
 * Every process started here is stopped by `stop()` (SIGTERM, then SIGKILL) or `kill()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../contract/paths.js';

export const MOCK_CLI = join(PROJECT_ROOT, 'mock', 'cli.ts');

export interface MockProcess {
  child: ChildProcess;
  url: string;
  host: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, no clean-up in the child (a crash). */
  kill(): Promise<void>;
  /** SIGTERM (graceful), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ExitedProcess {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', MOCK_CLI, ...args], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '' },
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, out: () => out, err: () => err, exited };
}

/** Starts `goods-mock --port 0 ...args` and resolves once it printed its URL (rejects if it exits first). */
export async function startMockProcess(args: string[], readyTimeoutMs = 20_000): Promise<MockProcess> {
  const { child, out, err, exited } = run(['--port', '0', ...args]);
  let alive = true;
  void exited.then(() => (alive = false));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the mock did not print its URL within ${readyTimeoutMs} ms; stderr: ${err()}`));
    }, readyTimeoutMs);
    const onData = () => {
      const found = /listening on (http:\/\/\S+)/.exec(out())?.[1];
      if (found) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(found);
      }
    };
    child.stdout?.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the mock exited (code ${code}, signal ${signal}) before it was ready; stderr: ${err()}`));
    });
  });
  const parsed = new URL(url);
  const stopWith = async (signal: NodeJS.Signals, graceMs: number) => {
    if (!alive) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    child,
    url,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port),
    stdout: out,
    stderr: err,
    alive: () => alive,
    exited,
    kill: () => stopWith('SIGKILL', 0),
    stop: (graceMs = 5000) => stopWith('SIGTERM', graceMs),
  };
}

/** Runs the CLI expecting it to exit by itself (e.g. a start-up failure); kills it after `timeoutMs`. */
export async function runMockToExit(args: string[], timeoutMs = 20_000): Promise<ExitedProcess> {
  const { child, out, err, exited } = run(args);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const { code, signal } = await exited;
  clearTimeout(timer);
  return { code, signal, stdout: out(), stderr: err() };
}
