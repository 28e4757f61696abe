/**
 * The bench's command lines: its own entry files, from TypeScript source under tsx (mocha) or
 * compiled from `dist/` (`npm run bench`), Prism and `npm start`; the project CLIs are
 * `support/project-cli.ts`. Starting, waiting and
 * stopping are `support/processes.ts`; the memory of a child's process tree is `support/proc-memory.ts`.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_YAML_PATH, PROJECT_ROOT } from '../contract/paths.js';
import type { Child, CommandLine } from '../support/processes.js';
import { treeMemory, type TreeMemory } from '../support/proc-memory.js';
import { FROM_SOURCE } from '../support/project-cli.js';

function nodeEntry(file: string, args: string[], nodeOptions: string[] = []): CommandLine {
  return { command: process.execPath, args: [...nodeOptions, ...(FROM_SOURCE ? ['--import', 'tsx'] : []), file, ...args] };
}

/** How to run one of the bench's own entry files (`bench/<name>.ts` or `dist/bench/<name>.js`). */
export function benchEntry(name: string, args: string[] = [], nodeOptions: string[] = []): CommandLine {
  return nodeEntry(fileURLToPath(new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url)), args, nodeOptions);
}

/** The mock's bench child with `args` (`--expose-gc`, so that with an IPC channel it can report its memory after a GC). */
export function mockCommand(args: string[] = []): CommandLine {
  return benchEntry('server-child', ['mock', ...args], ['--expose-gc']);
}

/** Prism's CLI, run by this Node. */
export function prismCommand(port: number): CommandLine {
  const prism = join(PROJECT_ROOT, 'node_modules', '.bin', 'prism');
  return { command: process.execPath, args: [prism, 'mock', CONTRACT_YAML_PATH, '-v', 'error', '-h', '127.0.0.1', '-p', String(port)] };
}

/** `npm start -- --port P --quiet` (through the npm that runs the bench, when it does). */
export function npmStartCommand(port: number): CommandLine {
  const args = ['start', '--silent', '--', '--port', String(port), '--quiet'];
  const npmCli = process.env['npm_execpath'];
  return npmCli?.endsWith('.js') ? { command: process.execPath, args: [npmCli, ...args] } : { command: 'npm', args };
}

/** Resident memory of a child's process tree (0 once it has exited). */
export function memoryOf(child: Child): TreeMemory {
  return child.hasExited() || child.pid < 0 ? { rss: 0, peakRss: 0 } : treeMemory(child.pid);
}
