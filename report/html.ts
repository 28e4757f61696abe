/**
 * A self-contained HTML page from the verdict (no scripts, no external assets), a pure function of it:
 * the outcome and counts, the target and the contract judged against (path and SHA-256), hints, the
 * rules left unchecked or left out, then the checks with the failures first (then not run, skipped,
 * passed), then the coverage table (rule → cases sent → verdict). Every text is HTML-escaped and its
 * control characters shown escaped.
 */
import { escapeControls } from '../redaction/redactor.js';
import { formatFailure } from './failure.js';
import { failureCount, othersLine, splitFailed } from './failures.js';
import { configurationLine, notRunMessage, trafficLines } from './human.js';
import type { CheckResult, CheckStatus, UncheckedRule, Verdict } from './results.js';

export const escapeHtml = (value: string): string =>
  escapeControls(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The order of the check sections: what needs attention first. */
export const STATUS_ORDER: readonly CheckStatus[] = ['failed', 'not-run', 'skipped', 'passed'];

const HEADING: Record<CheckStatus, string> = { failed: 'Failed', 'not-run': 'Not run', skipped: 'Skipped', passed: 'Passed' };
const LABEL: Record<CheckStatus, string> = { failed: 'FAILED', 'not-run': 'NOT RUN', skipped: 'SKIPPED', passed: 'PASSED' };
const OUTCOME: Record<Verdict['outcome'], string> = {
  passed: 'PASSED',
  failed: 'FAILED',
  configuration: 'CONFIGURATION ERROR',
  incomplete: 'INCOMPLETE',
};

/**
 * A failed check's failures: how many cases failed, then one block per distinct text (a case's message
 * is its whole failure: what was wrong, expected, request, answer, rule, a ready-to-paste curl), each
 * naming the check and the cases that failed with that text, so identical failures are shown once.
 * At most SPELLED_OUT blocks are open; the others are folded under a summary naming them.
 */
function failureBlocks(check: CheckResult): string {
  const groups = new Map<string, string[]>();
  const failed = check.cases.filter((c) => c.status === 'failed');
  for (const c of failed) {
    const text = c.message ?? check.message ?? 'the check failed';
    groups.set(text, [...(groups.get(text) ?? []), c.name]);
  }
  if (groups.size === 0) {
    const failures = check.failures && check.failures.length > 0 ? check.failures : check.failure ? [check.failure] : [];
    groups.set(failures.length > 0 ? failures.map(formatFailure).join('\n\n') : (check.message ?? 'the check failed'), []);
  }
  const block = ([text, names]: [string, string[]]): string => {
    const cases =
      names.length === 0
        ? ''
        : ` · ${names.length === 1 ? 'case' : `${names.length} cases`} ${names.map((name) => `<q>${escapeHtml(name)}</q>`).join(', ')}`;
    return `<div class="failure"><p class="fc"><code>${escapeHtml(check.id)}</code>${cases}</p><pre>${escapeHtml(text)}</pre></div>`;
  };
  const { shown, others } = splitFailed([...groups].map(([text, names]) => ({ name: names.join(', '), text, names })));
  const count = failed.length > 0 ? `<p class="count">${escapeHtml(failureCount(failed.length, check.cases.length))}</p>` : '';
  const folded =
    others.length === 0
      ? ''
      : `<details class="more"><summary>${escapeHtml(othersLine(others.flatMap((g) => g.names.map((name) => ({ name })))) ?? '')}</summary>${others
          .map((g) => block([g.text, g.names]))
          .join('')}</details>`;
  return `${count}${shown.map((g) => block([g.text, g.names])).join('')}${folded}`;
}

function detail(check: CheckResult): string {
  if (check.status === 'failed') return failureBlocks(check);
  if (check.status === 'not-run') return `<p class="why">${escapeHtml(notRunMessage(check))}</p>`;
  if (check.status === 'skipped') return `<p class="why">skipped: ${escapeHtml(check.message ?? check.reason ?? 'not applicable')}</p>`;
  return '';
}

/** The cases sent, each with its status; a failed case's text is in its failure block above, not repeated. */
function casesList(check: CheckResult): string {
  if (check.cases.length === 0) return '';
  const items = check.cases
    .map(
      (c) =>
        `<li class="${c.status}">${escapeHtml(c.status)}: ${escapeHtml(c.name)}${c.message && c.status !== 'failed' ? ` <span class="m">${escapeHtml(c.message)}</span>` : ''}</li>`,
    )
    .join('');
  return `<details><summary>${check.cases.length} case(s) sent</summary><ul>${items}</ul></details>`;
}

function checkRow(check: CheckResult): string {
  return `<tr class="${check.status}"><td class="v">${LABEL[check.status]}</td><td>${escapeHtml(check.operation)}</td><td>${escapeHtml(check.level)}</td><td><code>${escapeHtml(check.id)}</code><div class="t">${escapeHtml(check.title)}</div>${detail(check)}<div class="r">${escapeHtml(check.rule)}</div>${casesList(check)}</td></tr>`;
}

function ruleList(title: string, rules: readonly UncheckedRule[]): string {
  if (rules.length === 0) return '';
  const items = rules
    .map(
      (r) =>
        `<li>[${escapeHtml(r.level)}] ${escapeHtml(r.rule)} <span class="m">(${escapeHtml(r.reason)}: ${r.checks.map(escapeHtml).join(', ')})</span></li>`,
    )
    .join('');
  return `<h2>${escapeHtml(title)}</h2><ul class="rules">${items}</ul>`;
}

export function renderHtml(verdict: Verdict): string {
  const sections = STATUS_ORDER.map((status) => {
    const checks = verdict.checks.filter((c) => c.status === status);
    if (checks.length === 0) return '';
    return `<h2 id="${status}">${HEADING[status]} (${checks.length})</h2>\n<table class="checks"><colgroup><col class="c1"><col class="c2"><col class="c3"><col></colgroup><thead><tr><th>verdict</th><th>operation</th><th>level</th><th>check</th></tr></thead><tbody>\n${checks.map(checkRow).join('\n')}\n</tbody></table>`;
  }).join('\n');
  const coverage = verdict.coverage
    .map(
      (row) =>
        `<tr class="${row.verdict}"><td>${escapeHtml(row.rule)}</td><td>${escapeHtml(row.level)}</td><td>${row.checks.map((c) => `<code>${escapeHtml(c)}</code>`).join(' ')}</td><td class="n">${row.casesSent}</td><td class="v">${LABEL[row.verdict]}</td></tr>`,
    )
    .join('\n');
  const { counts } = verdict;
  const outcome = OUTCOME[verdict.outcome];
  const hints =
    verdict.hints.length > 0 ? `<div class="hints">${verdict.hints.map((h) => `<p><b>hint:</b> ${escapeHtml(h)}</p>`).join('')}</div>` : '';
  const traffic = trafficLines(verdict)
    .map((line) => `<p class="traffic">${escapeHtml(line)}</p>`)
    .join('');
  const configuration = verdict.configuration
    ? `<p class="configuration"><b>configuration error:</b> ${escapeHtml(configurationLine(verdict.configuration))}</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>goods conformance: ${outcome} (${escapeHtml(verdict.level)})</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:1.5em}
td,th{border-bottom:1px solid #ddd;padding:.4em;text-align:left;vertical-align:top}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em;margin:.3em 0}
.passed .v{color:#17732b;font-weight:bold}.failed .v{color:#b00020;font-weight:bold}.skipped .v{color:#8a6d00;font-weight:bold}.not-run .v{color:#6a1b9a;font-weight:bold}
.fc{margin:.4em 0 0}.count{font-weight:bold;margin:.3em 0 0}.more summary{cursor:pointer;color:#555}.fc q{font-weight:bold}.t{color:#555}.r{color:#888;font-size:12px}.m{color:#777}.n{text-align:right}.summary{font-size:16px}.hints{background:#fff6d6;padding:.2em 1em}
table.checks{table-layout:fixed}.c1{width:7em}.c2{width:11em}.c3{width:4em}
h1.passed{color:#17732b}h1.failed,h1.configuration{color:#b00020}h1.incomplete{color:#8a6d00}.configuration{background:#fde7ea;padding:.5em 1em}
</style></head><body>
<h1 class="${verdict.outcome}">goods conformance: ${outcome}</h1>
<p class="summary">exit code <b>${verdict.exitCode}</b> · level <b>${escapeHtml(verdict.level)}</b> · target <code>${escapeHtml(verdict.target)}</code> · contract <code class="contract">${escapeHtml(verdict.contract.path)}</code> (sha256 <code class="sha256">${escapeHtml(verdict.contract.sha256)}</code>) · ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.notRun} not run of ${counts.total} checks (${counts.cases} cases) · ${verdict.durationMs} ms</p>
<p>seed <code>${verdict.seed}</code> (<code>--seed ${verdict.seed}</code> repeats the requests) · run marker <code>${escapeHtml(verdict.runMarker)}</code> · writes ${verdict.writes}, records created ${verdict.recordsCreated} · started ${escapeHtml(verdict.startedAt)}</p>
${configuration}
${traffic}
${hints}
${ruleList('Not checked', verdict.unchecked)}
${ruleList('Left out by --read-only', verdict.leftOut)}
${sections}
<h2 id="coverage">Coverage</h2>
<table class="coverage"><thead><tr><th>rule</th><th>level</th><th>checks</th><th>cases sent</th><th>verdict</th></tr></thead><tbody>
${coverage}
</tbody></table>
</body></html>
`;
}
