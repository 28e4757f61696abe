/** One check: a small named function with one signature, registered in `checks/index.ts`. */
import type { Level } from '../../contract/levels.js';
import type { Cases } from '../cases.js';
import type { CheckContext } from '../context.js';
import type { OperationGroup } from '../../report/results.js';

export interface Check {
  /** Unique, stable: `<operation>.<name>`. */
  id: string;
  level: Level;
  /** The operations it exercises (`server` for none in particular); the first groups it in reports. */
  operations: OperationGroup[];
  title: string;
  /** The rule it enforces, quoted from the spec-level facts or the profile (`judgments/rules.ts`). */
  rule: string;
  /** Sends POST requests (skipped with --read-only). */
  write?: boolean;
  /**
   * The keys of the records it creates beyond its operation's spec-level corpus (`ctx.extraCreate`),
   * in the order it makes them: reserved from --max-writes, in check order, before any write is
   * sent, so which checks get the budget never depends on timing (`WriteBudget`).
   */
  extraWrites?(ctx: CheckContext): Promise<string[]>;
  /** The documented cases it sends: the partition classes of the rule's inputs (`--list-checks`). */
  cases: readonly string[];
  /**
   * Sends what must reach the server before any check of the run starts (each run's `prepare` steps in
   * check order, before the first check): a record's sequence lists its records while the server holds
   * only this run's small ones, before other checks store the largest bodies a create accepts (a list of
   * those can be larger than the suite reads, and a list it cannot read it cannot judge). A failure is
   * kept for the check to report.
   */
  prepare?(ctx: CheckContext): Promise<void>;
  /** Runs every case through `t` (each case judged apart; every failing case is kept). */
  run(ctx: CheckContext, t: Cases): Promise<void>;
}
