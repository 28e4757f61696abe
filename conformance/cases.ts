/**
 * The cases of one check: each case is run, and its outcome recorded (passed, failed with its
 * failure, skipped, not run with what blocked it), so a check reports every failing case, not only
 * the first. Above --concurrency 1 the cases of a check run at once; their outcomes keep the order
 * the check started them in. A check's status is the aggregate of its documented cases (seeded extra cases that the
 * write budget left out do not make a check incomplete).
 */
import type { Violation } from '../judgments/exchange.js';
import type { CheckContext } from './context.js';
import type { FailureDetails } from '../report/failure.js';
import { CheckFailure, CheckNotRun, CheckSkipped } from './failure.js';
import type { Exchange } from './http.js';
import type { CaseResult, CheckStatus, SkipReason } from '../report/results.js';

export interface CaseOutcome extends CaseResult {
  failure?: FailureDetails;
  reason?: SkipReason;
  blockedBy?: string;
  /** A seeded case added on top of the documented ones. */
  extra?: boolean;
}

export class Cases {
  /** One slot per case, in the order the check started them (filled as each one ends). */
  private readonly slots: (CaseOutcome | undefined)[] = [];
  private readonly pending = new Set<Promise<void>>();
  /** With --concurrency above 1, a case starts without waiting for the one before. */
  private readonly together: boolean;
  constructor(private readonly ctx: CheckContext) {
    this.together = ctx.config.concurrency > 1;
  }

  /** The outcomes so far, in the order the cases were started (whatever order they ended in). */
  get outcomes(): CaseOutcome[] {
    return this.slots.filter((o): o is CaseOutcome => o !== undefined);
  }

  /** Records an outcome that is no case of its own (what blocked the whole check, a setup error). */
  add(outcome: CaseOutcome): void {
    this.slots.push(outcome);
  }

  /**
   * Runs one case: a CheckFailure fails it, CheckSkipped skips it, CheckNotRun marks it not run. With
   * --concurrency 1 the promise ends with the case; above, the case runs on while the check starts
   * the next one (its outcome keeps its place), and `settled()` waits for all of them.
   */
  run(name: string, fn: () => Promise<void> | void, options: { extra?: boolean } = {}): Promise<void> {
    const index = this.slots.push(undefined) - 1;
    const done = outcomeOfCase(name, fn, options.extra === true).then((outcome) => {
      this.slots[index] = outcome;
    });
    if (!this.together) return done;
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
    return Promise.resolve();
  }

  /** Waits until every case started has ended (cases a case starts included). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Sends (or takes a shared exchange), then judges it: the case fails with every violation found. */
  judge(
    name: string,
    exchange: () => Promise<Exchange>,
    judge: (exchange: Exchange) => Violation[],
    options: { extra?: boolean } = {},
  ): Promise<void> {
    return this.run(
      name,
      async () => {
        const sent = await exchange();
        this.ctx.sent(sent);
        this.ctx.verdict(sent, judge(sent));
      },
      options,
    );
  }
}

/** Runs a case to its outcome (never throws). */
async function outcomeOfCase(name: string, fn: () => Promise<void> | void, extra: boolean): Promise<CaseOutcome> {
  const flag = extra ? { extra: true } : {};
  try {
    await fn();
    return { name, status: 'passed', ...flag };
  } catch (error) {
    return { ...outcomeOf(name, error), ...flag };
  }
}

/** The outcome of a case (or of a whole check) from what its code threw. */
export function outcomeOf(name: string, error: unknown): CaseOutcome {
  if (error instanceof CheckFailure) return { name, status: 'failed', message: error.message, failure: error.details };
  if (error instanceof CheckSkipped) return { name, status: 'skipped', message: error.message, reason: error.reason };
  if (error instanceof CheckNotRun)
    return { name, status: 'not-run', message: error.message, reason: error.reason, blockedBy: error.blockedBy };
  return { name, status: 'failed', message: `the case could not complete: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * A check's status from its cases: failed when one failed; else not-run when a documented case was
 * not run; else passed when one passed; else skipped (nothing applied).
 */
export function aggregate(outcomes: readonly CaseOutcome[]): { status: CheckStatus; first?: CaseOutcome } {
  const documented = outcomes.filter((o) => !(o.extra && o.status !== 'passed' && o.status !== 'failed'));
  const failed = documented.find((o) => o.status === 'failed');
  if (failed) return { status: 'failed', first: failed };
  const notRun = documented.find((o) => o.status === 'not-run');
  if (notRun) return { status: 'not-run', first: notRun };
  if (documented.some((o) => o.status === 'passed')) return { status: 'passed' };
  const skipped = documented.find((o) => o.status === 'skipped');
  return skipped ? { status: 'skipped', first: skipped } : { status: 'skipped' };
}
