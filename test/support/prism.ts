/**
 * Prism (`@stoplight/prism-cli`) as a child process for tests: `prism mock` or `prism proxy` on a free
 * loopback port, in its own process group, ready once it answers HTTP, stopped with TERM then KILL.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { closedPort } from '../../support/loopback.js';
import { startChild, type Child } from '../../support/processes.js';
import { waitForHttp } from '../../support/wait.js';

const PRISM = join(PROJECT_ROOT, 'node_modules', '.bin', 'prism');

export interface PrismProcess {
  url: string;
  child: Child;
  /** What Prism printed (the last MiB). */
  output(): string;
  /** Stops Prism and anything it started (its process group); safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `prism <args...> -h 127.0.0.1 -p <free port>` and waits until it answers a GET of
 * `readyPath` (any status) or `readyWithinMs` passes (then it is stopped and this rejects with its output).
 */
export async function startPrism(args: string[], readyPath = '/', readyWithinMs = 60_000): Promise<PrismProcess> {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  const child = startChild(`prism ${args[0] ?? ''}`, { command: PRISM, args: [...args, '-h', '127.0.0.1', '-p', String(port)] });
  try {
    await waitForHttp(`${url}${readyPath}`, { child, timeoutMs: readyWithinMs });
  } catch (error) {
    await child.stop(5_000);
    throw error;
  }
  return { url, child, output: () => child.output(), stop: () => child.stop(5_000) };
}
