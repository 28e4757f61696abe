/** The mock's public API: used by tests, the conformance suite (in-process run), the benchmark and the browser tests. */
export { createMockServer, SERVER_LIMITS, type MockServer, type ServerConfig } from './server.js';
export { DEFAULT_CONFIG, resolveConfig, type MockConfig } from './config.js';
/** The header a `POST /__mock/reset` must carry (a plain cross-site form cannot send it). */
export { RESET_HEADER } from './control-guard.js';
