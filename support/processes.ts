/**
 * The one child-process helper of the bench and the tests. Every program is started in its own
 * process group (`detached`), its stdout and stderr are collected, it is registered here and stopped
 * by `stop()` (SIGTERM to the group, SIGKILL after a grace period) or `stopAll()`; a last-resort `exit`
 * hook SIGKILLs whatever is still registered, so no server outlives the process that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../contract/paths.js';

/** A command line: the program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  /** The whole environment of the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Its working directory (default: the project root). */
  cwd?: string;
  /** Open an IPC channel (`child.process.send`). */
  ipc?: boolean;
}

/** A running (or ended) child process. */
export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Resolves when the process has exited and its stdout and stderr are read to the end. */
  closed: Promise<Exit>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** Everything it wrote on stdout (the last MiB). */
  stdout(): string;
  /** Everything it wrote on stderr (the last MiB). */
  stderr(): string;
  /** Both streams as they came (the last MiB), for error messages. */
  output(): string;
  /** SIGKILL to its process group, no clean-up in the child (a crash); resolves once it has exited. */
  kill(): Promise<Exit>;
  /** Stops its whole process group (SIGTERM, then SIGKILL after `graceMs`); safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Child>();
let exitHookInstalled = false;
const KEEP = 1024 * 1024;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** SIGKILLs every registered process group at once (synchronous; for the `exit` hook). */
export function killAllNow(): void {
  for (const child of running) killGroup(child.pid, 'SIGKILL');
  running.clear();
}

/** Stops every registered child process. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}

/** True while a process with this pid exists (signal 0: nothing is sent; a zombie nobody waited for counts). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The number of registered (not yet stopped) children. */
export function runningCount(): number {
  return running.size;
}

/** Starts `line` in its own process group and registers it. */
export function startChild(name: string, line: CommandLine, options: StartOptions = {}): Child {
  if (!exitHookInstalled) {
    process.once('exit', killAllNow);
    exitHookInstalled = true;
  }
  const proc = spawn(line.command, line.args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: options.env ?? process.env,
    detached: true,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const text = { stdout: '', stderr: '', both: '' };
  const keep =
    (stream: 'stdout' | 'stderr') =>
    (chunk: string): void => {
      text[stream] = (text[stream] + chunk).slice(-KEEP);
      text.both = (text.both + chunk).slice(-KEEP);
    };
  proc.stdout?.setEncoding('utf8').on('data', keep('stdout'));
  proc.stderr?.setEncoding('utf8').on('data', keep('stderr'));
  let exited = false;
  const exitedPromise = new Promise<Exit>((resolve) => {
    proc.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
    proc.once('error', (error) => {
      exited = true;
      keep('stderr')(`\n[could not start: ${error.message}]`);
      resolve({ code: null, signal: null });
    });
  });
  const closed = new Promise<Exit>((resolve) => {
    proc.once('close', (code, signal) => resolve({ code, signal }));
    proc.once('error', () => resolve({ code: null, signal: null }));
  });
  const pid = proc.pid ?? -1;
  const child: Child = {
    name,
    pid,
    process: proc,
    exited: exitedPromise,
    closed,
    hasExited: () => exited,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    output: () => text.both,
    async kill() {
      if (pid >= 0) killGroup(pid, 'SIGKILL');
      return exitedPromise;
    },
    async stop(graceMs = 3000) {
      running.delete(child);
      if (pid < 0) return;
      // the group may hold descendants even when the leader has exited
      killGroup(pid, 'SIGTERM');
      if (!exited) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          exitedPromise.then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
        ]);
        clearTimeout(timer);
        if (timedOut) killGroup(pid, 'SIGKILL');
        await exitedPromise;
      }
      killGroup(pid, 'SIGKILL');
      proc.stdout?.destroy();
      proc.stderr?.destroy();
      if (proc.connected) proc.disconnect();
    },
  };
  if (pid >= 0) running.add(child);
  return child;
}

/** What a program that ran to its end left: exit, output, and whether it was killed for taking too long. */
export interface Finished extends Exit {
  stdout: string;
  stderr: string;
  output: string;
  timedOut: boolean;
}

/** Runs `line` to its end; after `timeoutMs` its group is killed (`timedOut`). */
export async function runToExit(name: string, line: CommandLine, options: StartOptions & { timeoutMs?: number } = {}): Promise<Finished> {
  const child = startChild(name, line, options);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void child.kill();
  }, options.timeoutMs ?? 120_000);
  try {
    const exit = await child.closed;
    return { ...exit, stdout: child.stdout(), stderr: child.stderr(), output: child.output(), timedOut };
  } finally {
    clearTimeout(timer);
    await child.stop();
  }
}

/**
 * Waits for the child to print a line matching `pattern` on stdout and answers the first capture
 * group (or the whole line). Rejects, with the child's output, when it exits first or after `timeoutMs`.
 */
export function waitForLine(child: Child, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdout = child.process.stdout;
    // what it printed before this call, then every chunk as it comes
    let buffered = '';
    const cleanup = (): void => {
      clearTimeout(timer);
      stdout?.off('data', onData);
    };
    const onData = (chunk: string): void => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = pattern.exec(line.trim());
        if (match) {
          cleanup();
          resolve(match[1] ?? match[0]);
          return;
        }
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${child.name} printed no line matching ${String(pattern)} within ${timeoutMs} ms; its output:\n${child.output()}`));
    }, timeoutMs);
    stdout?.on('data', onData);
    onData(child.stdout());
    void child.exited.then(({ code, signal }) => {
      cleanup();
      reject(new Error(`${child.name} exited (code ${code}, signal ${signal}) before it was ready; its output:\n${child.output()}`));
    });
  });
}
