/**
 * The Markdown report (`compat.md`), fit to paste into a pull request: the verdict first, then one
 * table per group of changes (the compatible ones folded), then the proof runs and any disagreement.
 * A pure function of the report; every text from the contracts is escaped for a table cell.
 */
import { escapeControls } from '../secrets.js';
import { groupsOf, placeOf, type Change, type CompatReport, type Effect } from './model.js';

/** Text safe in a table cell: no line break, pipes and backticks escaped, control characters shown escaped. */
function cell(text: string): string {
  return escapeControls(text)
    .replace(/\r?\n/g, ' ')
    .replace(/([|`\\*_<>[\]])/g, '\\$1');
}

/** Code in a table cell (pointers, members): backticks of its own cannot close it early. */
function code(text: string): string {
  const safe = escapeControls(text).replace(/\|/g, '\\|').replace(/`/g, "'");
  return `\`${safe}\``;
}

const mark = (effect: Effect): string => (effect === 'breaking' ? '**breaking**' : 'compatible');

function table(changes: readonly Change[], proof: boolean): string[] {
  const head = ['Operation', 'Where', 'Level', 'Clients', 'Servers', 'Reason', 'Old', 'New', ...(proof ? ['Proof'] : [])];
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...changes.map((c) => {
      const row = [
        code(c.operationId),
        code(placeOf(c)),
        c.level,
        mark(c.clients),
        mark(c.servers),
        cell(c.reason),
        code(c.pointers.old),
        code(c.pointers.new),
        ...(proof
          ? [
              cell(
                Object.entries(c.proof ?? {})
                  .map(([side, status]) => `${side}: ${status}`)
                  .join(', '),
              ),
            ]
          : []),
      ];
      return `| ${row.join(' | ')} |`;
    }),
  ];
}

export function renderMarkdown(report: CompatReport): string {
  const proof = report.proof !== undefined;
  const headline =
    report.exitCode === 2 ? 'could not compare' : `${report.verdict.clients} for clients, ${report.verdict.servers} for servers`;
  const lines: string[] = [
    `## Contract compatibility: ${headline}`,
    '',
    `${code(report.old.path)} (sha256 \`${report.old.sha256.slice(0, 12)}\`) → ${code(report.new.path)} (sha256 \`${report.new.sha256.slice(0, 12)}\`): ` +
      `${report.counts.changes} change${report.counts.changes === 1 ? '' : 's'}, counted at level \`${report.level}\`; ` +
      `\`--fail-on ${report.failOn}\`: exit ${report.exitCode}.`,
    '',
    '| | Clients (built against OLD) | Servers (written for OLD) |',
    '| --- | --- | --- |',
    `| Verdict | ${mark(report.verdict.clients)} | ${mark(report.verdict.servers)} |`,
    `| Breaking changes | ${report.counts.breakingClients} | ${report.counts.breakingServers} |`,
  ];
  if (report.error !== undefined) lines.push('', `**Could not compare:** ${cell(report.error)}`);
  for (const group of groupsOf(report)) {
    if (group.changes.length === 0) continue;
    const body = table(group.changes, proof);
    if (group.title === 'Compatible') {
      lines.push('', '<details>', `<summary>${group.title} (${group.changes.length})</summary>`, '', ...body, '', '</details>');
    } else {
      lines.push('', `### ${group.title} (${group.changes.length})`, '', ...body);
    }
  }
  if (report.proof) {
    lines.push(
      '',
      `### Proof (suites at level \`${report.proof.level}\`, seed ${report.proof.seed})`,
      '',
      '| Side | Run | Result |',
      '| --- | --- | --- |',
    );
    for (const run of report.proof.runs) {
      const result =
        run.error !== undefined
          ? `could not run: ${cell(run.error)}`
          : run.failures.length === 0
            ? `passed (${run.checks} checks, ${run.requests} requests)`
            : `${run.failures.length} of ${run.checks} checks failed: ${run.failures.map((f) => `${code(f.check)}${f.disagreement ? ' (**disagreement**)' : ''}`).join(', ')}`;
      lines.push(`| ${run.side} | ${cell(run.question)} | ${result} |`);
    }
    lines.push(
      '',
      report.proof.disagreements.length === 0
        ? 'No disagreement: every failure of the runs is explained by a change the static verdict calls breaking for that side.'
        : `**${report.proof.disagreements.length} disagreement${report.proof.disagreements.length === 1 ? '' : 's'}** (a run failed where the static verdict says compatible; counted as breaking):`,
    );
    for (const d of report.proof.disagreements) {
      lines.push(
        `- ${d.side}: ${code(d.check)}: ${cell(d.message)}${d.changes.length > 0 ? ` (points at ${d.changes.map(code).join(', ')})` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
