/**
 * A real redis-server (Debian's `/usr/bin/redis-server`) for tests: on a free loopback port, in its own
 * temporary directory, append-only file on (`appendfsync` as asked), no RDB snapshots. `kill()` is a
 * `kill -9`; `start()` again runs a new server on the same port and directory (so it loads the AOF).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/free-port.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** True while the server process runs. */
  running(): boolean;
  /** Starts the server again (after `kill()` or `stop()`), on the same port and directory. */
  start(): Promise<void>;
  /** SIGKILL: no shutdown, no final fsync. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown). */
  stop(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

export function redisAvailable(): boolean {
  return existsSync(REDIS_SERVER);
}

export async function startRedis(options: { appendfsync?: 'always' | 'everysec' } = {}): Promise<TestRedis> {
  if (!redisAvailable()) throw new Error(`${REDIS_SERVER} is missing: install Debian's redis-server (.ci/run does)`);
  const dir = await mkdtemp(join(tmpdir(), 'test-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

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
    const started = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${out}`)), 10_000);
      started.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}) before it was ready: ${out}`));
      });
    });
  };
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill(name);
      await exited;
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    start,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
    async dispose() {
      await signal('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
