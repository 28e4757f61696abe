/** A self-contained HTML page from the verdict (no scripts, no external assets). */
import type { Verdict } from './results.js';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function renderHtml(verdict: Verdict): string {
  const groups = new Map<string, Verdict['checks']>();
  for (const check of verdict.checks) groups.set(check.operation, [...(groups.get(check.operation) ?? []), check]);
  const sections = [...groups]
    .map(([operation, checks]) => {
      const rows = checks
        .map(
          (c) =>
            `<tr class="${c.status}"><td class="v">${c.status.toUpperCase()}</td><td>${escape(c.level)}</td><td><code>${escape(c.id)}</code><div class="t">${escape(c.title)}</div>${
              c.message ? `<pre>${escape(c.message)}</pre>` : ''
            }${c.status !== 'passed' ? '' : `<div class="r">${escape(c.rule)}</div>`}</td></tr>`,
        )
        .join('\n');
      return `<h2>${escape(operation)}</h2>\n<table><thead><tr><th>verdict</th><th>level</th><th>check</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
    })
    .join('\n');
  const { counts } = verdict;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>goods conformance: ${verdict.passed ? 'passed' : 'failed'} (${escape(verdict.level)})</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:1.5em}
td,th{border-bottom:1px solid #ddd;padding:.4em;text-align:left;vertical-align:top}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em;margin:.3em 0}
.passed .v{color:#17732b;font-weight:bold}.failed .v{color:#b00020;font-weight:bold}.skipped .v{color:#8a6d00;font-weight:bold}
.t{color:#555}.r{color:#888;font-size:12px}.summary{font-size:16px}
</style></head><body>
<h1>goods conformance: ${verdict.passed ? 'passed' : 'FAILED'}</h1>
<p class="summary">level <b>${escape(verdict.level)}</b> · target <code>${escape(verdict.target)}</code> · ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.total} · ${verdict.durationMs} ms</p>
<p>seed <code>${verdict.seed}</code> (<code>--seed ${verdict.seed}</code> repeats the requests) · run marker <code>${escape(verdict.runMarker)}</code> · writes ${verdict.writes}, records created ${verdict.recordsCreated} · started ${escape(verdict.startedAt)}</p>
${sections}
</body></html>
`;
}
