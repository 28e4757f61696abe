/**
 * THE compatibility report: what `goods-conformance compat OLD NEW` found, as data. The console, the
 * Markdown and the JSON report (`compat.schema.json`) are pure functions of it.
 */
import type { JsonValue } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import type { JudgedContract } from '../../report/results.js';

/** Who a change is judged for: frontends built against OLD, servers written for OLD. */
export const SIDES = ['clients', 'servers'] as const;
export type Side = (typeof SIDES)[number];

/** `--fail-on`: the side whose breaking changes fail the run (exit 1), or either. */
export const FAIL_ON = ['clients', 'servers', 'any'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export type Effect = 'breaking' | 'compatible';

/** Where in an operation a change stands. */
export type Place = 'operation' | 'request' | 'answer';

/** How the set of what is allowed moved: fewer values (`narrowed`), more (`widened`), some of each (`changed`). */
export type Direction = 'narrowed' | 'widened' | 'changed';

/**
 * What a proof run says about one change for one side:
 * - `confirmed`: the run failed where the change breaks that side;
 * - `not-shown`: the change breaks that side, but the run passed (the mock of the old contract is one
 *   server written for it, and the suite sends only what it derives from its own contract);
 * - `agrees`: the change is compatible for that side and the run found nothing against it;
 * - `contradicted`: the change is compatible for that side, but a failure of the run points at it
 *   (a disagreement);
 * - `out-of-level`: the change is a profile rule and the proof ran at the spec level.
 */
export type ProofStatus = 'confirmed' | 'not-shown' | 'agrees' | 'contradicted' | 'out-of-level';

/** What a change belongs to: a specification fact, or a rule of the project's profile. */
export type ChangeLevel = 'spec' | 'profile';

export interface Change {
  /** Stable: `<operationId> <place> <member> <aspect>` (`createLotTransfer request /amount maximum`, `createTestSample operation success-status`). */
  id: string;
  operationId: string;
  /** `GET /manualProduction/rest/v1/orders/info/{number}` (of the new contract, or the old one when removed). */
  operation: string;
  place: Place;
  /** JSON Pointer of the member in the request or answer body (`/amount`, `/lots/*\/id`; `*` any item); `''` the body or the operation. */
  member: string;
  /** The keyword or fact that changed (`maximum`, `required`, `member`, `status`, `security`, ...). */
  aspect: string;
  direction: Direction;
  old?: JsonValue;
  new?: JsonValue;
  /** JSON Pointers in each document: where the fact is written, or the nearest object that holds it. */
  pointers: { old: string; new: string };
  /** `spec`: a specification fact; `profile`: a rule of the project's profile (`x-profile`, `x-spec-status`). */
  level: ChangeLevel;
  clients: Effect;
  servers: Effect;
  /** One line: what happens to a client or server written for OLD. */
  reason: string;
  proof?: Partial<Record<Side, ProofStatus>>;
}

/** A failed check of a proof run, and the changes it was attributed to. */
export interface ProofFailure {
  check: string;
  operation: string;
  /** The first failure's message (one line, credentials redacted). */
  message: string;
  /** The changes it points at (by operation, member pointer or name). */
  changes: string[];
  /** No change breaking this side explains it. */
  disagreement: boolean;
}

export interface ProofRun {
  side: Side;
  /** Whose suite ran against whose mock. */
  suite: 'old' | 'new';
  mock: 'old' | 'new';
  /** What the run answers. */
  question: string;
  exitCode?: number;
  checks: number;
  requests: number;
  durationMs: number;
  failures: ProofFailure[];
  /** The run could not be made (a mock did not start): why, and how to fix it. */
  error?: string;
}

export interface Disagreement {
  side: Side;
  check: string;
  message: string;
  /** The static verdict the run contradicts: the changes it points at (all compatible for this side), or none. */
  changes: string[];
}

export interface Proof {
  level: Level;
  seed: number;
  runs: ProofRun[];
  disagreements: Disagreement[];
}

export interface CompatReport {
  tool: 'goods-conformance compat';
  old: JudgedContract;
  new: JudgedContract;
  /** Changes counted for the verdict: all (`strict`) or only specification facts (`spec`). */
  level: Level;
  failOn: FailOn;
  /** Per side: breaking when a counted change breaks it (or a proof run contradicts a compatible verdict). */
  verdict: Record<Side, Effect>;
  /** 0: compatible for what --fail-on names; 1: breaking for it; 2: could not compare (or prove). */
  exitCode: 0 | 1 | 2;
  /** `changes`: all; the others among the changes counted at the level (`notCounted`: profile rules at level spec). */
  counts: { changes: number; breakingClients: number; breakingServers: number; compatible: number; notCounted: number };
  changes: Change[];
  proof?: Proof;
  /** Set with exit code 2: what could not be done, and how to fix it. */
  error?: string;
}

/** The changes a verdict counts at a level: every change at `strict`, the specification's only at `spec`. */
export function counted(changes: readonly Change[], level: Level): Change[] {
  return changes.filter((c) => level === 'strict' || c.level === 'spec');
}

/** The groups a report lists changes in (a change breaking both sides is in both first groups). */
export function groupsOf(report: Pick<CompatReport, 'changes' | 'level'>): { title: string; changes: Change[] }[] {
  const changes = counted(report.changes, report.level);
  const left = report.changes.filter((c) => !changes.includes(c));
  return [
    { title: 'Breaking for clients', changes: changes.filter((c) => c.clients === 'breaking') },
    { title: 'Breaking for servers', changes: changes.filter((c) => c.servers === 'breaking') },
    { title: 'Compatible', changes: changes.filter((c) => c.clients === 'compatible' && c.servers === 'compatible') },
    ...(left.length > 0 ? [{ title: 'Profile rules (not counted at level spec)', changes: left }] : []),
  ];
}

/** `request /amount maximum`, `operation success-status`. */
export function placeOf(change: Change): string {
  return [change.place, change.member, change.aspect].filter((part) => part !== '').join(' ');
}

/** The sides `--fail-on` names. */
export function sidesOf(failOn: FailOn): Side[] {
  return failOn === 'any' ? [...SIDES] : [failOn];
}

/** The verdict, the counts and the exit code of a comparison (and its proof, when made). */
export function conclude(base: Pick<CompatReport, 'old' | 'new' | 'level' | 'failOn' | 'changes'> & { proof?: Proof }): CompatReport {
  const changes = counted(base.changes, base.level);
  const breaks = (side: Side): boolean =>
    changes.some((c) => c[side] === 'breaking') || (base.proof?.disagreements ?? []).some((d) => d.side === side);
  const verdict: Record<Side, Effect> = {
    clients: breaks('clients') ? 'breaking' : 'compatible',
    servers: breaks('servers') ? 'breaking' : 'compatible',
  };
  const proofError = base.proof?.runs.find((run) => run.error !== undefined)?.error;
  const exitCode = proofError !== undefined ? 2 : sidesOf(base.failOn).some((side) => verdict[side] === 'breaking') ? 1 : 0;
  return {
    tool: 'goods-conformance compat',
    old: base.old,
    new: base.new,
    level: base.level,
    failOn: base.failOn,
    verdict,
    exitCode,
    counts: {
      changes: base.changes.length,
      breakingClients: changes.filter((c) => c.clients === 'breaking').length,
      breakingServers: changes.filter((c) => c.servers === 'breaking').length,
      compatible: changes.filter((c) => c.clients === 'compatible' && c.servers === 'compatible').length,
      notCounted: base.changes.length - changes.length,
    },
    changes: base.changes,
    ...(base.proof !== undefined ? { proof: base.proof } : {}),
    ...(proofError !== undefined ? { error: proofError } : {}),
  };
}
