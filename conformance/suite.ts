/**
 * The checks as a mocha suite: one `it` per check, grouped by operation. Every check runs (mocha's
 * own timeout is off: each request is bounded by the HTTP client's --timeout); each case of a check
 * is recorded; a check of an operation that timed out earlier, or past the deadline, is not run.
 *
 * With --concurrency 1 each check starts in its `it`, after the one before ended (cases one after
 * another). Above 1, every check of the operation groups starts at once (and its cases at once), the
 * HTTP client keeping at most N requests in flight; each `it` waits for its own check, so results
 * are reported in registration order whatever order they end in. Ordering that matters is kept by
 * what checks share, not by the order they run in: a create that several checks judge is one
 * memoized request (`ctx.memo`), the write budget is taken synchronously and reserved before any
 * write (`WriteBudget`). The whole-server checks judge every answer of the run: they start after every
 * other check has ended, one after another.
 */
import type Mocha from 'mocha';
import type { Level } from '../contract/levels.js';
import { aggregate, Cases, outcomeOf, type CaseOutcome } from './cases.js';
import type { Check } from './checks/types.js';
import type { CheckContext } from './context.js';
import { CheckNotRun, CheckSkipped } from './failure.js';
import type { OperationGroup } from '../report/results.js';
import { failureDigest } from '../report/failures.js';
import { paint, renderCheckLine } from '../report/human.js';
import type { CheckResult } from '../report/results.js';
import { escapeControls } from '../redaction/redactor.js';

/** The checks of a level: `spec` runs the spec checks, `strict` runs all. */
export function checksOfLevel(checks: readonly Check[], level: Level): Check[] {
  return checks.filter((check) => level === 'strict' || check.level === 'spec');
}

export interface SuiteRun {
  results: CheckResult[];
  failures: number;
}

export interface SuiteOptions {
  checks: readonly Check[];
  ctx: CheckContext;
  write: (text: string) => void;
  color: boolean;
  /** The run's start (epoch ms): each result's `startedMs` counts from it (default: now). */
  startedAt?: number;
}

/** Order of the groups: the operations, then the whole-server checks (they look at every answer). */
export function groups(checks: readonly Check[]): Map<OperationGroup, Check[]> {
  const map = new Map<OperationGroup, Check[]>();
  for (const check of checks) {
    const target = check.operations[0] ?? 'server';
    map.set(target, [...(map.get(target) ?? []), check]);
  }
  const server = map.get('server');
  if (server) {
    map.delete('server');
    map.set('server', server);
  }
  return map;
}

/** Why a check cannot run at all before it starts (the user's --read-only, the deadline, an earlier time-out). */
function precondition(check: Check, ctx: CheckContext): CheckSkipped | CheckNotRun | undefined {
  if (check.write && ctx.config.readOnly) return new CheckSkipped('--read-only: the check sends POST requests', 'read-only');
  const blocked = ctx.http.blocked(check.operations[0] ?? 'server', check.id);
  if (blocked) return new CheckNotRun(`not run: blocked by ${blocked.blockedBy}`, blocked.reason, blocked.blockedBy);
  return undefined;
}

/**
 * Runs one check to its result (every case ended); its requests are sent as its work (`ctx.as`).
 * `runStart` (epoch ms) is what the result's `startedMs` counts from.
 */
export function runCheck(check: Check, ctx: CheckContext, runStart = Date.now()): Promise<CheckResult> {
  return ctx.as(check.id, async () => {
    const started = Date.now();
    const t = new Cases(ctx);
    const before = precondition(check, ctx);
    if (before) t.add(outcomeOf('check', before));
    else {
      try {
        await check.run(ctx, t);
      } catch (error) {
        t.add(outcomeOf('setup', error));
      }
      await t.settled();
    }
    return { ...toResult(check, t.outcomes, Date.now() - started), startedMs: Math.max(0, started - runStart) };
  });
}

function toResult(check: Check, outcomes: readonly CaseOutcome[], durationMs: number): CheckResult {
  const { status, first } = aggregate(outcomes);
  const failures = outcomes.flatMap((o) => (o.status === 'failed' && o.failure ? [o.failure] : []));
  const failedCases = outcomes.filter((o) => o.status === 'failed');
  let message = first?.message;
  // Grouped: the count, at most three failed cases spelled out (each with its reproduction), the others named.
  if (status === 'failed' && first) message = failureDigest(failedCases, outcomes.length);
  return {
    id: check.id,
    level: check.level,
    operation: check.operations[0] ?? 'server',
    operations: check.operations,
    title: check.title,
    rule: check.rule,
    status,
    ...(message !== undefined ? { message } : {}),
    ...((status === 'skipped' || status === 'not-run') && first?.reason ? { reason: first.reason } : {}),
    ...(status === 'not-run' && first?.blockedBy ? { blockedBy: first.blockedBy } : {}),
    ...(failures[0] ? { failure: failures[0], failures } : {}),
    cases: outcomes.map((o) => ({
      name: o.name,
      status: o.status,
      ...(o.message !== undefined && o.status !== 'passed' ? { message: o.message } : {}),
    })),
    durationMs,
  };
}

interface LiveReportOptions {
  results: WeakMap<Mocha.Runnable, CheckResult>;
  write: (text: string) => void;
  color: boolean;
}

/** The live console report of a run, as a mocha reporter: a heading per operation, one entry per check (`renderCheckLine`). */
function liveReporter(M: typeof Mocha): typeof Mocha.reporters.Base {
  return class LiveReporter extends M.reporters.Base {
    constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
      super(runner, options);
      const opts = options.reporterOptions as LiveReportOptions;
      const { write, color } = opts;
      runner.on(M.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
        if (suite.parent !== undefined && !suite.parent.root) write(`\n${paint(color, 1, escapeControls(suite.title))}\n`);
      });
      const line = (test: Mocha.Runnable): void => {
        const result = opts.results.get(test);
        if (result) write(renderCheckLine(result, color));
      };
      runner.on(M.Runner.constants.EVENT_TEST_PASS, line);
      runner.on(M.Runner.constants.EVENT_TEST_FAIL, line);
      runner.on(M.Runner.constants.EVENT_TEST_PENDING, line);
    }
  };
}

/** The `prepare` steps of `checks`, in check order, each on behalf of its check. */
export async function prepareChecks(checks: readonly Check[], ctx: CheckContext): Promise<void> {
  for (const check of checks) {
    const prepare = check.prepare?.bind(check);
    if (prepare !== undefined) await ctx.as(check.id, () => prepare(ctx));
  }
}

export async function runSuite(options: SuiteOptions): Promise<SuiteRun> {
  // mocha is an optional peer dependency (util/peer.ts): loaded for a run only.
  const { default: Mocha } = await import('mocha');
  const results: CheckResult[] = [];
  const runStart = options.startedAt ?? Date.now();
  const byTest = new WeakMap<Mocha.Runnable, CheckResult>();
  const reporterOptions: LiveReportOptions = { results: byTest, write: options.write, color: options.color };
  const mocha = new Mocha({ reporter: liveReporter(Mocha), reporterOptions, timeout: 0, bail: false });
  const root = Mocha.Suite.create(mocha.suite, `goods conformance (${options.ctx.config.level})`);
  options.ctx.planWrites(options.checks);
  await prepareChecks(options.checks, options.ctx);
  const started = new Map<Check, Promise<CheckResult>>();
  const start = (check: Check): Promise<CheckResult> => {
    let run = started.get(check);
    if (!run) {
      run = runCheck(check, options.ctx, runStart);
      run.catch(() => undefined); // its `it` awaits it and reports a rejection
      started.set(check, run);
    }
    return run;
  };
  const grouped = groups(options.checks);
  if (options.ctx.config.concurrency > 1)
    for (const [target, checks] of grouped) if (target !== 'server') for (const check of checks) void start(check);
  for (const [target, checks] of grouped) {
    const suite = Mocha.Suite.create(root, target);
    for (const check of checks) {
      const test = new Mocha.Test(`[${check.level}] ${check.id}: ${check.title}`, async function (this: Mocha.Context) {
        const result = await start(check);
        results.push(result);
        byTest.set(test, result);
        if (result.status === 'skipped' || result.status === 'not-run') this.skip();
        if (result.status === 'failed') {
          const error = new Error(result.message);
          error.name = 'CheckFailure';
          error.stack = `${error.name}: ${result.message ?? ''}`;
          throw error;
        }
      });
      suite.addTest(test);
    }
  }
  return new Promise((resolve) => {
    mocha.run((failures) => {
      mocha.dispose();
      resolve({ results, failures });
    });
  });
}
