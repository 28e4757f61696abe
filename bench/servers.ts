/**
 * The servers under test, each started in its own child process group on a loopback port: Prism's CLI
 * (`prism mock`) and the bench's own (`server-child`): the mock through its public API, the bare
 * `node:http` server, and in front of that bare server the floor (a minimal undici reverse proxy) and
 * the validating proxy. Start-up is timed from spawn to the first expected answer of a request
 * polled on a free port, so it includes the process start.
 */
import getPort from 'get-port';
import { startChild, waitForLine, type Child, type CommandLine } from '../support/processes.js';
import { waitForHttp } from '../support/wait.js';
import { benchEntry, memoryOf, mockCommand, prismCommand } from './processes.js';
import type { Scenario } from './scenarios.js';

export type ServerId = 'mock' | 'prism' | 'bare' | 'floor' | 'proxy';

/** `floor` and `proxy` run in front of the bare server, so they are started after it. */
export const SERVER_IDS: readonly ServerId[] = ['mock', 'prism', 'bare', 'floor', 'proxy'];

/** A server under test. */
export interface RunningServer {
  id: ServerId;
  url: string;
  child: Child;
}

/** Answers what `ready` answers; stops `child` when it fails. */
async function readyOrStop<T>(child: Child, ready: Promise<T>): Promise<T> {
  try {
    return await ready;
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/**
 * Starts `commandFor(port)` on a free port and waits for the first expected answer of `probe`; answers
 * the child, its URL and the ms from spawn to that answer (the caller stops the child). `ipc` opens an
 * IPC channel (see `mock-memory.ts`).
 */
export async function startAndTime(
  name: string,
  commandFor: (port: number) => CommandLine,
  probe: Scenario,
  options: { ipc?: boolean } = {},
): Promise<{ child: Child; url: string; ms: number }> {
  const port = await getPort({ host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const child = startChild(name, commandFor(port), options);
  await readyOrStop(child, waitForHttp(`${url}${probe.path}`, { child, request: probe, expectStatus: probe.expectStatus, intervalMs: 2 }));
  return { child, url, ms: performance.now() - startedAt };
}

/** Starts `commandFor(port)`, times it to the first answer of `probe` and takes its resident memory then; stops it. */
export async function timeStart(
  name: string,
  commandFor: (port: number) => CommandLine,
  probe: Scenario,
): Promise<{ ms: number; rss: number }> {
  const started = await startAndTime(name, commandFor, probe);
  try {
    return { ms: started.ms, rss: memoryOf(started.child).rss };
  } finally {
    await started.child.stop();
  }
}

const URL_LINE = /^(http:\/\/\S+?)\/?$/;

/**
 * Starts server `id` and waits until it is ready: the bench's own children until they print their URL
 * (the mock with an IPC channel and `mockArgs`; the proxy in front of `upstream`), Prism until it
 * answers `probe` (it prints nothing at `-v error`).
 */
export async function startServer(
  id: ServerId,
  probe: Scenario,
  { upstream, mockArgs = [] }: { upstream?: string | undefined; mockArgs?: string[] } = {},
): Promise<RunningServer> {
  if (id === 'prism') {
    const { child, url } = await startAndTime('prism', prismCommand, probe);
    return { id, url, child };
  }
  if ((id === 'proxy' || id === 'floor') && upstream === undefined)
    throw new Error(`the ${id} needs the bare server to run in front of: list bare before ${id}`);
  const child =
    id === 'mock'
      ? startChild(['mock', ...mockArgs].join(' '), mockCommand(mockArgs), { ipc: true })
      : startChild(id, benchEntry('server-child', id === 'bare' ? ['bare'] : [id, '--upstream', upstream ?? '']));
  return { id, url: await readyOrStop(child, waitForLine(child, URL_LINE)), child };
}
