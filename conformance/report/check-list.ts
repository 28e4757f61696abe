/**
 * `--list-checks`: every check of the level with its level, rule and the cases it sends, grouped by
 * operation. A pure function of the registered checks (nothing is sent).
 */
import type { Level } from '../../contract/levels.js';
import { escapeControls } from '../secrets.js';

/** What the list shows of a check (the registered `Check` has these members; `cases` when it lists them). */
export interface ListedCheck {
  id: string;
  level: Level;
  operations: readonly string[];
  title: string;
  rule: string;
  write?: boolean;
  /** The documented cases the check sends (names of partition classes). */
  cases?: readonly string[];
}

export function renderCheckList(checks: readonly ListedCheck[], level: Level): string {
  const groups = new Map<string, ListedCheck[]>();
  for (const check of checks) {
    const operation = check.operations[0] ?? 'server';
    groups.set(operation, [...(groups.get(operation) ?? []), check]);
  }
  let text = `goods conformance: ${checks.length} checks at level ${level}\n`;
  for (const [operation, list] of groups) {
    text += `\n${escapeControls(operation)}\n`;
    for (const check of list) {
      text += `  [${check.level}]${' '.repeat(Math.max(1, 8 - check.level.length - 2))}${escapeControls(check.id)}${check.write ? ' (writes)' : ''}\n`;
      text += `      ${escapeControls(check.title)}\n      rule: ${escapeControls(check.rule)}\n`;
      if (check.cases && check.cases.length > 0) {
        text += `      cases (${check.cases.length}): ${check.cases.map(escapeControls).join('; ')}\n`;
      }
    }
  }
  return text;
}
