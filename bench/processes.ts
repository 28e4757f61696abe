/**
 * Child processes of the bench: every server and CLI it starts runs in its own process group
 * (`detached`), is registered here, and is stopped by `stopAll()` (SIGTERM to the group, SIGKILL
 * after a grace period) on success, on errors and on Ctrl-C; a last-resort `exit` hook SIGKILLs
 * whatever is still registered, so no server outlives the bench.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';
import { treeMemory, type TreeMemory } from './proc-memory.js';

/** True when this code runs from TypeScript source (tsx, e.g. under mocha), false when compiled. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** A command line: the program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** How to run one of the bench's own entry files (`bench/<name>.ts` or `dist/bench/<name>.js`). */
export function benchEntry(name: string, args: string[] = [], nodeOptions: string[] = []): CommandLine {
  const file = fileURLToPath(new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url));
  return { command: process.execPath, args: [...nodeOptions, ...(FROM_SOURCE ? ['--import', 'tsx'] : []), file, ...args] };
}

/**
 * How to run a project CLI (`mock/cli`, `conformance/cli`): compiled from `dist/` when the bench is
 * compiled, from source through tsx otherwise. Undefined when that entry does not exist (yet).
 */
export function projectEntry(name: string, args: string[] = []): CommandLine | undefined {
  const file = FROM_SOURCE ? join(PROJECT_ROOT, `${name}.ts`) : join(PROJECT_ROOT, 'dist', `${name}.js`);
  if (!existsSync(file)) return undefined;
  return { command: process.execPath, args: [...(FROM_SOURCE ? ['--import', 'tsx'] : []), file, ...args] };
}

/** A running child process. */
export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** The last few KiB of what it wrote (stdout and stderr), for error messages. */
  output(): string;
  /** Resident memory of its process tree. */
  memory(): TreeMemory;
  /** Stops its whole process group (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Child>();
let exitHookInstalled = false;

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

/** The number of registered (not yet stopped) children. */
export function runningCount(): number {
  return running.size;
}

const OUTPUT_KEEP = 4096;

/** Starts `line` in its own process group, from `options.cwd` (default the project root), and registers it. */
export function startChild(name: string, line: CommandLine, options: { env?: NodeJS.ProcessEnv; ipc?: boolean; cwd?: string } = {}): Child {
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
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEEP);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  let exited = false;
  const exitedPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
    proc.once('error', (error) => {
      exited = true;
      keep(Buffer.from(`\n[could not start: ${error.message}]`));
      resolve({ code: null, signal: null });
    });
  });
  const pid = proc.pid ?? -1;
  const child: Child = {
    name,
    pid,
    process: proc,
    exited: exitedPromise,
    hasExited: () => exited,
    output: () => output,
    memory: () => (exited || pid < 0 ? { rss: 0, peakRss: 0 } : treeMemory(pid)),
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

/**
 * Waits for the child to print a line matching `pattern` on stdout and answers the first capture
 * group (or the whole line). Rejects, with the child's output, when it exits first or after `timeoutMs`.
 */
export function waitForLine(child: Child, pattern: RegExp, timeoutMs = 20000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const stdout = child.process.stdout;
    const cleanup = (): void => {
      clearTimeout(timer);
      stdout?.off('data', onData);
    };
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
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
    void child.exited.then(({ code, signal }) => {
      cleanup();
      reject(new Error(`${child.name} exited (code ${code}, signal ${signal}) before it was ready; its output:\n${child.output()}`));
    });
  });
}
