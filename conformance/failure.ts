/**
 * What a check throws: a failure (its details, the report model's `FailureDetails`), a skip or a
 * case that could not run, each with its reason. The runner turns them into results.
 */
import { formatFailure, type FailureDetails } from '../report/failure.js';
import type { SkipReason } from '../report/results.js';

export class CheckFailure extends Error {
  readonly details: FailureDetails;
  constructor(details: FailureDetails) {
    super(formatFailure(details));
    this.name = 'CheckFailure';
    this.details = details;
  }
}

/** The check (or one case of it) does not apply (declared below the suite, where check modules throw it too). */
export { CheckSkipped } from '../checks/skip.js';

/** The check (or one case of it) should have run but could not: `blockedBy` says what stopped it. */
export class CheckNotRun extends Error {
  readonly reason: SkipReason;
  readonly blockedBy: string;
  constructor(message: string, reason: SkipReason, blockedBy: string) {
    super(message);
    this.name = 'CheckNotRun';
    this.reason = reason;
    this.blockedBy = blockedBy;
  }
}
