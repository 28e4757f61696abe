/**
 * What the suite covers, as data: `describeChecks(level)` (the text of `--list-checks`: every check
 * of the level with its rule, level and the documented cases it sends; pure, no network) and
 * `coverageTable(results)` (rule → cases sent → verdict, carried by the JSON and HTML reports).
 */
import type { Level } from '../contract/levels.js';
import { CHECKS } from './checks/index.js';
import type { Check } from './checks/types.js';
import type { CheckResult, CheckStatus, CoverageRow } from './report/results.js';
import { checksOfLevel, groups } from './suite.js';

export interface CheckDescription {
  id: string;
  level: Level;
  operation: string;
  title: string;
  rule: string;
  write: boolean;
  cases: string[];
}

/** Every check of the level, in run order, with its documented cases. */
export function listChecks(level: Level, checks: readonly Check[] = CHECKS): CheckDescription[] {
  return [...groups(checksOfLevel(checks, level)).entries()].flatMap(([operation, list]) =>
    list.map((c) => ({ id: c.id, level: c.level, operation, title: c.title, rule: c.rule, write: c.write === true, cases: [...c.cases] })),
  );
}

/** The text `--list-checks` prints. */
export function describeChecks(level: Level, checks: readonly Check[] = CHECKS): string {
  const list = listChecks(level, checks);
  const lines = [
    `goods conformance, level ${level}: ${list.length} checks, ${list.reduce((n, c) => n + c.cases.length, 0)} documented case classes`,
    'Each check sends its documented cases on every run (the seed only adds generated cases on top);',
    '"every lot" and "every value class" cases expand to one request per lot / class combination at run time.',
  ];
  let operation = '';
  for (const c of list) {
    if (c.operation !== operation) {
      operation = c.operation;
      lines.push('', operation);
    }
    lines.push(`  [${c.level}] ${c.id}${c.write ? ' (sends POST requests)' : ''}: ${c.title}`, `      rule: ${c.rule}`);
    for (const name of c.cases) lines.push(`      - ${name}`);
  }
  return `${lines.join('\n')}\n`;
}

const RANK: Record<CheckStatus, number> = { passed: 0, skipped: 1, 'not-run': 2, failed: 3 };

/** One row per rule: its checks, the cases sent for it (passed or failed), the worst status. */
export function coverageTable(results: readonly CheckResult[]): CoverageRow[] {
  const rows = new Map<string, CoverageRow>();
  for (const r of results) {
    const row = rows.get(r.rule) ?? { rule: r.rule, level: r.level, checks: [], casesSent: 0, verdict: 'passed' as CheckStatus };
    row.checks.push(r.id);
    row.casesSent += r.cases.filter((c) => c.status === 'passed' || c.status === 'failed').length;
    if (RANK[r.status] > RANK[row.verdict]) row.verdict = r.status;
    if (r.level === 'spec') row.level = 'spec';
    rows.set(r.rule, row);
  }
  return [...rows.values()];
}
