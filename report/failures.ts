/**
 * How a failed check is told, the same in every report: how many of its cases failed, at most
 * SPELLED_OUT of them spelled out (what was wrong, expected, the request, the answer, the rule and a
 * ready-to-paste curl), then the names of the others (every one with its reproduction stays in
 * conformance.json). Pure.
 */

/** Failed cases spelled out per check; the others are named. */
export const SPELLED_OUT = 3;
/** Names of further failed cases listed after those spelled out. */
const NAMED = 10;

export interface FailedCase {
  name: string;
  /** The whole failure (`formatFailure`), or why the case could not complete. */
  message?: string;
}

/** The heading of a failed check: `K of N case(s) failed`. */
export function failureCount(failed: number, total: number): string {
  return `${failed} of ${total} case(s) failed`;
}

/** The failed cases spelled out, and the ones only named. */
export function splitFailed<T extends FailedCase>(failed: readonly T[]): { shown: T[]; others: T[] } {
  return { shown: failed.slice(0, SPELLED_OUT), others: failed.slice(SPELLED_OUT) };
}

/** `… and K more: a; b; c` (at most NAMED names), or nothing. */
export function othersLine(others: readonly FailedCase[]): string | undefined {
  if (others.length === 0) return undefined;
  const names = others.slice(0, NAMED).map((c) => c.name);
  const more = others.length > NAMED ? `; and ${others.length - NAMED} other(s)` : '';
  return `… and ${others.length} more failed: ${names.join('; ')}${more} (every failed case, with its reproduction, is in conformance.json: --reporter json)`;
}

const indent = (text: string, by: number): string => text.replace(/^/gm, ' '.repeat(by));

/** The text of a failed check: the count, each spelled-out case (numbered, its failure indented), the others named. */
export function failureDigest(failed: readonly FailedCase[], total: number, fallback = 'the check failed'): string {
  const { shown, others } = splitFailed(failed);
  const lines = [`${failureCount(failed.length, total)}${others.length > 0 ? `; the first ${shown.length}:` : ':'}`];
  for (const [i, c] of shown.entries()) lines.push(`${i + 1}) ${c.name}`, indent(c.message ?? fallback, 3));
  const rest = othersLine(others);
  if (rest !== undefined) lines.push(rest);
  return lines.join('\n');
}
