/** Opens the store the configuration names: Redis (`--store`), the journal (`--state-file`) or memory. */
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
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
  log: (line: string) => void;
}

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.store !== undefined) {
    if (config.stateFile !== undefined) throw new Error('--store and --state-file exclude each other: the state lives in one of them');
    return RedisStore.open({
      url: config.store,
      prefix: config.storePrefix,
      limits: config.limits,
      resources: config.resources,
      log: config.log,
      ...(config.outcomeWaitMs !== undefined ? { outcomeWaitMs: config.outcomeWaitMs } : {}),
    });
  }
  return MemoryStore.open({
    limits: config.limits,
    resources: config.resources,
    log: config.log,
    ...(config.stateFile !== undefined ? { stateFile: config.stateFile } : {}),
    ...(config.bodyLimitBytes !== undefined ? { bodyLimitBytes: config.bodyLimitBytes } : {}),
  });
}

export type { Store, StoreHealth, StoreLimits, RecordPlan, ListPage, StoredResource, ReplaceOutcome } from './types.js';
export { DEFAULT_SESSION } from './types.js';
