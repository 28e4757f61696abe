/**
 * Scenario control compatible with Prism: `Prefer: code=<status>`. It acts only after security and
 * input validation (a refused request stays refused): a documented error status is answered with that
 * operation's own example from the contract; a documented success status is the real, stateful answer
 * (so it can still be a 404 or a 422). An undocumented status is a 400 problem that lists the
 * documented ones.
 */
import type { JsonValue, OperationSpec } from '../contract/document.js';
import { REALM } from './auth.js';
import { INJECTED_STATUSES } from './faults.js';
import { preferenceValue } from './prefer-header.js';
import { problem } from './problems.js';

export interface PreferredAnswer {
  status: number;
  contentType?: string;
  /** The contract's example, serialized once: one copy for every answer. */
  body: Buffer;
  headers: Record<string, string>;
}

/** The `code` a Prefer header asks for, or undefined; trailing text stays part of it (`404 x` is no documented status). */
export function preferredCode(header: string | undefined): string | undefined {
  return preferenceValue(header, 'code');
}

/** Precomputes the answer of every documented status of an operation. */
export function preferredAnswers(operation: OperationSpec): Map<string, PreferredAnswer> {
  const answers = new Map<string, PreferredAnswer>();
  for (const response of operation.responses) {
    if (!/^\d{3}$/.test(response.status)) continue;
    const [contentType] = [...response.content.keys()];
    const example: JsonValue | undefined = contentType === undefined ? undefined : response.examples.get(contentType);
    const headers: Record<string, string> = {};
    if (response.headers.includes('www-authenticate')) headers['WWW-Authenticate'] = `Bearer realm="${REALM}", error="invalid_token"`;
    answers.set(response.status, {
      status: Number(response.status),
      ...(contentType !== undefined && example !== undefined ? { contentType } : {}),
      body: Buffer.from(example === undefined ? '' : JSON.stringify(example)),
      headers,
    });
  }
  return answers;
}

/** What a request's preference asks for, once security and validation have passed. */
export type Preference = { kind: 'real' } | { kind: 'error'; code: string; answer: PreferredAnswer };

/** Decides the preference of a request: none or a 2xx one is the real answer. Throws a 400 problem for an undocumented code. */
export function choosePreference(
  answers: Map<string, PreferredAnswer>,
  header: string | string[] | undefined,
  operationId: string,
): Preference {
  const code = preferredCode(Array.isArray(header) ? header.join(', ') : header);
  if (code === undefined) return REAL;
  const answer = pickPreferred(answers, code, operationId);
  return answer.status < 300 ? REAL : { kind: 'error', code, answer };
}

const REAL: Preference = { kind: 'real' };

/** The answer for `code`, or a 400 problem naming the documented codes. */
export function pickPreferred(answers: Map<string, PreferredAnswer>, code: string, operationId: string): PreferredAnswer {
  const answer = answers.get(code);
  if (answer) return answer;
  // A server error is no documented answer, but a fault the client may ask for: say how.
  const fault = Object.hasOwn(INJECTED_STATUSES, code) ? ` To inject a ${code}, send Prefer: fault=status:${code} (docs/faults.md).` : '';
  throw problem(
    'invalidPrefer',
    `Prefer: code=${code.slice(0, 10)} is not a documented status of ${operationId}; use one of ${[...answers.keys()].join(', ')}.${fault}`,
  );
}
