/** The JSON report validates against its JSON Schema (conformance.schema.json); the schema can fail. */
import assert from 'node:assert/strict';
import { renderJson } from './json.js';
import type { CheckResult } from './results.js';
import { reportProblems } from './schema.js';
import { CHECKS, CONFIGURATION, CONTRACT, configurationVerdictOf, verdictOf } from './verdict-fixture.js';

const read = (text: string): unknown => JSON.parse(text) as unknown;

describe('JSON report (conformance.json) and its JSON Schema', () => {
  it('a report with every status, failures, cases, coverage, hints is valid', () => {
    assert.deepEqual(reportProblems(read(renderJson(verdictOf()))), []);
    assert.deepEqual(reportProblems(read(renderJson(verdictOf([])))), []);
    const passed = CHECKS.filter((c) => c.status === 'passed');
    assert.deepEqual(reportProblems(read(renderJson(verdictOf(passed)))), []);
  });

  it('a configuration error: outcome configuration, exit code 2, with the option, the reason and the fix', () => {
    const report = read(renderJson(configurationVerdictOf()));
    assert.deepEqual(reportProblems(report), []);
    assert.deepEqual((report as { configuration: unknown }).configuration, CONFIGURATION);
    const without = { ...(report as object), configuration: undefined };
    assert.ok(reportProblems(JSON.parse(JSON.stringify(without))).some((p) => /must have required property 'configuration'/.test(p)));
    const elsewhere = { ...(read(renderJson(verdictOf())) as object), configuration: CONFIGURATION };
    assert.ok(reportProblems(elsewhere).some((p) => /\/outcome must be equal to constant/.test(p)));
    const noOption = { ...(report as object), configuration: { ...CONFIGURATION, option: 'order-number' } };
    assert.ok(reportProblems(noOption).some((p) => /\/configuration\/option must match pattern/.test(p)));
  });

  it('the renderer is the verdict as it is (a pure function, no member added or lost)', () => {
    const verdict = verdictOf();
    assert.deepEqual(read(renderJson(verdict)), JSON.parse(JSON.stringify(verdict)) as unknown);
    assert.equal(renderJson(verdict), renderJson(verdictOf()));
  });

  it('states the requests sent (a count); the member may be absent (the proxy sends none of its own)', () => {
    const report = read(renderJson(verdictOf()));
    assert.equal((report as { requests: unknown }).requests, 12);
    const proxy = verdictOf();
    delete proxy.requests;
    assert.deepEqual(reportProblems(read(renderJson(proxy))), []);
    for (const bad of [-1, 1.5, '12', null]) {
      const problems = reportProblems({ ...(report as object), requests: bad });
      assert.ok(
        problems.some((p) => p.startsWith('/requests ')),
        `${JSON.stringify(bad)}: ${problems.join('\n')}`,
      );
    }
  });

  it('names the contract judged against: its path and the SHA-256 of its bytes', () => {
    const report = read(renderJson(verdictOf()));
    assert.deepEqual((report as { contract: unknown }).contract, CONTRACT);
  });

  for (const [what, change, pattern] of [
    ['a target with userinfo', { target: 'https://u:p@h.example' }, /\/target/],
    ['outcome and exit code that disagree', { outcome: 'passed', exitCode: 1 }, /must match exactly one schema/],
    [
      'a configuration outcome with exit code 1',
      { outcome: 'configuration', exitCode: 1, configuration: CONFIGURATION },
      /must match exactly one schema/,
    ],
    ['an unknown member', { extra: 1 }, /must NOT have additional properties/],
    ['a non-ISO timestamp', { startedAt: 'Sun, 22 Nov 2026 03:00:00 GMT' }, /\/startedAt must match format "date-time"/],
    ['no contract', { contract: undefined }, /must have required property 'contract'/],
    ['a contract without its hash', { contract: { path: CONTRACT.path } }, /\/contract must have required property 'sha256'/],
    [
      'a hash that is not SHA-256 hex',
      { contract: { ...CONTRACT, sha256: CONTRACT.sha256.slice(0, 12) } },
      /\/contract\/sha256 must match pattern/,
    ],
    ['an empty contract path', { contract: { ...CONTRACT, path: '' } }, /\/contract\/path must NOT have fewer than 1 characters/],
  ] as const) {
    it(`rejects ${what}`, () => {
      const problems = reportProblems({ ...(read(renderJson(verdictOf())) as object), ...change });
      assert.ok(
        problems.some((p) => pattern.test(p)),
        problems.join('\n'),
      );
    });
  }

  it('rejects a check not run without what blocked it, and a skipped check without its reason', () => {
    const without = <K extends keyof CheckResult>(c: CheckResult, key: K): CheckResult => {
      const copy = { ...c };
      delete copy[key];
      return copy;
    };
    const notRun = CHECKS.map((c) => (c.status === 'not-run' ? without(c, 'blockedBy') : c));
    assert.ok(reportProblems(read(renderJson(verdictOf(notRun)))).some((p) => /blockedBy/.test(p)));
    const skipped = CHECKS.map((c) => (c.status === 'skipped' ? without(c, 'reason') : c));
    assert.ok(reportProblems(read(renderJson(verdictOf(skipped)))).some((p) => /reason/.test(p)));
  });
});
