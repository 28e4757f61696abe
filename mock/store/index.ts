/** Opens the store the configuration names: Redis (`--store`), the journal (`--state-file`) or memory. */
import type { RecordCheck } from '../record-check.js';
import { MemoryStore } from './memory.js';
import type { Store, StoreLimits, StoredResource } from './types.js';

export interface StoreConfig {
  store?: string;
  storePrefix: string;
  stateFile?: string;
  /** The request body limit (bounds a sane journal line). */
  bodyLimitBytes?: number;
  /** How long a change sent to Redis is waited for (the request's time limit). */
  outcomeWaitMs?: number;
  limits: StoreLimits;
  /** The recorded resources: the counter slots of their records and their key member. */
  resources: Map<string, StoredResource>;
  /** Checks stored records (a replayed journal, Redis) against the contract in force before any is served. */
  check?: RecordCheck;
  /** What `check` stands for (`recordStamp`): the journal does not check again what it checked under it. */
  stamp?: string;
  /** `--set-aside-invalid FILE`: where records the check refuses are moved; without it they refuse the start. */
  setAside?: string;
  log: (line: string) => void;
}

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.store !== undefined) {
    if (config.stateFile !== undefined) throw new Error('--store and --state-file exclude each other: the state lives in one of them');
    // Loaded only for a Redis store: the Redis client is the largest module of the mock's start-up.
    const { RedisStore } = await import('./redis.js');
    return RedisStore.open({
      url: config.store,
      prefix: config.storePrefix,
      limits: config.limits,
      resources: config.resources,
      log: config.log,
      ...(config.outcomeWaitMs !== undefined ? { outcomeWaitMs: config.outcomeWaitMs } : {}),
      ...(config.check ? { check: config.check } : {}),
      ...(config.setAside !== undefined ? { setAside: config.setAside } : {}),
    });
  }
  return MemoryStore.open({
    limits: config.limits,
    resources: config.resources,
    log: config.log,
    ...(config.stateFile !== undefined ? { stateFile: config.stateFile } : {}),
    ...(config.bodyLimitBytes !== undefined ? { bodyLimitBytes: config.bodyLimitBytes } : {}),
    ...(config.check ? { check: config.check } : {}),
    ...(config.stamp !== undefined ? { stamp: config.stamp } : {}),
    ...(config.setAside !== undefined ? { setAside: config.setAside } : {}),
  });
}

export type { Store, StoreHealth, StoreLimits, RecordPlan, ListPage, StoredResource, ReplaceOutcome } from './types.js';
export { DEFAULT_SESSION } from './types.js';
