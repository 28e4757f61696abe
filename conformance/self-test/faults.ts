/**
 * For every registered check, the faults of the reference server that make it fail: the table the
 * suite's tests run (`faults.test.ts`). Each check module (`checks/`) brings its own rows (`defineCheck`'s
 * `faults`, and the behaviours of faults the reference server does not have, `overrides`). `alsoFails`
 * lists checks a fault cannot help breaking too.
 */
import { CHECK_MODULES, type CheckModule } from '../../checks/index.js';
import type { FaultCase } from '../../checks/define.js';
import { BUNDLED, type CheckSource } from '../checks/helpers.js';

export type { FaultCase } from '../../checks/define.js';

/** A sample counter kept per lot: the fault the uniqueness check must catch under any seed. */
export { SEQUENCE_PER_LOT } from '../../checks/create.js';

/**
 * Behaviours a correct server may have: they fail nothing. A case-insensitive or space-trimming order
 * lookup (as database collations do); date-times in forms RFC 3339 allows and narrow validators refuse
 * (`+05:30` with nine fraction digits, a lower-case `t` and `z`).
 */
export const ALLOWED_VARIATIONS = ['order-case-insensitive', 'order-trimmed', 'date-time-rfc-edges'];

/** The fault table of a contract: every module's rows, in the list's order. */
export function faultCasesOf(source: CheckSource = BUNDLED, modules: readonly CheckModule[] = CHECK_MODULES): FaultCase[] {
  return modules.flatMap((m) => m.faultCases(source));
}

export const FAULT_CASES: FaultCase[] = faultCasesOf();
