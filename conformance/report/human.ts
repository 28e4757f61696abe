/**
 * The human report, as a mocha reporter: one line per check (verdict, level, operation, id, title);
 * for a failure the request, status, first part of the answer and the rule; for a skip the reason.
 * With `junitFile` it also attaches mocha's own XUnit reporter (JUnit XML, as CI tools read it) to
 * the same runner. (mocha-junit-reporter 2.2.1 cannot subclass mocha 12's reporter classes.)
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Mocha from 'mocha';
import type { CheckResult } from './results.js';

export interface HumanReporterOptions {
  results: WeakMap<Mocha.Runnable, CheckResult>;
  write: (text: string) => void;
  color: boolean;
  junitFile?: string;
}

const paint = (on: boolean, code: number, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

export class HumanReporter extends Mocha.reporters.Base {
  private readonly junit: Mocha.reporters.XUnit | undefined;

  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
    super(runner, options);
    const opts = options.reporterOptions as HumanReporterOptions;
    const { write, color } = opts;
    if (opts.junitFile !== undefined) {
      mkdirSync(dirname(opts.junitFile), { recursive: true });
      this.junit = new Mocha.reporters.XUnit(runner, { reporterOptions: { output: opts.junitFile, suiteName: 'goods conformance' } });
    }
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.parent !== undefined && !suite.parent.root) write(`\n${paint(color, 1, suite.title)}\n`);
    });
    const line = (test: Mocha.Runnable): void => {
      const result = opts.results.get(test);
      if (!result) return;
      const verdict = {
        passed: paint(color, 32, 'PASS'),
        failed: paint(color, 31, 'FAIL'),
        skipped: paint(color, 33, 'SKIP'),
        'not-run': paint(color, 35, 'NRUN'),
      }[result.status];
      write(`  ${verdict}  ${`[${result.level}]`.padEnd(8)} ${result.id}  ${paint(color, 2, result.title)}\n`);
      if (result.status === 'failed' && result.message) write(`${indent(result.message, 8)}\n`);
      if (result.status === 'skipped' && result.message) write(`${indent(`skipped: ${result.message}`, 8)}\n`);
      if (result.status === 'not-run')
        write(`${indent(`not run: ${result.message ?? ''}${result.blockedBy ? ` (blocked by ${result.blockedBy})` : ''}`, 8)}\n`);
    };
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, line);
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, line);
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, line);
  }

  /** Called by mocha at the end of the run: lets the JUnit file be flushed and closed first. */
  override done(failures: number, fn?: (failures: number) => void): void {
    if (this.junit) this.junit.done(failures, (f: number) => fn?.(f));
    else fn?.(failures);
  }
}

function indent(text: string, by: number): string {
  return text
    .split('\n')
    .map((l) => `${' '.repeat(by)}${l}`)
    .join('\n');
}
