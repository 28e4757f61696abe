/**
 * The Redis store's row: the same mock child, once in memory and once on Redis (`--store`; Debian's
 * redis-server with `appendonly yes`, `appendfsync always`, from `support/redis.ts`), loaded with
 * lot-transfer creates in alternating rounds. Reports req/s, p99 and CPU per create of the mock, and
 * of Redis, for both; the ratio is Redis ÷ memory.
 */
import { treeCpuMs } from '../support/proc-cpu.js';
import type { Child } from '../support/processes.js';
import { redisAvailable, startRedis, type TestRedis } from '../support/redis.js';
import { median, rotate, runLoad, total, wrongOf } from './load.js';
import type { Scenario } from './scenarios.js';
import { startServer } from './servers.js';

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
  if (!redisAvailable()) return undefined;
  const children: Child[] = [];
  let redis: TestRedis | undefined;
  try {
    redis = await startRedis({ appendfsync: 'always' });
    const memory = await startServer('mock', transfer);
    children.push(memory.child);
    const shared = await startServer('mock', transfer, { mockArgs: ['--store', redis.url] });
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
        const redisBefore = treeCpuMs(redis.pid());
        const run = await runLoad(target.url, transfer, { connections: plan.connections, durationMs: plan.durationMs });
        const creates = Math.max(1, run.ok);
        runs[target.id].push({
          okPerSec: run.okPerSec,
          p99Ms: run.p99Ms,
          mockCpuUsPerCreate: ((treeCpuMs(target.child.pid) - mockBefore) * 1000) / creates,
          redisCpuUsPerCreate: target.id === 'redis' ? ((treeCpuMs(redis.pid()) - redisBefore) * 1000) / creates : 0,
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
    await redis?.dispose();
  }
}
