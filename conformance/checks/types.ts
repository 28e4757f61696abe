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
  /** Runs every case through `t` (each case judged apart; every failing case is kept). */
  run(ctx: CheckContext, t: Cases): Promise<void>;
}
