/**
 * The checks as a mocha suite: one `it` per check, grouped by operation. Every check runs; a
 * failure is recorded and the run goes on.
 */
import Mocha from 'mocha';
import type { Level } from '../contract/levels.js';
import type { Check } from './checks/types.js';
import type { CheckContext } from './context.js';
import { CheckFailure, CheckSkipped } from './failure.js';
import type { Target } from './http.js';
import { HumanReporter, type HumanReporterOptions } from './report/human.js';
import type { CheckResult } from './report/results.js';

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
  /** Upper bound of one check, in ms (the HTTP client bounds each request much tighter). */
  timeoutMs: number;
}

/** Order of the groups: the operations, then the whole-server checks (they look at every answer). */
function groups(checks: readonly Check[]): Map<Target, Check[]> {
  const map = new Map<Target, Check[]>();
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

async function runOne(check: Check, ctx: CheckContext): Promise<Omit<CheckResult, 'durationMs'>> {
  const base = {
    id: check.id,
    level: check.level,
    operation: check.operations[0] ?? 'server',
    operations: check.operations,
    title: check.title,
    rule: check.rule,
    cases: [],
  };
  if (check.write && ctx.config.readOnly)
    return { ...base, status: 'skipped', reason: 'read-only', message: '--read-only: the check sends POST requests' };
  try {
    await check.run(ctx);
    return { ...base, status: 'passed' };
  } catch (error) {
    if (error instanceof CheckSkipped) return { ...base, status: 'skipped', reason: 'not-applicable', message: error.message };
    if (error instanceof CheckFailure) return { ...base, status: 'failed', message: error.message, failure: error.details };
    const message = `the check could not complete: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, status: 'failed', message };
  }
}

export function runSuite(options: SuiteOptions): Promise<SuiteRun> {
  const results: CheckResult[] = [];
  const byTest = new WeakMap<Mocha.Runnable, CheckResult>();
  const reporterOptions: HumanReporterOptions = {
    results: byTest,
    write: options.write,
    color: options.color,
  };
  const mocha = new Mocha({ reporter: HumanReporter, reporterOptions, timeout: options.timeoutMs, bail: false });
  const root = Mocha.Suite.create(mocha.suite, `goods conformance (${options.ctx.config.level})`);
  for (const [target, checks] of groups(options.checks)) {
    const suite = Mocha.Suite.create(root, target);
    for (const check of checks) {
      const test = new Mocha.Test(`[${check.level}] ${check.id}: ${check.title}`, async function (this: Mocha.Context) {
        const started = Date.now();
        const result: CheckResult = { ...(await runOne(check, options.ctx)), durationMs: Date.now() - started };
        results.push(result);
        byTest.set(test, result);
        if (result.status === 'skipped') this.skip();
        if (result.status === 'failed') {
          const error = new Error(result.message);
          error.name = 'CheckFailure';
          error.stack = `${error.name}: ${result.message}`;
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
