/**
 * The Redis store's row: the same mock child, once in memory and once on Redis
 * (`--store`, Debian's redis-server with `appendonly yes`, `appendfsync always`, in a temporary
 * directory on a free loopback port), loaded with lot-transfer creates in alternating rounds. Reports
 * req/s, p99 and CPU per create of the mock, and of Redis, for both; the ratio is Redis ÷ memory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';
import { median, rotate, runLoad, total, wrongOf } from './load.js';
import { treeCpuMs } from '../support/proc-cpu.js';
import { startChild, waitForLine, type Child } from '../support/processes.js';
import type { Scenario } from './scenarios.js';
import { startServer } from './servers.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface StoreRun {
  okPerSec: number;
  p99Ms: number;
  /** The mock's CPU per create, µs. */
  mockCpuUsPerCreate: number;
  /** Redis's CPU per create, µs (0 for the memory store). */
  redisCpuUsPerCreate: number;
  answers: number;
  wrong: number;
}

export interface RedisStoreResult {
  appendfsync: 'always';
  memory: StoreRun;
  redis: StoreRun;
  /** req/s on Redis ÷ req/s in memory. */
  ratio: number;
}

export interface RedisStorePlan {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
}

export async function measureRedisStore(transfer: Scenario, plan: RedisStorePlan): Promise<RedisStoreResult | undefined> {
  if (!existsSync(REDIS_SERVER)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const children: Child[] = [];
  try {
    const port = await getPort({ host: '127.0.0.1' });
    const redis = startChild('redis-server', {
      command: REDIS_SERVER,
      args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
    });
    children.push(redis);
    await waitForLine(redis, /Ready to accept connections/);
    const memory = await startServer('mock', transfer);
    children.push(memory.child);
    const shared = await startServer('mock', transfer, { mockArgs: ['--store', `redis://127.0.0.1:${port}/0`] });
    children.push(shared.child);
    const targets = [
      { ...memory, id: 'memory' as const },
      { ...shared, id: 'redis' as const },
    ];
    for (const target of targets) await runLoad(target.url, transfer, { connections: plan.connections, durationMs: plan.warmupMs });
    const runs = { memory: [] as StoreRun[], redis: [] as StoreRun[] };
    for (let round = 0; round < plan.rounds; round++) {
      for (const target of rotate(targets, round)) {
        const mockBefore = treeCpuMs(target.child.pid);
        const redisBefore = treeCpuMs(redis.pid);
        const run = await runLoad(target.url, transfer, { connections: plan.connections, durationMs: plan.durationMs });
        const creates = Math.max(1, run.ok);
        runs[target.id].push({
          okPerSec: run.okPerSec,
          p99Ms: run.p99Ms,
          mockCpuUsPerCreate: ((treeCpuMs(target.child.pid) - mockBefore) * 1000) / creates,
          redisCpuUsPerCreate: target.id === 'redis' ? ((treeCpuMs(redis.pid) - redisBefore) * 1000) / creates : 0,
          answers: run.answers,
          wrong: wrongOf(run),
        });
      }
    }
    const summary = (list: StoreRun[]): StoreRun => ({
      okPerSec: median(list.map((r) => r.okPerSec)),
      p99Ms: median(list.map((r) => r.p99Ms)),
      mockCpuUsPerCreate: median(list.map((r) => r.mockCpuUsPerCreate)),
      redisCpuUsPerCreate: median(list.map((r) => r.redisCpuUsPerCreate)),
      answers: total(list, (r) => r.answers),
      wrong: total(list, (r) => r.wrong),
    });
    const inMemory = summary(runs.memory);
    const onRedis = summary(runs.redis);
    return {
      appendfsync: 'always',
      memory: inMemory,
      redis: onRedis,
      ratio: inMemory.okPerSec > 0 ? onRedis.okPerSec / inMemory.okPerSec : 0,
    };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}
