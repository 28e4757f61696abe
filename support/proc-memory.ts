/**
 * Memory of a process tree, read from Linux `/proc`: the resident set (VmRSS) now and its high-water
 * mark (VmHWM), summed over a process and all its descendants (a server that forks workers is
 * measured whole). Values are bytes; a process that has exited counts as 0.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of a process tree, in bytes. */
export interface TreeMemory {
  /** Sum of VmRSS (resident now). */
  rss: number;
  /** Sum of VmHWM (each process's peak resident set so far). */
  peakRss: number;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** One `Vm*:  1234 kB` field of `/proc/<pid>/status`, in bytes (0 when the process is gone). */
export function statusField(status: string, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
}

/** The pids of `pid` and all its descendants (read from the `children` file of each of its threads in `/proc`). */
export function processTree(pid: number): number[] {
  const seen: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined || seen.includes(next)) continue;
    seen.push(next);
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${next}/task`);
    } catch {
      continue;
    }
    for (const thread of threads) {
      const children = readText(`/proc/${next}/task/${thread}/children`) ?? '';
      for (const child of children.split(/\s+/).filter(Boolean)) queue.push(Number(child));
    }
  }
  return seen;
}

/** The resident memory of `pid` and its descendants. */
export function treeMemory(pid: number): TreeMemory {
  let rss = 0;
  let peakRss = 0;
  for (const member of processTree(pid)) {
    const status = readText(`/proc/${member}/status`);
    if (status === undefined) continue;
    rss += statusField(status, 'VmRSS');
    peakRss += statusField(status, 'VmHWM');
  }
  return { rss, peakRss };
}
