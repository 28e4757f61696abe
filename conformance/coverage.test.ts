/** --list-checks: every check of the level with its rule, level and documented cases; the coverage table of a run. */
import assert from 'node:assert/strict';
import { CHECKS } from './checks/index.js';
import { parseConformanceArgs } from './args.js';
import { coverageTable, describeChecks, listChecks } from './coverage.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';

describe('conformance coverage', () => {
  it('--list-checks is an option; the listing names every check of the level with its rule and cases', () => {
    const parsed = parseConformanceArgs(['--list-checks', '--level', 'strict']);
    assert.ok(!parsed.help && parsed.config.listChecks);
    const text = describeChecks('strict');
    for (const check of CHECKS) {
      assert.ok(text.includes(`[${check.level}] ${check.id}`), check.id);
      assert.ok(check.cases.length > 0, `${check.id} documents its cases`);
      for (const name of check.cases) assert.ok(text.includes(`- ${name}`), `${check.id}: ${name}`);
    }
    assert.equal(listChecks('spec').length, CHECKS.filter((c) => c.level === 'spec').length);
    assert.ok(!describeChecks('spec').includes('[strict]'));
  });

  it('documents the partition classes the issue asks for', () => {
    const text = describeChecks('strict');
    for (const expected of [
      'every lot of the order (up to 10)',
      'completed: true, false, omitted',
      'scheme Basic (the token as password)',
      'scheme Token with the token',
      'a prefix of the real number',
      'the real number with a trailing space, %20 (the real order accepted too)',
      'null',
      'boolean',
      'amount: string',
    ])
      assert.ok(text.includes(expected), expected);
  });

  it('the verdict carries the coverage table: every rule, the cases sent for it, its verdict', async () => {
    const { verdict } = await runConformance(resolveConformanceConfig({ level: 'spec', seed: 2 }), { write: () => undefined });
    assert.deepEqual(verdict.coverage, coverageTable(verdict.checks));
    assert.deepEqual(new Set(verdict.coverage.map((r) => r.rule)), new Set(verdict.checks.map((c) => c.rule)));
    for (const row of verdict.coverage) {
      assert.ok(row.casesSent > 0, row.rule);
      assert.equal(row.verdict, 'passed');
    }
    assert.equal(
      verdict.coverage.reduce((n, r) => n + r.casesSent, 0),
      verdict.counts.cases,
    );
  });
});
