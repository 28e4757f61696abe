/**
 * The mock's CLI in a child process (`support/project-cli.ts`), so a crash is seen as a crash:
 * the test knows whether the process is still alive, its exit code and signal, and everything it wrote.
 * Processes are started, watched and stopped by the shared helper `support/processes.ts`.
 */
import { runToExit, startChild, waitForLine, type Child, type CommandLine, type Exit } from '../../../support/processes.js';
import { projectCli } from '../../../support/project-cli.js';

export interface MockProcess {
  child: Child;
  url: string;
  host: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<Exit>;
  /** SIGKILL, no clean-up in the child (a crash). */
  kill(): Promise<void>;
  /** SIGTERM (graceful), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ExitedProcess extends Exit {
  stdout: string;
  stderr: string;
}

/** The mock's CLI with `args`, compiled or from source (`projectCli`). */
export function mockCli(args: string[]): CommandLine {
  return projectCli('mock/cli', args);
}

const ENV = { ...process.env, PORT: '' };

/** Starts `goods-mock --port 0 ...args` and resolves once it printed its URL (rejects if it exits first). */
export async function startMockProcess(args: string[], readyTimeoutMs = 20_000): Promise<MockProcess> {
  const child = startChild('goods-mock', mockCli(['--port', '0', ...args]), { env: ENV });
  let url: string;
  try {
    url = await waitForLine(child, /listening on (http:\/\/\S+)/, readyTimeoutMs);
  } catch (error) {
    await child.stop();
    throw error;
  }
  const parsed = new URL(url);
  return {
    child,
    url,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port),
    stdout: () => child.stdout(),
    stderr: () => child.stderr(),
    alive: () => !child.hasExited(),
    exited: child.exited,
    kill: async () => {
      await child.kill();
      await child.stop();
    },
    stop: (graceMs = 5000) => child.stop(graceMs),
  };
}

/** Runs the CLI expecting it to exit by itself (e.g. a start-up failure); kills it after `timeoutMs`. */
export async function runMockToExit(args: string[], timeoutMs = 20_000): Promise<ExitedProcess> {
  const { code, signal, stdout, stderr } = await runToExit('goods-mock', mockCli(args), { env: ENV, timeoutMs });
  return { code, signal, stdout, stderr };
}
