/**
 * The console report of `goods-conformance compat`: the changes grouped (breaking for clients,
 * breaking for servers, compatible), the proof runs and their disagreements, the verdict with its
 * exit code. A pure function of the report; control characters from the contracts are shown escaped.
 */
import { escapeControls } from '../secrets.js';
import { groupsOf, placeOf, type Change, type CompatReport, type ProofRun } from './model.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function changeLines(change: Change): string[] {
  const proof = Object.entries(change.proof ?? {})
    .map(([side, status]) => `${side} ${status}`)
    .join(', ');
  return [
    `  ${change.operationId}  ${placeOf(change)}  [${change.level}]`,
    `    ${change.reason}`,
    `    old ${change.pointers.old}`,
    `    new ${change.pointers.new}`,
    ...(proof !== '' ? [`    proof: ${proof}`] : []),
  ];
}

function runLines(run: ProofRun): string[] {
  const head = `  ${run.side}: ${run.question}`;
  if (run.error !== undefined) return [head, `    could not run: ${run.error}`];
  const outcome = run.failures.length === 0 ? 'passed' : `${plural(run.failures.length, 'check')} failed`;
  return [
    head,
    `    ${outcome} (${plural(run.checks, 'check')}, ${plural(run.requests, 'request')}, ${(run.durationMs / 1000).toFixed(1)} s)`,
    ...run.failures.map(
      (f) =>
        `    FAIL ${f.check}: ${f.message}${f.disagreement ? '  DISAGREEMENT' : ''}\n         points at: ${f.changes.join('; ') || 'no change'}`,
    ),
  ];
}

export function renderHuman(report: CompatReport): string {
  const lines: string[] = [
    `goods-conformance compat: ${report.old.path} (sha256 ${report.old.sha256.slice(0, 12)}) → ${report.new.path} (sha256 ${report.new.sha256.slice(0, 12)})`,
    `${plural(report.counts.changes, 'change')}; counted at level ${report.level}${report.level === 'spec' ? ' (specification facts only)' : ' (specification and profile)'}`,
  ];
  for (const group of groupsOf(report)) {
    lines.push('', `${group.title} (${group.changes.length})`);
    for (const change of group.changes) lines.push(...changeLines(change));
  }
  if (report.proof) {
    lines.push('', `Proof (level ${report.proof.level}, seed ${report.proof.seed})`);
    for (const run of report.proof.runs) lines.push(...runLines(run));
    lines.push(
      report.proof.disagreements.length === 0
        ? '  no disagreement: every failure is explained by a change the static verdict calls breaking'
        : `  ${plural(report.proof.disagreements.length, 'disagreement')}: a run failed where the static verdict says compatible (counted as breaking)`,
    );
  }
  lines.push(
    '',
    `Verdict: ${report.verdict.clients} for clients, ${report.verdict.servers} for servers; --fail-on ${report.failOn}: exit ${report.exitCode}`,
  );
  return `${escapeControls(lines.join('\n'))}\n`;
}
