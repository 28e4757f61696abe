/** One check: a small named function with one signature, registered in `checks/index.ts`. */
import type { Level } from '../../contract/levels.js';
import type { CheckContext } from '../context.js';
import type { Target } from '../http.js';

export interface Check {
  /** Unique, stable: `<operation>.<name>`. */
  id: string;
  level: Level;
  /** The operations it exercises (`server` for none in particular); the first groups it in reports. */
  operations: Target[];
  title: string;
  /** The rule it enforces, quoted from the spec-level facts or the profile (`rules.ts`). */
  rule: string;
  /** Sends POST requests (skipped with --read-only). */
  write?: boolean;
  /** Throws CheckFailure when the server breaks the rule, CheckSkipped when the check does not apply. */
  run(ctx: CheckContext): Promise<void>;
}
