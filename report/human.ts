/**
 * The human report. `renderCheckLine` (one check: verdict, level, id, title; for a failure the
 * request, status, first part of the answer and the rule; for a skip or a check not run, why) and
 * `renderSummary` (the closing lines) are pure functions of the results; the mocha reporter that
 * prints the lines live as checks end is in `suite.ts` (mocha is loaded only for a run: the proxy's
 * reports use these renderers without it).
 *
 * Every text taken from a result is passed through `escapeControls`: an answer's ESC, CR or BEL never
 * reaches the terminal raw (a hostile server cannot draw a fake "PASSED"); only the tool's own colors
 * are real escape sequences. Redaction happens before (sanitizeVerdict / the redacting
 * writer of the run).
 */
import { escapeControls } from '../redaction/redactor.js';
import { failureCount } from './failures.js';
import type { CheckResult, CheckStatus, JudgedContract, MockSession, UncheckedRule, Verdict } from './results.js';

/** `text` in the terminal color `code` when `on`. */
export const paint = (on: boolean, code: number, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

const LABEL: Record<CheckStatus, { text: string; color: number }> = {
  passed: { text: 'PASS', color: 32 },
  failed: { text: 'FAIL', color: 31 },
  skipped: { text: 'SKIP', color: 33 },
  'not-run': { text: 'NRUN', color: 35 },
};

function indent(text: string, by: number): string {
  return text
    .split('\n')
    .map((l) => `${' '.repeat(by)}${l}`)
    .join('\n');
}

/** What the first line of a run says: what is checked, against what, under which contract. */
export interface HeaderInfo {
  level: Verdict['level'];
  checks: number;
  /** The base URL, userinfo removed. */
  target: string;
  /** The target is the mock the suite started in-process. */
  inProcess: boolean;
  contract: JudgedContract;
  seed: number;
  timeoutMs: number;
  deadlineMs?: number | undefined;
  /** `--ca FILE`, as shown: certificates trusted besides the bundled CAs. */
  caPath?: string | undefined;
  /** Most requests in flight at once (`--concurrency`). */
  concurrency?: number | undefined;
}

/** `sha256 1a2b3c4d5e6f…`: the first 12 hex digits of the contract's hash, for a console line. */
export function shortSha256(sha256: string): string {
  return `sha256 ${sha256.slice(0, 12)}${sha256.length > 12 ? '…' : ''}`;
}

/** The first line of a run (ends with a newline). Pure. */
export function renderHeader(info: HeaderInfo): string {
  return (
    `goods conformance: level ${info.level}, ${info.checks} checks against ${escapeControls(info.target)}${info.inProcess ? ' (in-process mock)' : ''}, ` +
    `contract ${escapeControls(info.contract.path)} (${shortSha256(escapeControls(info.contract.sha256))}), seed ${info.seed}, ` +
    `--timeout ${info.timeoutMs} ms per request${info.deadlineMs !== undefined ? `, --deadline ${info.deadlineMs} ms` : ''}` +
    `${info.concurrency !== undefined ? `, --concurrency ${info.concurrency}` : ''}` +
    `${info.caPath !== undefined ? `, trusting the CA certificates of --ca ${escapeControls(info.caPath)} too` : ''}\n`
  );
}

/** The console lines of one check (ends with a newline). Pure. */
export function renderCheckLine(result: CheckResult, color: boolean): string {
  const label = LABEL[result.status];
  const safe = escapeControls;
  let text = `  ${paint(color, label.color, label.text)}  ${`[${result.level}]`.padEnd(8)} ${safe(result.id)}  ${paint(color, 2, safe(result.title))}\n`;
  if (result.status === 'failed' && result.message) text += `${indent(safe(result.message), 8)}\n`;
  if (result.status === 'skipped' && result.message) text += `${indent(`skipped: ${safe(result.message)}`, 8)}\n`;
  if (result.status === 'not-run') text += `${indent(safe(notRunMessage(result)), 8)}\n`;
  return text;
}

/** "not run: blocked by ..." for a check that could not run. */
export function notRunMessage(result: Pick<CheckResult, 'blockedBy' | 'message'>): string {
  const blocked = result.blockedBy ?? result.message ?? 'an earlier problem';
  const extra =
    result.message !== undefined && result.blockedBy !== undefined && result.message !== result.blockedBy ? ` (${result.message})` : '';
  return `not run: blocked by ${blocked}${extra}`;
}

const REASON_TEXT: Record<UncheckedRule['reason'], string> = {
  'read-only': '--read-only',
  'not-applicable': 'not applicable to these answers',
  'write-budget': '--max-writes spent',
  deadline: '--deadline reached',
  'timed-out-operation': 'an earlier request of the operation timed out',
  'no-lots': 'the order has no lots',
  'rate-limited': 'the server kept asking the run to wait (429 or 503 with Retry-After)',
  setup: 'a prerequisite answer was missing',
};

function ruleLines(rules: readonly UncheckedRule[]): string {
  return rules
    .map((r) => `  - [${r.level}] ${escapeControls(r.rule)} (${REASON_TEXT[r.reason]}; ${r.checks.map(escapeControls).join(', ')})\n`)
    .join('');
}

export interface SummaryOptions {
  color: boolean;
  /** Report files written. */
  files?: readonly string[];
}

/**
 * What the run's traffic took that was not counted against the server, one line each when it
 * happened: requests retried after a time-out, waits the server asked for, requests sent again after
 * a kept-alive connection closed.
 */
export function trafficLines(verdict: Pick<Verdict, 'traffic'>): string[] {
  const t = verdict.traffic;
  if (!t) return [];
  const lines: string[] = [];
  if (t.timeoutRetries > 0)
    lines.push(
      `time-outs: ${t.timeoutRetries} request(s) timed out and were sent again once with the limit doubled: ${t.answeredOnRetry} answered on the retry (judged by their answer), ${t.timeoutRetries - t.answeredOnRetry} timed out again (counted as time-outs)`,
    );
  if (t.waits > 0)
    lines.push(
      `rate limit: the server asked the run to wait ${t.waits} time(s) (429, or 503 with Retry-After); the run paused ${(t.pausedMs / 1000).toFixed(1)} s in all and sent those requests again, none counted against the server`,
    );
  if (t.resent > 0)
    lines.push(
      `connections: ${t.resent} request(s) sent again on a new connection after the server had closed a kept-alive one (not counted against the server; ${t.connections} connection(s) in all)`,
    );
  return lines;
}

/** The one line of a configuration error: what the answers showed; how to fix it (naming the option). */
export function configurationLine(problem: NonNullable<Verdict['configuration']>): string {
  return `${problem.reason}; ${problem.fix}`;
}

/**
 * The closing lines: PASSED (exit 0 only), FAILED (exit 1), CONFIGURATION ERROR (exit 2, with the
 * line naming the option to fix) or INCOMPLETE (exit 3) with the counts (checks, cases, requests
 * sent); the failed checks; the spec facts left unchecked and why; what --read-only left out; hints;
 * the contract judged against (path and SHA-256); seed, run marker, report files. Pure.
 */
export function renderSummary(verdict: Verdict, options: SummaryOptions): string {
  const { counts } = verdict;
  const configuration = verdict.outcome === 'configuration' ? verdict.configuration : undefined;
  const word = configuration
    ? paint(options.color, 31, 'CONFIGURATION ERROR')
    : verdict.outcome === 'passed' && verdict.exitCode === 0 && counts.failed === 0
      ? paint(options.color, 32, 'PASSED')
      : verdict.outcome === 'failed' || counts.failed > 0
        ? paint(options.color, 31, 'FAILED')
        : paint(options.color, 33, 'INCOMPLETE');
  // The requests sent (absent in the proxy's verdicts, which send none).
  const requests = verdict.requests !== undefined ? `${verdict.requests} requests, ` : '';
  let text = `\n${word}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.notRun} not run of ${counts.total} checks (${counts.cases} cases, ${requests}level ${verdict.level}) in ${verdict.durationMs} ms\n`;
  if (configuration) text += `${paint(options.color, 31, 'configuration error')}: ${escapeControls(configurationLine(configuration))}\n`;
  for (const line of trafficLines(verdict)) text += `${line}\n`;
  const failed = verdict.checks.filter((c) => c.status === 'failed');
  if (failed.length > 0) {
    const heading = configuration ? 'failed (after the configuration error: says nothing about the contract)' : 'failed';
    const count = (c: CheckResult): string => {
      const cases = c.cases.filter((k) => k.status === 'failed').length;
      return cases > 0 ? ` (${failureCount(cases, c.cases.length)})` : '';
    };
    text += `${heading}:\n${failed.map((c) => `  - ${escapeControls(c.id)}: ${escapeControls(c.title)}${count(c)}\n`).join('')}`;
  }
  if (verdict.unchecked.length > 0) {
    text += `${verdict.outcome === 'incomplete' ? 'nothing failed, but these rules were not checked' : 'also not checked'}:\n${ruleLines(verdict.unchecked)}`;
  }
  if (verdict.leftOut.length > 0) text += `left out by --read-only (your choice; not checked):\n${ruleLines(verdict.leftOut)}`;
  for (const hint of verdict.hints) text += `${paint(options.color, 33, 'hint')}: ${escapeControls(hint)}\n`;
  text +=
    `exit code ${verdict.exitCode}\n` +
    `contract ${escapeControls(verdict.contract.path)} (sha256 ${escapeControls(verdict.contract.sha256)})\n` +
    `seed ${verdict.seed} (--seed ${verdict.seed} sends the same requests)\n` +
    // Two counts of two things: the valid creates (what --max-writes counts) and every POST answered 2xx
    // (invalid bodies and credential probes a lenient server accepted too), so neither contradicts the other.
    `run marker ${escapeControls(verdict.runMarker)}: ${verdict.writes} valid create request(s) sent (counted against --max-writes); ` +
    `${verdict.recordsCreated} POST request(s) answered 2xx, each a record the server says it created (bodies it should refuse included); ` +
    `find them by this marker in scancodes, notes, sample numbers\n` +
    (verdict.mockSession ? mockSessionLines(verdict.mockSession) : '') +
    (options.files ?? []).map((f) => `report: ${escapeControls(f)}\n`).join('');
  return text;
}

/** Where a run's records are on goods-mock, and the curl lines that list them and reset the session. */
export function mockSessionLines(session: MockSession): string {
  const header = `-H 'X-Mock-Session: ${escapeControls(session.name)}'`;
  return (
    `mock session ${escapeControls(session.name)}: the records this run created are there, not in the default session; list them, or reset the session:\n` +
    session.listings.map((url) => `  curl ${header} ${escapeControls(url)}\n`).join('') +
    `  curl -X POST ${header} -H 'X-Mock-Reset: 1' ${escapeControls(session.reset)}   # with --admin-token also -H 'Authorization: Bearer <admin token>'\n`
  );
}
