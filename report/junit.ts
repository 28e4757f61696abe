/**
 * The JUnit XML report, a pure function of the verdict (built with xmlbuilder2, which escapes every
 * text and attribute). As CI systems read it (Jenkins/Ant schema, GitLab, GitHub test reporters):
 * - `<testsuites>` > one `<testsuite>` per operation > one `<testcase>` per check;
 * - `classname` is the operation, `name` is `check id: title`, `time` in seconds: a testcase's is its
 *   check's duration, a testsuite's the wall time of its checks (from the first start to the last end:
 *   they run at once, so their durations overlap), the testsuites' the run's;
 * - a failed check has `<failure message type>` with how many cases failed, at most three spelled out
 *   (each with a ready-to-paste curl) and the others named, as text;
 * - a skipped check has `<skipped message>`; a check not run is skipped with "not run: blocked by ...";
 * - `tests`, `failures`, `errors` (always 0: a broken rule is a failure), `skipped` are the counts of
 *   the children; timestamps are ISO 8601 (`YYYY-MM-DDTHH:MM:SS`, UTC, as the Ant schema wants it;
 *   the exact start with zone is the property `startedAt`);
 * - every `<testsuite>` carries the run's properties: level, seed, run marker, target, the contract
 *   judged against (`contract`: its file; `contract.sha256`: the SHA-256 of its bytes), start, outcome,
 *   exit code, for a configuration error (exit 2) the line naming the option to fix (`configuration`),
 *   and what the traffic took that was not counted against the server (`traffic.waits`, ...);
 * - characters invalid in XML 1.0 (and any control character) are shown escaped (`\x1b`).
 */
import { create } from 'xmlbuilder2';
import { escapeControls } from '../redaction/redactor.js';
import { formatFailure } from './failure.js';
import { failureDigest } from './failures.js';
import { configurationLine, notRunMessage } from './human.js';
import type { CheckResult, Verdict } from './results.js';

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

/** ISO 8601 date-time without fraction and zone, in UTC (the Ant JUnit schema's `timestamp`). */
export function junitTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '1970-01-01T00:00:00' : date.toISOString().slice(0, 19);
}

/** XML-safe text (control and XML-invalid characters escaped); attributes also on one line. */
const text = (value: string): string => escapeControls(value);
const attr = (value: string): string => escapeControls(value).replace(/\s*\n\s*/g, ' ');

function counts(checks: readonly CheckResult[]): { tests: number; failures: number; errors: number; skipped: number } {
  return {
    tests: checks.length,
    failures: checks.filter((c) => c.status === 'failed').length,
    errors: 0,
    skipped: checks.filter((c) => c.status === 'skipped' || c.status === 'not-run').length,
  };
}

/**
 * The failure of a check: how many cases failed, at most three spelled out (each its whole failure,
 * with a ready-to-paste curl), the others named; the rule.
 */
function failureText(check: CheckResult): string {
  const failed = check.cases.filter((c) => c.status === 'failed');
  if (failed.length === 0) {
    const details = check.failures && check.failures.length > 0 ? check.failures : check.failure ? [check.failure] : [];
    return details.length > 0 ? details.map(formatFailure).join('\n\n') : `${check.message ?? 'the check failed'}\nrule:     ${check.rule}`;
  }
  return `${failureDigest(failed, check.cases.length, check.message)}\nrule of the check: ${check.rule}`;
}

function firstLine(value: string | undefined, fallback: string): string {
  const line = (value ?? '').split('\n').find((l) => l.trim().length > 0);
  return line?.trim() ?? fallback;
}

export function renderJunit(verdict: Verdict): string {
  const timestamp = junitTimestamp(verdict.startedAt);
  const total = counts(verdict.checks);
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', {
    name: 'goods conformance',
    tests: String(total.tests),
    failures: String(total.failures),
    errors: String(total.errors),
    skipped: String(total.skipped),
    time: seconds(verdict.durationMs),
    timestamp,
  });
  const operations = [...new Set(verdict.checks.map((c) => c.operation))];
  operations.forEach((operation, index) => {
    const checks = verdict.checks.filter((c) => c.operation === operation);
    const n = counts(checks);
    const suite = root.ele('testsuite', {
      id: String(index),
      name: attr(operation),
      package: 'goods-conformance',
      tests: String(n.tests),
      failures: String(n.failures),
      errors: String(n.errors),
      skipped: String(n.skipped),
      time: seconds(wallTime(checks)),
      timestamp,
      hostname: attr(hostOf(verdict.target)),
    });
    const properties = suite.ele('properties');
    const props: [string, string][] = [
      ['level', verdict.level],
      ['seed', String(verdict.seed)],
      ['runMarker', verdict.runMarker],
      ['target', verdict.target],
      ['contract', verdict.contract.path],
      ['contract.sha256', verdict.contract.sha256],
      ['startedAt', verdict.startedAt],
      ['outcome', verdict.outcome],
      ['exitCode', String(verdict.exitCode)],
      ...(verdict.configuration ? [['configuration', configurationLine(verdict.configuration)] as [string, string]] : []),
      ...Object.entries(verdict.traffic ?? {}).map(([name, value]) => [`traffic.${name}`, String(value)] as [string, string]),
    ];
    for (const [name, value] of props) properties.ele('property', { name, value: attr(value) });
    for (const check of checks) {
      const testcase = suite.ele('testcase', {
        classname: attr(check.operation),
        name: attr(`${check.id}: ${check.title}`),
        time: seconds(check.durationMs),
      });
      if (check.status === 'failed') {
        testcase
          .ele('failure', {
            message: attr(firstLine(check.failure?.actual ?? check.message, 'the check failed')),
            type: check.failure ? `${check.level} rule broken` : 'check error',
          })
          .txt(text(failureText(check)));
      } else if (check.status === 'skipped') {
        testcase.ele('skipped', { message: attr(`skipped: ${check.message ?? check.reason ?? 'not applicable'}`) });
      } else if (check.status === 'not-run') {
        testcase.ele('skipped', { message: attr(notRunMessage(check)) });
      }
      const caseLines = check.cases.map(
        (c) => `${c.status.padEnd(7)} ${c.name}${c.message && c.status !== 'failed' ? ` (${c.message})` : ''}`,
      );
      testcase
        .ele('system-out')
        .txt(text(`rule: ${check.rule}\ncases sent: ${check.cases.length}${caseLines.length > 0 ? `\n${caseLines.join('\n')}` : ''}`));
    }
  });
  return `${root.end({ prettyPrint: true })}\n`;
}

/**
 * The wall time of checks: from the first one's start to the last one's end. Checks without a start
 * (reports whose checks are not timed) count as run one after another.
 */
export function wallTime(checks: readonly CheckResult[]): number {
  const timed = checks.flatMap((c) => (c.startedMs === undefined ? [] : [{ start: c.startedMs, end: c.startedMs + c.durationMs }]));
  const untimed = checks.filter((c) => c.startedMs === undefined).reduce((sum, c) => sum + c.durationMs, 0);
  if (timed.length === 0) return untimed;
  return Math.max(...timed.map((t) => t.end)) - Math.min(...timed.map((t) => t.start)) + untimed;
}

function hostOf(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return 'localhost';
  }
}
