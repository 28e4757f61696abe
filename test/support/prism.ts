/**
 * Prism (`@stoplight/prism-cli`) as a child process for tests: `prism mock` or `prism proxy` on a free
 * loopback port, in its own process group, ready once it answers HTTP, stopped with TERM then KILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/free-port.js';
import { PROJECT_ROOT } from '../../contract/paths.js';

const PRISM = join(PROJECT_ROOT, 'node_modules', '.bin', 'prism');

export interface PrismProcess {
  url: string;
  child: ChildProcess;
  /** The last 50,000 characters Prism printed. */
  output(): string;
  /** Stops Prism and anything it started (its process group); safe to call twice. */
  stop(): Promise<void>;
}

async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const grace = new AbortController();
  const result = await Promise.race([
    exited.then(() => 'exited'),
    sleep(5_000, 'timeout', { signal: grace.signal }).catch(() => 'cancelled'),
  ]);
  grace.abort();
  if (result === 'timeout') {
    signal('SIGKILL');
    await exited;
  }
}

/**
 * Starts `prism <args...> -h 127.0.0.1 -p <free port>` and waits until it answers a GET of
 * `readyPath` (any status) or `readyWithinMs` passes (then it is stopped and this rejects with its output).
 */
export async function startPrism(args: string[], readyPath = '/', readyWithinMs = 60_000): Promise<PrismProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(PRISM, [...args, '-h', '127.0.0.1', '-p', String(port)], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = `${output}${chunk.toString('utf8')}`.slice(-50_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const prism: PrismProcess = { url, child, output: () => output, stop: () => stopGroup(child) };
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism ${args[0] ?? ''} exited with code ${child.exitCode} before answering:\n${output}`);
    try {
      await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(2_000) });
      return prism;
    } catch {
      if (Date.now() > deadline) {
        await prism.stop();
        throw new Error(`prism ${args[0] ?? ''} did not answer on ${url} within ${readyWithinMs} ms:\n${output}`);
      }
      await sleep(200);
    }
  }
}
