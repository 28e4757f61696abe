/**
 * The servers under test, each started in its own child process group (`support/processes.ts`) on a
 * loopback port: Prism's CLI and the bench's own `server-child` (the mock through its public API, the
 * bare `node:http` server, and in front of it the floor and the validating proxy). Start-up is timed
 * from spawn to the first expected answer, so it includes the process start.
 */
import { on } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { CONTRACT_YAML_PATH, PROJECT_ROOT } from '../contract/paths.js';
import { treeMemory, type TreeMemory } from '../support/proc-memory.js';
import { startChild, waitForLine, type Child, type CommandLine } from '../support/processes.js';
import { FROM_SOURCE } from '../support/project-cli.js';
import { waitForHttp } from '../support/wait.js';
import type { Scenario } from './scenarios.js';

export type ServerId = 'mock' | 'prism' | 'bare' | 'floor' | 'proxy';
/** `floor` and `proxy` run in front of the bare server, so they are started after it. */
export const SERVER_IDS: readonly ServerId[] = ['mock', 'prism', 'bare', 'floor', 'proxy'];

/** A server under test; `sidePid`: a process it depends on (Redis), whose CPU time is measured with the server's. */
export type RunningServer = { id: ServerId; url: string; child: Child; sidePid?: number };

/** The bench's server child (`server-child.ts`, or compiled in `dist/`); the mock's with `--expose-gc` (see `memoryAfterGc`). */
export function serverChild(args: string[]): CommandLine {
  const file = fileURLToPath(new URL(`./server-child${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url));
  const node = [...(args[0] === 'mock' ? ['--expose-gc'] : []), ...(FROM_SOURCE ? ['--import', 'tsx'] : [])];
  return { command: process.execPath, args: [...node, file, ...args] };
}

export const prismCommand = (port: number): CommandLine => ({
  command: process.execPath,
  args: [
    join(PROJECT_ROOT, 'node_modules', '.bin', 'prism'),
    'mock',
    CONTRACT_YAML_PATH,
    '-v',
    'error',
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
  ],
});

/** `npm start -- --port P --quiet` (through the npm that runs the bench, when it does). */
export function npmStartCommand(port: number): CommandLine {
  const args = ['start', '--silent', '--', '--port', String(port), '--quiet'];
  const npmCli = process.env['npm_execpath'];
  return npmCli?.endsWith('.js') ? { command: process.execPath, args: [npmCli, ...args] } : { command: 'npm', args };
}

/** Resident memory of a child's process tree (0 once it has exited). */
export const memoryOf = (child: Child): TreeMemory => (child.hasExited() ? { rss: 0, peakRss: 0 } : treeMemory(child.pid));

/** What a mock child (IPC channel, `--expose-gc`) answers to `{ type: 'memory' }`: its memory after a full GC. */
export type MemoryReport = { type: 'memory'; collected: boolean; rss: number; heapUsed: number };
const isMemoryReport = (m: unknown): m is MemoryReport =>
  typeof m === 'object' && m !== null && 'type' in m && m.type === 'memory' && 'rss' in m && 'heapUsed' in m;

/** Asks a mock child for its memory after a full GC; rejects after `timeoutMs` or without an IPC channel. */
export async function memoryAfterGc(child: Child, timeoutMs = 10_000): Promise<MemoryReport> {
  if (!child.process.connected) throw new Error(`${child.name} has no IPC channel`);
  const signal = AbortSignal.timeout(timeoutMs);
  const messages = on(child.process, 'message', { signal });
  child.process.send({ type: 'memory' });
  try {
    for await (const [m] of messages) if (isMemoryReport(m)) return m;
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  throw new Error(`${child.name} did not report its memory within ${timeoutMs} ms`);
}

/** Waits for `ready`; stops `child` when it fails. */
async function readyOrStop<T>(child: Child, ready: Promise<T>): Promise<T> {
  return ready.catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
}

/** Starts `commandFor(port)` on a free port, waits for the first expected answer of `probe`, and answers the ms from spawn to it. */
export async function startAndTime(name: string, commandFor: (port: number) => CommandLine, probe: Scenario, ipc = false) {
  const port = await getPort({ host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const child = startChild(name, commandFor(port), { ipc });
  await readyOrStop(child, waitForHttp(`${url}${probe.path}`, { child, request: probe, expectStatus: probe.expectStatus, intervalMs: 2 }));
  return { child, url, ms: performance.now() - startedAt };
}

/**
 * Starts server `id`: the bench's own children until they print their URL (the mock with an IPC
 * channel and `mockArgs`; the floor and the proxy in front of `upstream`), Prism until it answers `probe`.
 */
export async function startServer(id: ServerId, probe: Scenario, upstream?: string, mockArgs: string[] = []): Promise<RunningServer> {
  if (id === 'prism') return { id, ...(await startAndTime('prism', prismCommand, probe)) };
  if ((id === 'proxy' || id === 'floor') && upstream === undefined)
    throw new Error(`the ${id} needs the bare server to run in front of: list bare before ${id}`);
  const args = id === 'mock' ? [id, ...mockArgs] : id === 'bare' ? [id] : [id, '--upstream', upstream ?? ''];
  const child = startChild(args.join(' '), serverChild(args), { ipc: id === 'mock' });
  return { id, url: await readyOrStop(child, waitForLine(child, /^(http:\/\/\S+?)\/?$/)), child };
}
