/**
 * The servers under test, each started in its own child process on a free loopback port:
 * the mock (through its public API, `mock-server-child`), Prism's CLI (`prism mock`), the bare
 * `node:http` server (`bare-server-child`) and the validating proxy in front of that bare server
 * (`proxy-server-child`).
 */
import { join } from 'node:path';
import { CONTRACT_YAML_PATH, PROJECT_ROOT } from '../contract/paths.js';
import { freePort } from '../support/free-port.js';
import { waitUntilAnswered } from './http-probe.js';
import { startChild, waitForLine, type Child, type CommandLine } from '../support/processes.js';
import { benchEntry } from './processes.js';
import type { Scenario } from './scenarios.js';

export type ServerId = 'mock' | 'prism' | 'bare' | 'proxy';

/** `proxy` is `goods-mock --proxy` in front of the bare server (started after it). */
export const SERVER_IDS: readonly ServerId[] = ['mock', 'prism', 'bare', 'proxy'];

/** A server under test. */
export interface RunningServer {
  id: ServerId;
  url: string;
  child: Child;
}

const URL_LINE = /^(http:\/\/\S+?)\/?$/;

/** Prism's CLI, run by this Node. */
export function prismCommand(port: number): CommandLine {
  return {
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
  };
}

/** The mock in a child process (IPC channel and `--expose-gc`, so it can report its memory after a GC). */
export function startMockChild(args: string[] = []): Child {
  return startChild('mock', benchEntry('mock-server-child', args, ['--expose-gc']), { ipc: true });
}

/**
 * Starts server `id` and waits until it is ready: for the mock and the bare server, until they print
 * their URL; for Prism, until it answers `probe` (it prints nothing at `-v error`).
 */
export async function startServer(id: ServerId, probe: Scenario, upstream?: string): Promise<RunningServer> {
  if (id === 'proxy' && upstream === undefined)
    throw new Error('the proxy needs the bare server to run in front of: list bare before proxy');
  if (id === 'prism') {
    const port = await freePort();
    const child = startChild('prism', prismCommand(port));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitUntilAnswered(`${url}${probe.path}`, probe, {
        expectStatus: probe.expectStatus,
        startedAt: performance.now(),
        timeoutMs: 30000,
        intervalMs: 20,
        gaveUp: () => (child.hasExited() ? `prism exited: ${child.output()}` : undefined),
      });
    } catch (error) {
      await child.stop();
      throw error;
    }
    return { id, url, child };
  }
  const child =
    id === 'mock'
      ? startMockChild()
      : id === 'proxy'
        ? startChild('proxy', benchEntry('proxy-server-child', ['--upstream', upstream ?? '']))
        : startChild('bare', benchEntry('bare-server-child'));
  try {
    const url = await waitForLine(child, URL_LINE);
    return { id, url, child };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
