/** The servers under test, each in its own process group on a loopback port; start-up is timed from spawn to the first expected answer. */
import { once } from 'node:events';
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
/** Each pair a ratio compares is adjacent (the rounds run them back to back); `floor` and `proxy` front bare, so start after it. */
export const SERVER_IDS: readonly ServerId[] = ['prism', 'mock', 'bare', 'floor', 'proxy'];
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
  args: [join(PROJECT_ROOT, 'node_modules', '.bin', 'prism'), 'mock', CONTRACT_YAML_PATH, ...`-v error -h 127.0.0.1 -p ${port}`.split(' ')],
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

/** Asks a mock child for its memory after a full GC (the only message it sends); rejects after `timeoutMs` or without an IPC channel. */
export async function memoryAfterGc(child: Child, timeoutMs = 10_000): Promise<MemoryReport> {
  if (!child.process.connected) throw new Error(`${child.name} has no IPC channel`);
  const signal = AbortSignal.timeout(timeoutMs);
  const answer = once(child.process, 'message', { signal });
  child.process.send({ type: 'memory' });
  const [report]: unknown[] = await answer.catch((error: unknown) => {
    if (signal.aborted) return [];
    throw error;
  });
  if (isMemoryReport(report)) return report;
  throw new Error(`${child.name} did not report its memory within ${timeoutMs} ms`);
}

/** Starts a server, given those started before it. */
export type Starter<S> = (before: S[]) => Promise<S>;
type Stoppable = { child: Child };

/** Runs `use` on what each of `starts` started in turn; stops them all, also when one fails. */
export async function withServers<S extends Stoppable, T>(starts: readonly Starter<S>[], use: (servers: S[]) => Promise<T>): Promise<T> {
  const servers: S[] = [];
  try {
    for (const start of starts) servers.push(await start(servers));
    return await use(servers);
  } finally {
    await Promise.all(servers.map((s) => s.child.stop()));
  }
}

export const withServer = <S extends Stoppable, T>(start: () => Promise<S>, use: (server: S) => Promise<T>): Promise<T> =>
  withServers([start], ([server]) => (server ? use(server) : Promise.reject(new Error('no server started'))));

const readyOrStop = <T>(child: Child, ready: Promise<T>): Promise<T> =>
  ready.catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });

/** Starts `commandFor(port)` on a free port, waits for the first expected answer of `probe`, and answers the ms from spawn to it. */
export async function startAndTime(name: string, commandFor: (port: number) => CommandLine, probe: Scenario, ipc = false) {
  const port = await getPort({ host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const child = startChild(name, commandFor(port), { ipc });
  await readyOrStop(child, waitForHttp(`${url}${probe.path}`, { child, request: probe, expectStatus: probe.expectStatus, intervalMs: 2 }));
  return { child, url, ms: performance.now() - startedAt };
}

/** Starts server `id` (the floor and the proxy in front of `upstream`) until it prints its URL, Prism until it answers `probe`. */
export async function startServer(id: ServerId, probe: Scenario, upstream?: string, mockArgs: string[] = []): Promise<RunningServer> {
  if (id === 'prism') return { id, ...(await startAndTime('prism', prismCommand, probe)) };
  if ((id === 'proxy' || id === 'floor') && upstream === undefined)
    throw new Error(`the ${id} needs the bare server to run in front of: list bare before ${id}`);
  const args = id === 'mock' ? [id, ...mockArgs] : id === 'bare' ? [id] : [id, '--upstream', upstream ?? ''];
  const child = startChild(args.join(' '), serverChild(args), { ipc: id === 'mock' });
  return { id, url: await readyOrStop(child, waitForLine(child, /^(http:\/\/\S+?)\/?$/)), child };
}
