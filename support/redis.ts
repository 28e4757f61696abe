/**
 * A real redis-server (Debian's `redis-server`, the one on PATH the prerequisite check finds) for the tests and the bench: on a loopback port outside the free-port range (`closedPort`), in its own
 * temporary directory, append-only file on (`appendfsync` as asked), no RDB snapshots. `kill()` is a
 * `kill -9`; `start()` again runs a new server on the same port and directory (so it loads the AOF);
 * `freeze()`/`thaw()` are SIGSTOP/SIGCONT (a Redis that stops answering without closing a connection).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from './loopback.js';
import { startChild, waitForLine, type Child } from './processes.js';
import { requireSystemTool, systemTool } from './system-tools.js';

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** True while the server process runs. */
  running(): boolean;
  /** Its process id (-1 before it started). */
  pid(): number;
  /** Starts the server again (after `kill()` or `stop()`), on the same port and directory. */
  start(): Promise<void>;
  /** SIGKILL: no shutdown, no final fsync. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown). */
  stop(): Promise<void>;
  /** SIGSTOP: the server is frozen (connections stay open, nothing is answered) until `thaw()`. */
  freeze(): void;
  /** SIGCONT after `freeze()`. */
  thaw(): void;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

export function redisAvailable(): boolean {
  return systemTool('redis-server') !== undefined;
}

export async function startRedis(options: { appendfsync?: 'always' | 'everysec' } = {}): Promise<TestRedis> {
  const command = requireSystemTool('redis-server');
  const dir = await mkdtemp(join(tmpdir(), 'test-redis-'));
  // Below the free-port range: no connection or listen(0) takes it while the server is down between restarts.
  const port = await closedPort();
  let child: Child | undefined;

  const start = async (): Promise<void> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      options.appendfsync ?? 'always',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ];
    child = startChild('redis-server', { command, args });
    await waitForLine(child, /Ready to accept connections/, 10_000);
  };
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child && !child.hasExited()) {
      child.process.kill(name);
      await child.exited;
    }
    await child?.stop();
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    running: () => child !== undefined && !child.hasExited(),
    pid: () => child?.pid ?? -1,
    start,
    kill: () => signal('SIGKILL'),
    freeze: () => child?.process.kill('SIGSTOP'),
    thaw: () => child?.process.kill('SIGCONT'),
    stop: () => signal('SIGTERM'),
    async dispose() {
      await signal('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
