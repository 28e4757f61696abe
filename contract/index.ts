/** The contract: the single source of truth that `mock/` and `conformance/` build on. */
export * from './document.js';
export * from './levels.js';
export * from './schemas.js';
export * from './fixtures.js';
export * from './paths.js';
export type { components, paths, operations } from './generated/types.js';
