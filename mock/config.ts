/**
 * The mock's typed configuration. The CLI (`mock/cli.ts`) parses argv into this; tests and the
 * conformance suite pass a partial config to `createMockServer`. Core code never reads process.argv.
 */
import { FIXTURES_DIR } from '../contract/paths.js';

export interface MockConfig {
  /** Interface to listen on. Loopback unless the user says otherwise. */
  host: string;
  /** Port to listen on; 0 picks a free port. */
  port: number;
  /** The contract to serve: a `.yaml`/`.json` OpenAPI 3.1 file. Default: the bundled contract. */
  contractPath?: string;
  /** Folder of fixture orders (`*.json`, each a full order-info answer). */
  fixturesDir: string;
  /** When non-empty, only these bearer tokens are accepted. */
  tokens: string[];
  /** Bearer tokens that are always refused with 401 (so a frontend can exercise its 401 path). */
  rejectTokens: string[];
  /** Delay added to every answer, in milliseconds. */
  latencyMs: number;
  /** Origins allowed by CORS; `*` allows any origin (API paths only: `/__mock` allows only its own origin and listed ones). */
  corsOrigins: string[];
  /** Host names (besides loopback names, IP literals and `host`) that the Host header may name; others get 421. */
  allowedHosts: string[];
  /** Append-only journal that makes recorded transfers and samples survive a restart. */
  stateFile?: string;
  /**
   * Where stored records the contract refuses (a journal or a Redis written under another contract
   * version) are moved at start; without it, such records stop the start (exit 1).
   */
  setAsideInvalid?: string;
  /** When set, `/__mock` state-changing endpoints need `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /** No per-request log line. */
  quiet: boolean;
  /** Where log lines go (default: stderr). */
  log: (line: string) => void;
  /** Largest accepted request body, in bytes (413 past it). */
  bodyLimitBytes: number;
  /** Most isolated sessions (`X-Mock-Session`) kept at once. */
  maxSessions: number;
  /** Shared state on Redis (`redis://HOST:PORT/DB`); excludes `stateFile`. */
  store?: string;
  /** Prefix of every Redis key, so several mocks can share one Redis. */
  storePrefix: string;
  /** Most records one session keeps (all resources together); 507 past it. */
  maxRecordsPerSession: number;
  /** Most bytes of recorded JSON, all sessions together; 507 past it. */
  maxRecordedBytes: number;
  /** Most request-body bytes being read at once, all connections together; 503 past it. */
  maxBodyBytesInFlight: number;
  /** Most answer bytes over 64 KiB held for clients that have not read them, all connections (one session at most half); 503 past it. */
  maxAnswerBytesInFlight: number;
  /** Most open connections; a connection past it gets a 503 and is closed. */
  maxConnections: number;
  /** Server timeouts in milliseconds; unset means the defaults of `SERVER_LIMITS` (mock/server.ts). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}

export const DEFAULT_CONFIG: MockConfig = {
  host: '127.0.0.1',
  port: 4010,
  fixturesDir: FIXTURES_DIR,
  tokens: [],
  rejectTokens: ['invalid'],
  latencyMs: 0,
  corsOrigins: ['*'],
  allowedHosts: [],
  quiet: false,
  log: (line) => process.stderr.write(`${line}\n`),
  bodyLimitBytes: 1024 * 1024,
  maxSessions: 100,
  storePrefix: 'goods-mock',
  maxRecordsPerSession: 10_000,
  maxRecordedBytes: 128 * 1024 * 1024,
  maxBodyBytesInFlight: 32 * 1024 * 1024,
  maxAnswerBytesInFlight: 96 * 1024 * 1024,
  maxConnections: 1024,
};

/** Fills the gaps of a partial config with the defaults. */
export function resolveConfig(partial: Partial<MockConfig> = {}): MockConfig {
  return { ...DEFAULT_CONFIG, ...partial };
}
