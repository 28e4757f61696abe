/**
 * From a proof run's failed checks back to the changes: a failure points at the changes of its
 * operation (every operation for the whole-server checks) whose member it names, by JSON Pointer in
 * what it reports (`/amount` in an answer's `errors[].pointer`, "at /amount") or else by name in its
 * failed cases (`amount: large (1e21)`); a failure that names no changed member points at every change
 * of its operation. Operation-level changes (status, security, body limit) are always among them.
 * A failure none of whose changes breaks the run's side is a disagreement: the static verdict said
 * compatible, the run says otherwise.
 */
import type { CheckResult } from '../../report/results.js';
import type { Change, Disagreement, ProofFailure, ProofRun, ProofStatus, Side } from './model.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/lots/*\/id` → a pattern matching `/lots/0/id` (not `/lots/0/idx`). */
function pointerPattern(member: string): RegExp {
  const body = member
    .split('/')
    .slice(1)
    .map((token) => (token === '*' ? '\\d+' : escape(token)))
    .join('/');
  return new RegExp(`/${body}(?![\\w-])`);
}

/** The member's own name (`/lots/*\/id` → `id`), as a whole word. */
function namePattern(member: string): RegExp | undefined {
  const name = member
    .split('/')
    .filter((t) => t !== '*')
    .at(-1);
  return name === undefined || name === '' ? undefined : new RegExp(`(^|[^\\w-])${escape(name)}(?![\\w-])`);
}

/** The changes a failed check points at, among those in scope. */
export function pointedChanges(check: CheckResult, changes: readonly Change[]): Change[] {
  const whole = check.operations.includes('server');
  const pool = changes.filter((c) => whole || check.operations.some((op) => op === c.operationId));
  const reported = (check.failures ?? (check.failure ? [check.failure] : []))
    .map((f) => [f.actual, f.expected, f.answer ?? ''].join('\n'))
    .join('\n');
  const caseNames = check.cases
    .filter((c) => c.status === 'failed')
    .map((c) => c.name)
    .join('\n');
  const members = pool.filter((c) => c.member !== '');
  const operationLevel = pool.filter((c) => c.member === '');
  const byPointer = members.filter((c) => pointerPattern(c.member).test(reported));
  const byName = members.filter((c) => namePattern(c.member)?.test(caseNames) === true);
  const named = byPointer.length > 0 ? byPointer : byName;
  return named.length > 0 ? [...named, ...operationLevel] : pool;
}

/** One failed check of a run, attributed. */
export function attributeFailure(side: Side, check: CheckResult, changes: readonly Change[], message: string): ProofFailure {
  const pointed = pointedChanges(check, changes);
  return {
    check: check.id,
    operation: check.operation,
    message,
    changes: pointed.map((c) => c.id),
    disagreement: !pointed.some((c) => c[side] === 'breaking'),
  };
}

/** The disagreements of the runs: failures no change breaking that side explains. */
export function disagreementsOf(runs: readonly ProofRun[]): Disagreement[] {
  return runs.flatMap((run) =>
    run.failures.filter((f) => f.disagreement).map((f) => ({ side: run.side, check: f.check, message: f.message, changes: f.changes })),
  );
}

/**
 * What the runs say about each change, per side (`model.ts` ProofStatus). `inScope` says whether the
 * proof's level covers the change (a profile rule is out of level for a spec-level proof).
 */
export function withProofStatus(changes: readonly Change[], runs: readonly ProofRun[], inScope: (c: Change) => boolean): Change[] {
  return changes.map((change) => {
    const proof: Partial<Record<Side, ProofStatus>> = {};
    for (const run of runs) {
      if (run.error !== undefined) continue;
      const pointing = run.failures.filter((f) => f.changes.includes(change.id));
      proof[run.side] = !inScope(change)
        ? 'out-of-level'
        : change[run.side] === 'breaking'
          ? pointing.length > 0
            ? 'confirmed'
            : 'not-shown'
          : pointing.some((f) => f.disagreement)
            ? 'contradicted'
            : 'agrees';
    }
    return { ...change, proof };
  });
}
