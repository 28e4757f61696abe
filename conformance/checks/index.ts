/**
 * The checks the suite runs: those of the check modules (`checks/index.ts`, the one list the suite,
 * the proxy and the self-test read), and the families still written here as lists. The runner runs
 * each one whose level is within the chosen level, and the suite's own tests require a fault case for
 * each of them. The checks of the whole server run last (they judge every answer of the run).
 */
import type { OpenApiDocument } from '../../contract/document.js';
import { CHECK_MODULES, type CheckModule } from '../../checks/index.js';
import type { SuiteCheck } from '../../checks/define.js';
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { recordChecks } from './records.js';
import { requestErrorChecks } from './request-errors.js';
import { BUNDLED, sourceOf, type CheckSource } from './helpers.js';
import type { Check } from './types.js';

export type { Check } from './types.js';

/** A module's check as the runner runs it: the suite's context and cases have the shape a module's cases use. */
function checkOf(check: SuiteCheck): Check {
  return { ...check, run: (ctx, t) => check.run(ctx, t) };
}

/** The families of checks still written as lists here, by the name their marker in the list gives (`familyAt`). */
const FAMILIES: Readonly<Record<string, (source: CheckSource) => Check[]>> = {
  auth: authChecks,
  create: createChecks,
  records: recordChecks,
  'request-errors': requestErrorChecks,
};

/**
 * The checks of a contract (with the modules of `modules`): every case and every check derived from its
 * operations model and schemas, in the list's order, each family where its marker stands.
 */
export function checksOf(source: CheckSource, modules: readonly CheckModule[] = CHECK_MODULES): Check[] {
  const placed = modules.flatMap((m) => (m.family !== undefined ? [m.family] : []));
  const wrong = [
    ...Object.keys(FAMILIES).filter((name) => placed.filter((p) => p === name).length !== 1),
    ...placed.filter((name) => !(name in FAMILIES)),
  ];
  if (wrong.length > 0) throw new Error(`the list of checks must place each family of conformance/checks/ once: ${wrong.join(', ')}`);
  return modules.flatMap((m) => (m.family !== undefined ? (FAMILIES[m.family]?.(source) ?? []) : m.suite(source).map(checkOf)));
}

const made = new WeakMap<OpenApiDocument, readonly Check[]>();

/** The checks of a contract document (built once per document object). */
export function checksFor(document: OpenApiDocument): readonly Check[] {
  let checks = made.get(document);
  if (!checks) {
    checks = checksOf(sourceOf(document));
    made.set(document, checks);
  }
  return checks;
}

/** The checks of the bundled contract. */
export const CHECKS: readonly Check[] = checksOf(BUNDLED);
