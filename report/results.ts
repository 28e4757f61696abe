/**
 * What a run found: THE results model. The runner produces it once; every report (human, JSON, JUnit,
 * HTML) is a pure function of it. `conformance.schema.json` (next to this file) describes the JSON
 * report, which is this `Verdict` serialized.
 */
import type { Level } from '../contract/levels.js';
import type { OperationId } from '../contract/operations-model.js';
import type { FailureDetails } from './failure.js';

/**
 * The group a check and a request belong to: an operation, or `server` for requests that belong to
 * none (an unknown path). A time-out blocks the rest of its group. (The server under test is the
 * run's target, `--base-url`.)
 */
export type OperationGroup = OperationId;

/** What the run's traffic took beyond one request per exchange (the summary counts it). */
export interface TrafficCounts {
  /** Connections (sockets) the run opened. */
  connections: number;
  /** Requests sent again on a new connection after a kept-alive one failed before any answer began. */
  resent: number;
  /** Requests that timed out and were sent again with the limit doubled; `answered`: those the retry got an answer to. */
  timeoutRetries: number;
  answeredOnRetry: number;
  /** Answers that asked the run to wait (429, 503 with Retry-After), and the wall time it paused. */
  waits: number;
  pausedMs: number;
}

/**
 * - `passed`: the check ran every one of its cases and none broke the rule;
 * - `failed`: at least one case broke the rule (every failed case is in `failures`);
 * - `skipped`: the check does not apply or the user left it out (`reason` says which);
 * - `not-run`: the check should have run but could not (write budget, deadline, an earlier time-out of
 *   its operation, no lots to use): `blockedBy` says what blocked it. Never counted as failed.
 */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'not-run';

/** Why a check was skipped or not run. `read-only` is the only reason the user chose. */
export type SkipReason =
  | 'read-only' // --read-only: the user chose to leave write checks out (exit 0 allowed)
  | 'not-applicable' // the rule does not apply to what the server answered (e.g. no 2xx to judge)
  | 'write-budget' // --max-writes spent
  | 'deadline' // --deadline reached
  | 'timed-out-operation' // an earlier request of the same operation timed out
  | 'no-lots' // the order has no lots to name in create requests
  | 'rate-limited' // the server kept asking the run to wait (429, or 503 with Retry-After)
  | 'setup'; // a prerequisite answer was missing (e.g. the main order did not answer 2xx)

/** One case a check sends: a member of a documented partition class of the rule's inputs. */
export interface CaseResult {
  /** Stable name of the case, e.g. `amount: negative number`, `lot 2002`, `scheme Basic`. */
  name: string;
  status: CheckStatus;
  /** For failed cases: the failure message; for skipped / not-run: why. */
  message?: string;
}

export interface CheckResult {
  id: string;
  level: Level;
  /** The operation the check is grouped under. */
  operation: OperationGroup;
  operations: OperationGroup[];
  title: string;
  rule: string;
  status: CheckStatus;
  /** The failure (formatted, of the first failed case), the reason for the skip, or what blocked it. */
  message?: string;
  /** Set for `skipped` and `not-run`. */
  reason?: SkipReason;
  /** For `not-run`: what blocked it (a check id, or a description such as `the deadline`). */
  blockedBy?: string;
  /** The first failure's details (rule, request with credentials redacted, status, answer excerpt). */
  failure?: FailureDetails;
  /** Every failed case's details (a check reports every problem it finds, not only the first). */
  failures?: FailureDetails[];
  /** The cases the check sent (its documented partition classes plus any seeded extra cases). */
  cases: CaseResult[];
  /** From the check's start to its last case's end (checks run at once: these overlap). */
  durationMs: number;
  /** When the check started, in ms after the run's `startedAt`; absent in reports whose checks are not timed (the proxy's). */
  startedMs?: number;
}

/** One row of the coverage table: a rule, the cases sent for it, its verdict. */
export interface CoverageRow {
  rule: string;
  level: Level;
  checks: string[];
  /** Cases sent for this rule over all its checks. */
  casesSent: number;
  /** Worst status among its checks: failed > not-run > skipped > passed. */
  verdict: CheckStatus;
}

/** Rules left unchecked, grouped: by the user's choice (`leftOut`) or for another reason (`unchecked`). */
export interface UncheckedRule {
  rule: string;
  level: Level;
  checks: string[];
  reason: SkipReason;
}

/** The contract a run judged against: where it was read from and the SHA-256 of the bytes read. */
export interface JudgedContract {
  /**
   * The file, relative to the current folder when inside it (else absolute); `(in memory)` for a
   * document handed to `runConformance` as an object.
   */
  path: string;
  /** SHA-256 of the file's bytes (of `JSON.stringify(document)` for a document in memory), lower-case hex. */
  sha256: string;
}

/** The `path` of a contract handed over as an object, never read from a file. */
export const IN_MEMORY_CONTRACT = '(in memory)';

/** What a run ended with; each outcome has its exit code (`EXIT_CODES`). */
export type Outcome = 'passed' | 'failed' | 'configuration' | 'incomplete';
export type ExitCode = 0 | 1 | 2 | 3;
export const EXIT_CODES: Record<Outcome, ExitCode> = { passed: 0, failed: 1, configuration: 2, incomplete: 3 };

/** A configuration error the answers showed (outcome `configuration`, exit 2): one line names the option to fix. */
export interface ConfigurationProblem {
  /** The option to fix, as typed on the command line (`--order-number`, `--token`, `--base-url`). */
  option: string;
  /** What the answers showed. */
  reason: string;
  /** How to fix it (names `option`). */
  fix: string;
}

export interface Verdict {
  tool: 'goods-conformance';
  level: Level;
  seed: number;
  runMarker: string;
  /** The base URL, credentials (userinfo) removed. */
  target: string;
  /** The contract judged against (`--contract FILE` or the bundled one). */
  contract: JudgedContract;
  /** ISO 8601. */
  startedAt: string;
  durationMs: number;
  /**
   * `passed` (exit 0), `failed` (exit 1), `configuration` (exit 2: the answers show a configuration
   * error, e.g. the main order not found or the token refused; whatever failed says nothing about the
   * contract), `incomplete` (exit 3: nothing failed, but checks were not run).
   */
  outcome: Outcome;
  exitCode: ExitCode;
  /** true only for exit code 0. */
  passed: boolean;
  /** With outcome `configuration` (only then): what the answers showed, and the option to fix. */
  configuration?: ConfigurationProblem;
  counts: { total: number; passed: number; failed: number; skipped: number; notRun: number; cases: number };
  /** Operations at least one check ran against (passed or failed). */
  operationsTested: OperationGroup[];
  /** Rules the user chose to leave out (--read-only). */
  leftOut: UncheckedRule[];
  /** Rules left unchecked for another reason (exit 3 when nothing failed). */
  unchecked: UncheckedRule[];
  /** Hints on a likely configuration mistake (e.g. the main order answered 404: check --order-number). */
  hints: string[];
  coverage: CoverageRow[];
  /** Requests meant to create a record (counted against --max-writes), and 2xx answers to POST requests. */
  writes: number;
  recordsCreated: number;
  /**
   * Requests the run actually sent (each answered, or ended with an error such as a time-out); requests
   * blocked by an earlier time-out or the deadline are not counted. The suite always fills it; absent
   * in the validating proxy's reports (it judges the requests of others and sends none of its own).
   */
  requests?: number;
  /**
   * What the run's requests took beyond one send each, none of it counted against the server (the
   * suite fills it; absent in the validating proxy's reports).
   */
  traffic?: TrafficCounts;
  /**
   * Against goods-mock (its answers named the session back): the mock session that holds the records
   * the run created (`X-Mock-Session`), its listings and its reset. Absent against any other server,
   * against the in-process mock (gone after the run) and in the proxy's reports.
   */
  mockSession?: MockSession;
  checks: CheckResult[];
}

/** The goods-mock session a run's requests named, with where to list and reset it. */
export interface MockSession {
  name: string;
  /** `GET` each with `X-Mock-Session: <name>`: the records of the session, one URL per create. */
  listings: string[];
  /** `POST` with `X-Mock-Session: <name>` and `X-Mock-Reset: 1`: drops the session's records. */
  reset: string;
}
