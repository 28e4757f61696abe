/**
 * The proxy's reports: what it judged, as the suite's results model (one check per judgment and
 * operation; `failed` when an exchange broke it, `passed` when exchanges of that operation were judged
 * and none did, `skipped` when none went through), written as JSON and JUnit into the output folder.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Level } from '../../contract/levels.js';
import { REPORT_FILES } from './config.js';
import { UNKNOWN_OPERATION } from './exchange.js';
import type { Judge } from './judge.js';
import { printable, type Redactor } from './redact.js';
import type { ViolationLog } from './violations.js';

export interface ReportInput {
  dir: string;
  violations: ViolationLog;
  judge: Judge;
  redactor: Redactor;
  upstream: string;
  recorded: number;
}

type Status = 'passed' | 'failed' | 'skipped';

export interface ProxyCheck {
  id: string;
  level: Level;
  operation: string;
  operations: string[];
  title: string;
  rule: string;
  status: Status;
  message?: string;
  reason?: 'not-applicable';
  cases: { name: string; status: Status; message?: string }[];
  durationMs: number;
}

export interface ProxyResults {
  tool: 'goods-mock-proxy';
  level: Level;
  target: string;
  startedAt: string;
  durationMs: number;
  outcome: 'passed' | 'failed';
  passed: boolean;
  counts: { total: number; passed: number; failed: number; skipped: number; exchanges: number; violations: number };
  recorded: number;
  checks: ProxyCheck[];
}

/** The results model of what the proxy saw so far. */
export function proxyResults(input: ReportInput): ProxyResults {
  const { violations, judge } = input;
  const snapshot = violations.snapshot();
  const byOperation = violations.exchangesByOperation();
  const tallies = new Map(violations.ruleTallies().map((t) => [`${t.rule}\u0000${t.operation}`, t]));
  const checks: ProxyCheck[] = [];
  for (const operation of [...judge.operations, UNKNOWN_OPERATION]) {
    const judgedHere = byOperation.get(operation) ?? 0;
    for (const judgment of judge.judgments) {
      const tally = tallies.get(`${judgment.id}\u0000${operation}`);
      const status: Status = tally ? 'failed' : judgedHere > 0 ? 'passed' : 'skipped';
      const cases: ProxyCheck['cases'] = tally
        ? tally.latest.map((line) => ({
            name: line.split(':', 1)[0] ?? line,
            status: 'failed' as const,
            message: printable(input.redactor.text(line)),
          }))
        : [];
      checks.push({
        id: `${operation}.${judgment.id}`,
        level: tally?.level ?? judgment.level,
        operation,
        operations: [operation],
        title: `${judgment.side}: ${judgment.rule}`,
        rule: judgment.rule,
        status,
        ...(tally
          ? {
              message: `${tally.violations} violation(s) in ${tally.exchanges} of ${judgedHere} exchange(s); latest: ${cases.map((c) => c.message).join(' | ')}`,
            }
          : status === 'skipped'
            ? { message: `no exchange of ${operation} went through the proxy`, reason: 'not-applicable' as const }
            : {}),
        cases,
        durationMs: 0,
      });
    }
  }
  const count = (s: Status): number => checks.filter((c) => c.status === s).length;
  return {
    tool: 'goods-mock-proxy',
    level: judge.level,
    target: input.upstream,
    startedAt: violations.startedAt.toISOString(),
    durationMs: Date.now() - violations.startedAt.getTime(),
    outcome: count('failed') > 0 ? 'failed' : 'passed',
    passed: count('failed') === 0,
    counts: {
      total: checks.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      exchanges: snapshot.exchanges,
      violations: snapshot.total,
    },
    recorded: input.recorded,
    checks,
  };
}

const xml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** JUnit XML of the results. */
export function renderProxyJunit(results: ProxyResults): string {
  const cases = results.checks
    .map((c) => {
      const inner =
        c.status === 'failed'
          ? `<failure message="${xml(c.message ?? '')}" type="${xml(c.rule)}">${xml(c.message ?? '')}</failure>`
          : c.status === 'skipped'
            ? `<skipped message="${xml(c.message ?? '')}"/>`
            : '';
      return `    <testcase classname="${xml(c.operation)}" name="${xml(c.id)}" time="0">${inner}</testcase>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="goods-mock proxy" tests="${results.counts.total}" failures="${results.counts.failed}" skipped="${results.counts.skipped}" errors="0">
  <testsuite name="goods-mock proxy (${results.level})" timestamp="${results.startedAt}" tests="${results.counts.total}" failures="${results.counts.failed}" skipped="${results.counts.skipped}" errors="0" time="${(results.durationMs / 1000).toFixed(3)}">
${cases}
  </testsuite>
</testsuites>
`;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** Writes the JSON and JUnit reports; answers the files written. */
export async function writeReports(input: ReportInput): Promise<string[]> {
  const results = proxyResults(input);
  await mkdir(input.dir, { recursive: true });
  const json = join(input.dir, REPORT_FILES.json);
  const junit = join(input.dir, REPORT_FILES.junit);
  await writeAtomically(json, `${input.redactor.text(JSON.stringify(results, null, 2))}\n`);
  await writeAtomically(junit, input.redactor.text(renderProxyJunit(results)));
  return [json, junit];
}
