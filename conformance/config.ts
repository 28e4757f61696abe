/**
 * The conformance run's typed configuration: the one place where the target is chosen. The CLI
 * (`conformance/cli.ts`) builds it from argv (`args.ts`); tests build it directly. Core code never
 * reads process.argv.
 */
import type { Level } from '../contract/levels.js';

/** `console`: the human report on the console (always printed); the others write a file each. */
export const REPORTERS = ['console', 'json', 'junit', 'html'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** Names `--reporter` still accepts for a reporter (`spec`, its name before `console`: it shared a word with `--level spec`). */
export const REPORTER_ALIASES: Readonly<Record<string, ReporterName>> = { spec: 'console' };

/** The reporter a `--reporter` name means (its own name or an alias), or undefined for an unknown name. */
export function reporterNamed(name: string): ReporterName | undefined {
  return REPORTERS.find((reporter) => reporter === name) ?? REPORTER_ALIASES[name];
}

export interface ConformanceConfig {
  /** The server under test. Absent: the mock is started in-process on a free loopback port. */
  baseUrl?: string;
  /**
   * `--contract FILE`: the OpenAPI 3.1 contract (`.yaml` or `.json`) to judge against, read from the
   * current folder by the loader `goods-mock --contract` uses; the in-process mock serves the same file.
   * Absent: the bundled contract.
   */
  contractPath?: string;
  /**
   * `--ca FILE`: a PEM bundle of certificates trusted for https:// besides Node's bundled CAs (read from
   * the current folder by `ca-option.ts`). Absent: only the bundled CAs. Verification is never off.
   */
  caPath?: string;
  /** The bearer token the server accepts (and the credential of every security scheme without its own `--credential`). */
  token: string;
  /** `--credential NAME=VALUE`: the credential of one security scheme of the contract (an API key, `user:password` for Basic). */
  credentials: Record<string, string>;
  /** A token the server must refuse (401 at `strict`, no 2xx at `spec`). */
  rejectedToken: string;
  /** An existing order; its `lots` give the `fk_lot_id` of every create request. */
  orderNumber: string;
  /** An order number no order has (404 at `strict`; never another order at `spec`). */
  unknownOrderNumber: string;
  /** `spec`: only the specification's facts; `strict`: plus the project's profile. */
  level: Level;
  /** Send no POST request at all: every check that writes is reported as skipped. */
  readOnly: boolean;
  /** Most requests meant to create a record (valid create bodies) in one run. */
  maxWrites: number;
  /** Time limit of one request, in milliseconds. */
  timeoutMs: number;
  /**
   * Most requests in flight at once (`--concurrency`): the HTTP client never has more open. `1` runs
   * the checks one after another, each case after the last (the order of earlier versions).
   */
  concurrency: number;
  /** Seed of the generated request bodies: the same seed sends the same requests. */
  seed: number;
  /**
   * Console output is always the human report; `json`, `junit`, `html` also write a file each
   * (`--reporter junit,html` writes both).
   */
  reporters: ReporterName[];
  /** Folder of the report files. */
  outputDir: string;
  /** Carried by every record the suite creates (scancodes, notes, sample numbers). */
  runMarker: string;
  /**
   * Optional upper bound of the whole run, in milliseconds (`--deadline`); absent: none. Checks it
   * cuts off are reported `not-run` (reason `deadline`), never failed. `--timeout` is never shortened
   * except by this bound the user chose.
   */
  deadlineMs?: number;
  /** `--list-checks`: print every check with its rule, level and cases, send nothing. */
  listChecks: boolean;
  /** `--self-test`: measure the suite's power against the reference server and the faults generated from the contract; sends nothing elsewhere. */
  selfTest: boolean;
}

/** The token used against the in-process mock when none is given. */
export const MOCK_TOKEN = 'conformance-token';
/** The default `--rejected-token` (documented, so not treated as a secret). */
export const DEFAULT_REJECTED_TOKEN = 'invalid';
/** The first fixture order: the default `--order-number` against the in-process mock. */
export const MOCK_ORDER_NUMBER = 'ORD-2026-0001';

/**
 * The default `--concurrency`: 8 requests in flight. A strict run sends about 260 requests; against a
 * staging server answering in 1 s, 8 at a time finish it in well under a minute (one at a time: over
 * four minutes), while 8 open requests are less than one browser with a few tabs open against the
 * same server, and far below what any server pool, load balancer or rate limiter we know refuses.
 * Lower it for rate-limited servers (see docs/conformance.md, "Concurrency").
 */
export const DEFAULT_CONCURRENCY = 8;
/** The largest `--concurrency` accepted (more would only hide a mistake). */
export const MAX_CONCURRENCY = 256;

/** A run marker: short, sortable, unique enough to find the records of one run. */
export function newRunMarker(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `CONF-${stamp}-${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
}

/** Fills the gaps of a partial config with the defaults (`runMarker` and `seed` are new per call). */
/** What a caller may give: any member, absent or `undefined` (an option not given). */
export type ConformanceConfigInput = { [K in keyof ConformanceConfig]?: ConformanceConfig[K] | undefined };

export function resolveConformanceConfig(partial: ConformanceConfigInput = {}): ConformanceConfig {
  const runMarker = partial.runMarker ?? newRunMarker();
  return {
    token: partial.baseUrl === undefined ? MOCK_TOKEN : '',
    credentials: {},
    rejectedToken: DEFAULT_REJECTED_TOKEN,
    // The fixtures' order; a server without it is told to pass --order-number (run.ts refuses an empty one).
    orderNumber: MOCK_ORDER_NUMBER,
    unknownOrderNumber: `CONFORMANCE-UNKNOWN ${runMarker}`,
    level: 'spec',
    readOnly: false,
    maxWrites: 100,
    timeoutMs: 5000,
    concurrency: DEFAULT_CONCURRENCY,
    seed: Math.floor(Math.random() * 1_000_000),
    reporters: ['console'],
    outputDir: 'reports',
    listChecks: false,
    selfTest: false,
    ...stripUndefined(partial),
    runMarker,
  };
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
