/** The typed client, exported by the package as `goods-contract-harness/client`. */
export * from './goods-client.js';
export type { components, paths, operations } from '../contract/generated/types.js';
