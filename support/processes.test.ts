import assert from 'node:assert/strict';
import { pidExists, runningCount, runToExit, startChild, stopAll, waitForLine } from './processes.js';
import { until } from './wait.js';

/** A node process that starts a grandchild, prints both pids, then ignores SIGTERM (so SIGKILL must follow). */
const PARENT_SCRIPT = `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.on('SIGTERM', () => {});
console.log('pids ' + process.pid + ' ' + grandchild.pid);
setInterval(() => {}, 1000);
`;

const node = (script: string) => ({ command: process.execPath, args: ['-e', script] });

describe('support/processes: the child-process helper', () => {
  afterEach(async () => {
    await stopAll();
  });

  it('stops the whole group, grandchild included, even when SIGTERM is ignored', async () => {
    const child = startChild('tree', node(PARENT_SCRIPT));
    const line = await waitForLine(child, /^pids (\d+ \d+)$/);
    const [parentPid, grandchildPid] = line.split(' ').map(Number) as [number, number];
    assert.equal(parentPid, child.pid);
    assert.equal(runningCount(), 1);
    await child.stop(300);
    assert.equal(runningCount(), 0);
    assert.equal(pidExists(child.pid), false, 'the child survived');
    await until(() => !pidExists(grandchildPid), { what: 'the grandchild to end', timeoutMs: 1000 });
  });

  it('waitForLine rejects with the output when the child exits first', async () => {
    const child = startChild('early-exit', node('console.error("boom"); process.exit(3)'));
    await assert.rejects(waitForLine(child, /^never$/), /exited \(code 3.*boom/s);
  });

  it('waitForLine finds a line printed before it was called', async () => {
    const child = startChild('early-line', node('console.log("ready at 1"); setInterval(() => {}, 1000)'));
    await until(() => child.stdout().includes('ready'), { what: 'the line' });
    assert.equal(await waitForLine(child, /^ready at (\d+)$/), '1');
  });

  it('runToExit collects stdout and stderr apart and whole, with the exit code', async () => {
    const big = 'x'.repeat(200_000);
    const done = await runToExit('streams', node("process.stdout.write('x'.repeat(200000)); console.error('err'); process.exitCode = 4"));
    assert.deepEqual(
      { code: done.code, signal: done.signal, out: done.stdout.length, err: done.stderr, timedOut: done.timedOut },
      { code: 4, signal: null, out: 200_000, err: 'err\n', timedOut: false },
    );
    // Both streams as they came: stderr's line may fall between two chunks of stdout.
    assert.ok(done.output.includes('err\n'));
    assert.equal(done.output.replace('err\n', ''), big);
    assert.equal(runningCount(), 0);
  });

  it('runToExit kills a program that runs past its time-out', async () => {
    const done = await runToExit('hang', node('setInterval(() => {}, 1000)'), { timeoutMs: 300 });
    assert.equal(done.timedOut, true);
    assert.equal(done.signal, 'SIGKILL');
  });

  it('kill() is a SIGKILL to the group', async () => {
    const child = startChild('victim', node('process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'));
    assert.deepEqual(await child.kill(), { code: null, signal: 'SIGKILL' });
  });
});
