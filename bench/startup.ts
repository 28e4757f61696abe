/**
 * Start-up time: spawn a server's command line on a free port, then poll a request until its first
 * expected answer. The time is from spawn to that answer, so it includes the process start.
 */
import { freePort } from '../support/free-port.js';
import { waitUntilAnswered } from './http-probe.js';
import { startChild, type Child, type CommandLine } from '../support/processes.js';
import { memoryOf } from './processes.js';
import type { Scenario } from './scenarios.js';

/** `npm start -- --port P --quiet` (through the npm that runs the bench, when it does). */
export function npmStartCommand(port: number): CommandLine {
  const args = ['start', '--silent', '--', '--port', String(port), '--quiet'];
  const npmCli = process.env['npm_execpath'];
  return npmCli?.endsWith('.js') ? { command: process.execPath, args: [npmCli, ...args] } : { command: 'npm', args };
}

/** One start: ms to first answer and the resident memory right then. */
export interface StartSample {
  ms: number;
  rss: number;
}

/** A started server that has answered: its process, URL and ms from spawn to the first answer. */
export interface StartedServer {
  child: Child;
  url: string;
  ms: number;
}

/**
 * Starts `commandFor(port)` on a free port and waits for the first answer of `probe`; the caller
 * stops the child. `ipc` opens an IPC channel (see `mock-memory.ts`).
 */
export async function startAndTime(
  name: string,
  commandFor: (port: number) => CommandLine,
  probe: Scenario,
  options: { ipc?: boolean } = {},
): Promise<StartedServer> {
  const port = await freePort();
  const line = commandFor(port);
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const child = startChild(name, line, options);
  try {
    const ms = await waitUntilAnswered(`${url}${probe.path}`, probe, {
      expectStatus: probe.expectStatus,
      startedAt,
      timeoutMs: 30000,
      intervalMs: 2,
      gaveUp: () => (child.hasExited() ? `${name} exited: ${child.output()}` : undefined),
    });
    return { child, url, ms };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/** Starts `commandFor(port)`, times it to the first answer of `probe`, stops it. */
export async function timeStart(name: string, commandFor: (port: number) => CommandLine, probe: Scenario): Promise<StartSample> {
  const started = await startAndTime(name, commandFor, probe);
  try {
    return { ms: started.ms, rss: memoryOf(started.child).rss };
  } finally {
    await started.child.stop();
  }
}

/** The median of a non-empty list (NaN for an empty one). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
