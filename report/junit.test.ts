/**
 * The JUnit report, read back by the JUnit consumers CI systems use: the npm package
 * test-results-parser and Debian's python3-junitparser (a prerequisite of npm test, scripts/prerequisites.json). Every check is found
 * with its verdict and message; the counts agree with the children; timestamps are ISO 8601.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'test-results-parser';
import { requireSystemTool } from '../support/system-tools.js';
import { junitTimestamp, renderJunit, wallTime } from './junit.js';
import type { CheckResult } from './results.js';
import { CHECKS, CONTRACT, configurationVerdictOf, rawControls, verdictOf } from './verdict-fixture.js';

/** What python3-junitparser reads: per suite its attributes, per case its verdict tag, message, type and text. */
interface PySuite {
  name: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  timestamp: string;
  children: { tests: number; failures: number; errors: number; skipped: number };
  cases: {
    classname: string;
    name: string;
    time: number;
    results: { tag: string; message: string | null; type: string | null; text: string | null }[];
  }[];
}
interface PyReport {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  suites: PySuite[];
}

const PY = `
import json, sys
import xml.etree.ElementTree as ET
from junitparser import JUnitXml, TestSuite
ET.parse(sys.argv[1])  # well-formed XML 1.0, or this raises
xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for case in suite:
        results = [{"tag": r._tag, "message": r.message, "type": r.type, "text": r.text} for r in case.result]
        counts["tests"] += 1
        for r in results:
            key = {"failure": "failures", "error": "errors", "skipped": "skipped"}[r["tag"]]
            counts[key] += 1
        cases.append({"classname": case.classname, "name": case.name, "time": case.time, "results": results})
    suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "errors": suite.errors,
                   "skipped": suite.skipped, "timestamp": suite.timestamp, "children": counts, "cases": cases})
root = ET.parse(sys.argv[1]).getroot()
print(json.dumps({"tests": int(root.get("tests")), "failures": int(root.get("failures")), "errors": int(root.get("errors")),
                  "skipped": int(root.get("skipped")), "suites": suites}))
`;

function readWithJunitparser(file: string): PyReport {
  // The python3 with junitparser the prerequisite check finds (Debian's python3-junitparser; a pyenv
  // or virtualenv python3 first on PATH may lack it).
  const run = spawnSync(requireSystemTool('python3-junitparser'), ['-c', PY, file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `python3-junitparser could not read the report: ${run.stderr}`);
  return JSON.parse(run.stdout) as PyReport;
}

describe('JUnit report (junit.xml)', () => {
  let dir: string;
  let file: string;
  let xml: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'junit-'));
    file = join(dir, 'junit.xml');
    xml = renderJunit(verdictOf());
    writeFileSync(file, xml);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('python3-junitparser finds every check with its verdict, message and type; counts agree with the children', () => {
    const report = readWithJunitparser(file);
    const cases = report.suites.flatMap((s) => s.cases);
    assert.equal(cases.length, CHECKS.length);
    for (const check of CHECKS) {
      const found = cases.find((c) => c.name.startsWith(`${check.id}: `));
      assert.ok(found, check.id);
      assert.equal(found.classname, check.operation);
      assert.equal(found.time, check.durationMs / 1000);
      const tags = found.results.map((r) => r.tag);
      const expected: Record<CheckResult['status'], string[]> = {
        passed: [],
        failed: ['failure'],
        skipped: ['skipped'],
        'not-run': ['skipped'],
      };
      assert.deepEqual(tags, expected[check.status], check.id);
      const result = found.results[0];
      if (check.status === 'failed') {
        assert.ok(result?.message && result.message.length > 0, 'a failure message');
        assert.ok(result.type && result.type.length > 0, 'a failure type');
        assert.ok(result.text?.includes(check.rule) ?? false, 'the failure text names the rule');
      }
      if (check.status === 'not-run') assert.equal(result?.message, `not run: blocked by ${check.blockedBy} (${check.message})`);
      if (check.status === 'skipped') assert.equal(result?.message, `skipped: ${check.message}`);
    }
    for (const suite of report.suites) {
      assert.deepEqual(
        { tests: suite.tests, failures: suite.failures, errors: suite.errors, skipped: suite.skipped },
        suite.children,
        suite.name,
      );
      assert.match(suite.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    }
    const sum = (key: keyof PySuite['children']): number => report.suites.reduce((n, s) => n + s.children[key], 0);
    assert.deepEqual(
      { tests: report.tests, failures: report.failures, errors: report.errors, skipped: report.skipped },
      { tests: sum('tests'), failures: sum('failures'), errors: sum('errors'), skipped: sum('skipped') },
    );
    assert.deepEqual({ tests: report.tests, failures: report.failures, skipped: report.skipped }, { tests: 6, failures: 2, skipped: 2 });
  });

  it('every failed case is in the failure text, not only the first', () => {
    const report = readWithJunitparser(file);
    const exact = report.suites.flatMap((s) => s.cases).find((c) => c.name.startsWith('getOrderInfo.exact-order: '));
    const text = exact?.results[0]?.text ?? '';
    assert.match(text, /order\.orderNumber is "ORD-2"/);
    assert.match(text, /lot 2002: the answer is another order/);
    assert.match(text, /^2 of 3 case\(s\) failed:\n1\) main order\n/);
    assert.match(text, /\n2\) order with a space\n {3}lot 2002: the answer is another order\n/);
    assert.match(text, /reproduce:\n {5}curl -sS -i/, 'each with its reproduction');
  });

  it('test-results-parser reads the same verdicts and failure messages', () => {
    const result = parse({ type: 'junit', files: [file] });
    const cases = result.suites.flatMap((s) => s.cases);
    assert.equal(cases.length, CHECKS.length);
    assert.deepEqual(
      { total: result.total, failed: result.failed, skipped: result.skipped, errors: result.errors },
      { total: 4, failed: 2, skipped: 2, errors: 0 },
    );
    for (const check of CHECKS) {
      const found = cases.find((c) => c.name.startsWith(`${check.id}: `));
      assert.ok(found, check.id);
      assert.equal(found.status, { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', 'not-run': 'SKIP' }[check.status], check.id);
      if (check.status === 'failed') assert.ok(found.failure.length > 0);
    }
  });

  it('is well-formed with hostile text: markup escaped, control and XML-invalid characters shown escaped, no "undefined"', () => {
    assert.deepEqual(rawControls(xml), []);
    assert.ok(!xml.includes('\ufffe') && !xml.includes('\uffff'));
    assert.doesNotMatch(xml, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.ok(!xml.includes('<script>'));
    assert.ok(xml.includes('\\x1b[32mPASSED'));
    assert.ok(!xml.includes('undefined'));
    assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    assert.match(
      xml,
      /<testsuites name="goods conformance" tests="6" failures="2" errors="0" skipped="2" time="4\.321" timestamp="2026-11-22T03:00:00">/,
    );
    assert.equal(junitTimestamp('2026-11-22T03:00:00.123Z'), '2026-11-22T03:00:00');
  });

  it('every suite names the contract judged against: properties contract (its file) and contract.sha256', () => {
    const suites = [...xml.matchAll(/<testsuite [\s\S]*?<\/testsuite>/g)].map((m) => m[0]);
    assert.equal(suites.length, new Set(CHECKS.map((c) => c.operation)).size);
    for (const suite of suites) {
      assert.ok(suite.includes(`<property name="contract" value="${CONTRACT.path}"/>`), suite);
      assert.ok(suite.includes(`<property name="contract.sha256" value="${CONTRACT.sha256}"/>`), suite);
    }
    const result = parse({ type: 'junit', files: [file] });
    assert.ok(result.suites.length > 0);
    for (const suite of result.suites) {
      const entries: [string, unknown][] = Object.entries(suite.metadata);
      const properties = new Map(entries);
      assert.equal(properties.get('contract'), CONTRACT.path);
      assert.equal(properties.get('contract.sha256'), CONTRACT.sha256);
    }
  });

  it('a configuration error (exit 2): the properties outcome, exitCode and configuration (the line naming the option)', () => {
    const configuration = renderJunit(configurationVerdictOf());
    assert.ok(configuration.includes('<property name="outcome" value="configuration"/>'));
    assert.ok(configuration.includes('<property name="exitCode" value="2"/>'));
    assert.ok(
      configuration.includes(
        '<property name="configuration" value="the main order &quot;ORD-2026-0001&quot; was answered 404 (not found); pass --order-number with an existing order with lots on this server"/>',
      ),
      configuration,
    );
    assert.ok(!xml.includes('name="configuration"'));
  });

  it("a testsuite's time is the wall time of its checks (from the first start to the last end: they overlap), not their sum", () => {
    // getOrderInfo: 2-14 ms and 4-7 ms: 12 ms of wall time (the durations add up to 15 ms).
    const [first] = CHECKS;
    assert.ok(first);
    assert.match(xml, new RegExp(`<testsuite id="0" name="${first.operation}"[^>]* time="0\\.012"`));
    const timed = (startedMs: number, durationMs: number): CheckResult => ({ ...first, startedMs, durationMs });
    assert.equal(wallTime([timed(0, 800), timed(10, 790), timed(5, 100)]), 800);
    assert.equal(wallTime([timed(0, 100), timed(500, 100)]), 600, 'a gap between checks is wall time too');
    const { startedMs: _, ...untimed } = timed(0, 30);
    assert.equal(wallTime([untimed, untimed]), 60, 'checks without a start (the proxy) count one after another');
    assert.equal(wallTime([]), 0);
  });

  it('a verdict without checks is a valid empty report', () => {
    const empty = renderJunit(verdictOf([]));
    assert.match(empty, /<testsuites name="goods conformance" tests="0" failures="0" errors="0" skipped="0"/);
  });
});
