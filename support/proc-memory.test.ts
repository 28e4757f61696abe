import assert from 'node:assert/strict';
import { startChild, stopAll, waitForLine } from './processes.js';
import { statTicks, treeCpuMs } from './proc-cpu.js';
import { processTree, statusField, treeMemory } from './proc-memory.js';

/** A node process that starts a grandchild and prints both pids. */
const PARENT_SCRIPT = `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('pids ' + process.pid + ' ' + grandchild.pid);
setInterval(() => {}, 1000);
`;

describe('support/proc-memory and support/proc-cpu', () => {
  afterEach(async () => {
    await stopAll();
  });

  it('reads VmRSS/VmHWM lines in bytes, and 0 for a missing field', () => {
    assert.equal(statusField('Name:\tnode\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n', 'VmRSS'), 1024 * 1024);
    assert.equal(statusField('Name:\tnode\nVmHWM:\t  2048 kB\n', 'VmHWM'), 2048 * 1024);
    assert.equal(statusField('Name:\tnode\n', 'VmRSS'), 0);
  });

  it('reads utime + stime from a stat line, also when the command name has spaces and parentheses', () => {
    const rest = 'R 1 1 1 0 -1 4194304 2181 0 0 0 7 3 0 0 20 0 7 0 256924';
    assert.equal(statTicks(`42 (node) ${rest}`), 10);
    assert.equal(statTicks(`42 (my (odd) name) ${rest}`), 10);
    assert.ok(treeCpuMs(process.pid) > 0, 'this test process has used no CPU time');
  });

  it('measures a child process tree, grandchild included', async () => {
    const child = startChild('tree', { command: process.execPath, args: ['-e', PARENT_SCRIPT] });
    const line = await waitForLine(child, /^pids (\d+ \d+)$/);
    const [parentPid, grandchildPid] = line.split(' ').map(Number) as [number, number];
    assert.equal(parentPid, child.pid);
    assert.ok(processTree(child.pid).includes(grandchildPid), 'the grandchild is not in the tree');
    const memory = treeMemory(child.pid);
    assert.ok(memory.rss > 0 && memory.peakRss >= memory.rss);
  });
});
