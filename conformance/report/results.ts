/** What a run found: one result per check, and the verdict written by the `json` reporter. */
import type { Level } from '../../contract/levels.js';
import type { FailureDetails } from '../failure.js';
import type { Target } from '../http.js';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckResult {
  id: string;
  level: Level;
  /** The operation the check is grouped under. */
  operation: Target;
  operations: Target[];
  title: string;
  rule: string;
  status: CheckStatus;
  /** The failure (formatted) or the reason for the skip. */
  message?: string;
  failure?: FailureDetails;
  durationMs: number;
}

export interface Verdict {
  tool: 'goods-conformance';
  level: Level;
  seed: number;
  runMarker: string;
  target: string;
  startedAt: string;
  durationMs: number;
  passed: boolean;
  counts: { total: number; passed: number; failed: number; skipped: number };
  /** Operations at least one check ran against (not skipped). */
  operationsTested: Target[];
  /** Requests meant to create a record, and 2xx answers to POST requests. */
  writes: number;
  recordsCreated: number;
  checks: CheckResult[];
}
