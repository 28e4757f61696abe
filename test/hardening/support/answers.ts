/**
 * Judging an answer: the status the contract prescribes, problem+json for every error, and nothing
 * internal in any body (no stack frames, no file paths of the machine, no module names).
 */
import { PROJECT_ROOT } from '../../../contract/paths.js';
import type { RawAnswer } from './raw-http.js';

const LEAKS: [RegExp, string][] = [
  [/\bat [\w$.<>\s]*\(?(?:file:|node:|\/)[^)\s]*:\d+/, 'a stack frame'],
  [/\n\s+at /, 'a stack frame'],
  [/node_modules/, 'a node_modules path'],
  [/node:internal/, 'a Node internal module'],
  [/\.[cm]?[jt]s:\d+/, 'a source file position'],
  [/file:\/\//, 'a file URL'],
  [/\/(?:home|root|usr|tmp|work)\//, 'a file system path'],
  [/\b(?:TypeError|RangeError|ReferenceError|SyntaxError):/, 'an exception name'],
];

/** What in a body would leak the mock's internals, or undefined. */
export function leakIn(body: string): string | undefined {
  if (body.includes(PROJECT_ROOT)) return `the project path ${PROJECT_ROOT}`;
  for (const [pattern, what] of LEAKS) if (pattern.test(body)) return `${what} (${pattern.source})`;
  return undefined;
}

/** Problems with an error answer (status >= 400): problem+json with a matching status. Empty when fine. */
export function problemFaults(answer: RawAnswer, head: boolean): string[] {
  const faults: string[] = [];
  const type = (answer.headers['content-type'] ?? '').split(';')[0]?.trim();
  if (type !== 'application/problem+json')
    faults.push(`Content-Type ${JSON.stringify(answer.headers['content-type'] ?? null)}, not application/problem+json`);
  if (head) return faults;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    faults.push('the problem body is not JSON');
    return faults;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    faults.push('the problem body is not an object');
    return faults;
  }
  const problem = body as Record<string, unknown>;
  for (const member of ['type', 'title', 'detail'] as const) {
    if (typeof problem[member] !== 'string') faults.push(`problem.${member} is not a string`);
  }
  if (problem['status'] !== answer.status)
    faults.push(`problem.status ${String(problem['status'])} differs from the HTTP status ${answer.status}`);
  return faults;
}
