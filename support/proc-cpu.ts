/**
 * CPU time of a process tree, read from Linux `/proc/<pid>/stat` (user + system time, summed over
 * the process and its descendants), in milliseconds. Resolution: one clock tick (usually 10 ms).
 */
import { readFileSync } from 'node:fs';
import { processTree } from './proc-memory.js';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on Linux on every common architecture). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of one `/proc/<pid>/stat` line, in clock ticks (0 when it cannot be read). */
export function statTicks(stat: string): number {
  // the command name (field 2) is in parentheses and may contain spaces: parse after the last ')'
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after the name: field 3 (state) is index 0, so utime (14) is index 11 and stime (15) is index 12
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : 0;
}

/**
 * CPU time used so far by this process and by the children it has waited for (utime, stime, cutime
 * and cstime of `/proc/self/stat`), in ms: what a stretch of a test run cost, CLIs it ran included.
 */
export function selfAndReapedCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + (Number(fields[index]) || 0), 0);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** CPU time used so far by `pid` and its descendants, in ms. */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      ticks += statTicks(readFileSync(`/proc/${member}/stat`, 'utf8'));
    } catch {
      // exited
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}
