/**
 * The proxy's reports, with the report model the suite writes too (report/: the JSON report of
 * `conformance.schema.json` and the JUnit XML CI systems read). What the proxy judged
 * becomes one check per judgment and operation: `failed` when an exchange broke it (its latest
 * violations as the failed cases), `passed` when exchanges of that operation were judged and none
 * broke it, `skipped` (not applicable) when no exchange of that operation went through. The
 * renderers are loaded when a report is written, not at start-up.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CheckResult, CoverageRow, JudgedContract, Verdict } from '../../report/results.js';
import { REPORT_FILES } from './config.js';
import { UNKNOWN_OPERATION } from './exchange.js';
import type { Judge } from './judge.js';
import { escapeControlsUnicode, type Redactor } from '../../redaction/redactor.js';
import type { ViolationLog } from './violations.js';

export interface ReportInput {
  dir: string;
  violations: ViolationLog;
  judge: Judge;
  redactor: Redactor;
  upstream: string;
  /** The contract the exchanges were judged against (its file and the SHA-256 of the bytes read). */
  contract: JudgedContract;
  recorded: number;
}

type Target = CheckResult['operation'];

/** The run marker of the proxy's reports (the suite puts its run's marker there). */
export const PROXY_RUN_MARKER = 'goods-mock --proxy';

/** The sentence the reports, the log and the stop line say about exchanges the proxy did not judge. */
export function notJudgedText(notJudged: number): string {
  return `${notJudged} exchange(s) of the contract's operations were forwarded but not judged: the judging queue was full (the proxy forwarded faster than it could judge); this report does not cover them`;
}

/** What the proxy saw so far, as the report model (report/results.ts); every text from traffic redacted. */
export function proxyVerdict(input: ReportInput): Verdict {
  const { violations, judge, redactor } = input;
  const isTarget = (id: string): id is Target => id === 'server' || judge.operations.includes(id);
  const byOperation = violations.exchangesByOperation();
  const tallies = new Map(violations.ruleTallies().map((t) => [`${t.rule}\u0000${t.operation}`, t]));
  const checks: CheckResult[] = [];
  for (const operation of [...judge.operations, UNKNOWN_OPERATION]) {
    const target = operation === UNKNOWN_OPERATION ? 'server' : operation;
    if (!isTarget(target)) continue;
    const judged = byOperation.get(operation) ?? 0;
    for (const judgment of judge.judgments) {
      const tally = tallies.get(`${judgment.id}\u0000${operation}`);
      const base = {
        id: `${target}.${judgment.id}`,
        level: tally?.level ?? judgment.level,
        operation: target,
        operations: [target],
        title: `${judgment.side === 'client' ? 'the client' : 'the server'}: ${judgment.rule}`,
        rule: judgment.rule,
        durationMs: 0,
      };
      if (tally) {
        const latest = tally.latest.map((line) => escapeControlsUnicode(redactor.redact(line)));
        checks.push({
          ...base,
          status: 'failed',
          message: `${tally.violations} violation(s) in ${tally.exchanges} of ${judged} exchange(s) judged; latest: ${latest.join(' | ')}`,
          failure: { rule: judgment.rule, expected: judgment.rule, actual: latest[latest.length - 1] ?? '' },
          cases: [
            ...latest.map((line, i) => ({
              name: `violation ${i + 1} of the latest ${latest.length}`,
              status: 'failed' as const,
              message: line,
            })),
            { name: `${judged} exchange(s) judged`, status: 'failed' as const },
          ],
        });
      } else if (judged > 0) {
        checks.push({ ...base, status: 'passed', cases: [{ name: `${judged} exchange(s) judged`, status: 'passed' }] });
      } else {
        checks.push({
          ...base,
          status: 'skipped',
          reason: 'not-applicable',
          message: `no exchange of ${operation} went through the proxy`,
          cases: [],
        });
      }
    }
  }
  const count = (status: CheckResult['status']): number => checks.filter((c) => c.status === status).length;
  const coverage = new Map<string, CoverageRow>();
  for (const check of checks) {
    const row = coverage.get(check.rule) ?? { rule: check.rule, level: check.level, checks: [], casesSent: 0, verdict: 'passed' as const };
    row.checks.push(check.id);
    row.casesSent +=
      check.status === 'skipped' ? 0 : (byOperation.get(check.operation === 'server' ? UNKNOWN_OPERATION : check.operation) ?? 0);
    const rank = { failed: 3, 'not-run': 2, skipped: 1, passed: 0 } as const;
    if (rank[check.status] > rank[row.verdict]) row.verdict = check.status;
    coverage.set(check.rule, row);
  }
  const failed = count('failed') > 0;
  const snapshot = violations.snapshot();
  return {
    tool: 'goods-conformance',
    level: judge.level,
    seed: 0,
    runMarker: PROXY_RUN_MARKER,
    target: redactor.redact(input.upstream),
    contract: { ...input.contract },
    startedAt: violations.startedAt.toISOString(),
    durationMs: Date.now() - violations.startedAt.getTime(),
    outcome: failed ? 'failed' : 'passed',
    exitCode: failed ? 1 : 0,
    passed: !failed,
    counts: {
      total: checks.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      notRun: 0,
      cases: snapshot.exchanges,
    },
    operationsTested: [...new Set(checks.filter((c) => c.status !== 'skipped').map((c) => c.operation))],
    leftOut: [],
    unchecked: [],
    hints: [
      `validating proxy: ${snapshot.exchanges} exchange(s) judged at the ${judge.level} level, ${snapshot.total} violation(s) (${snapshot.client} by clients, ${snapshot.server} by the server), ${input.recorded} order(s) recorded`,
      ...(snapshot.notJudged > 0 ? [notJudgedText(snapshot.notJudged)] : []),
    ],
    coverage: [...coverage.values()],
    writes: 0,
    recordsCreated: 0,
    checks,
  };
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/**
 * Writes the JSON and JUnit reports; answers the files written, as absolute paths. Credentials are
 * hidden in the verdict, before rendering (as the suite does): the rendered texts are not redacted
 * again, so the marker is escaped as each format needs (`&lt;redacted&gt;` in XML) and the project's
 * own texts (rules, titles) are written as they are.
 */
export async function writeReports(input: ReportInput): Promise<string[]> {
  const [{ renderJson }, { renderJunit }] = await Promise.all([import('../../report/json.js'), import('../../report/junit.js')]);
  const verdict = proxyVerdict(input);
  await mkdir(input.dir, { recursive: true });
  const json = resolve(input.dir, REPORT_FILES.json);
  const junit = resolve(input.dir, REPORT_FILES.junit);
  await writeAtomically(json, renderJson(verdict));
  await writeAtomically(junit, renderJunit(verdict));
  return [json, junit];
}
