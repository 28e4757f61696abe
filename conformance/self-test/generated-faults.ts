/**
 * The faults of the self-test, derived from a contract (none typed by hand), for the reference server
 * that serves it (`referenceBase`):
 * - the hand-written server (`reference-server.ts`) serves contracts shaped like the bundled one (an
 *   order with lots, creates, bearer tokens): one fault per keyword of every member of every request and
 *   success schema (`schema-faults.ts`), plus the hand-written table of the profile's rules
 *   (`faults.ts`) for the checks the contract has;
 * - the mock-based one (`mock-reference.ts`) serves any other contract: the same schema faults and one
 *   fault per operation of each kind of the override table (`overrides.ts`: reads, lists, changes,
 *   actions, deletes, keys, credentials), each where the contract has the check that must catch it.
 */
import type { OpenApiDocument } from '../../contract/document.js';
import type { OperationsModel } from '../../contract/operations-model.js';
import { judgeContexts } from '../../judgments/context.js';
import { checksFor } from '../checks/index.js';
import { sourceOf } from '../checks/helpers.js';
import { faultCasesOf } from './faults.js';
import { overrideFaults } from './overrides.js';
import { answerFaults, requestFaults, type GeneratedFault } from './schema-faults.js';

export type { GeneratedFault };

/** The faults of the hand-written reference server: request and answer keywords, and the profile's rules of the table. */
function handWrittenFaults(document: OpenApiDocument): GeneratedFault[] {
  const out: GeneratedFault[] = [...requestFaults(document), ...answerFaults(document)];
  // The profile's rules: the fault table of the list of checks (each module's rows), for the checks this contract has.
  const checks = new Map(checksFor(document).map((c) => [c.id, c]));
  const profile = new Set<string>();
  for (const f of faultCasesOf(sourceOf(document))) {
    const check = checks.get(f.check);
    const key = f.faults.join(',');
    if (!check || profile.has(key)) continue;
    profile.add(key);
    out.push({
      fault: key,
      operation: check.operations[0] ?? 'server',
      level: check.level,
      description: `${f.faults.join(', ')} (the hand-written fault of ${f.check})`,
      kind: 'profile',
    });
  }
  return out;
}

/** Which reference server serves a contract: the hand-written one where it can, else the mock behind a fault front. */
export type ReferenceBase = 'hand-written' | 'mock';

/**
 * The hand-written server serves a contract shaped like the bundled one: an order read from fixtures
 * whose lots the creates name, every other operation a create numbering its records, every operation
 * behind one bearer scheme. Any other contract is served by the mock.
 */
export function referenceBase(model: OperationsModel): ReferenceBase {
  const bearerOnly = model.operations.every((op) => {
    const [alternative, ...others] = op.security.alternatives;
    const [scheme, ...more] = alternative ?? [];
    return others.length === 0 && more.length === 0 && scheme?.carrier.kind === 'authorization' && scheme.carrier.scheme === 'bearer';
  });
  const shaped = model.operations.every(
    (op) => op === model.orderInfo || (op.role === 'create' && op.record !== undefined && op.members.some((m) => m.namesLot)),
  );
  return model.orderInfo !== undefined && model.order !== undefined && shaped && bearerOnly ? 'hand-written' : 'mock';
}

export function generatedFaults(document: OpenApiDocument): GeneratedFault[] {
  const judge = judgeContexts(document).strict;
  if (referenceBase(judge.model) === 'hand-written') return handWrittenFaults(document);
  const checks = new Map(checksFor(document).map((c) => [c.id, c]));
  return overrideFaults({ document, judge, checks });
}
