/**
 * The bench's own command lines: its entry files and the project CLIs, from TypeScript source under
 * tsx (mocha) or compiled from `dist/` (`npm run bench`). Starting, waiting and stopping are
 * `support/processes.ts`; the memory of a child's process tree is `proc-memory.ts`.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';
import type { Child, CommandLine } from '../support/processes.js';
import { treeMemory, type TreeMemory } from '../support/proc-memory.js';

/** True when this code runs from TypeScript source (tsx, e.g. under mocha), false when compiled. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** How to run one of the bench's own entry files (`bench/<name>.ts` or `dist/bench/<name>.js`). */
export function benchEntry(name: string, args: string[] = [], nodeOptions: string[] = []): CommandLine {
  const file = fileURLToPath(new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url));
  return { command: process.execPath, args: [...nodeOptions, ...(FROM_SOURCE ? ['--import', 'tsx'] : []), file, ...args] };
}

/**
 * How to run a project CLI (`mock/cli`, `conformance/cli`): compiled from `dist/` when the bench is
 * compiled (`npm run bench` builds first), from source through tsx otherwise.
 */
export function projectEntry(name: string, args: string[] = []): CommandLine {
  const file = FROM_SOURCE ? join(PROJECT_ROOT, `${name}.ts`) : join(PROJECT_ROOT, 'dist', `${name}.js`);
  return { command: process.execPath, args: [...(FROM_SOURCE ? ['--import', 'tsx'] : []), file, ...args] };
}

/** Resident memory of a child's process tree (0 once it has exited). */
export function memoryOf(child: Child): TreeMemory {
  return child.hasExited() || child.pid < 0 ? { rss: 0, peakRss: 0 } : treeMemory(child.pid);
}
