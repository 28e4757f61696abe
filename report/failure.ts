/**
 * A failed check, as data: the rule it enforces, the request that showed it, what came back and
 * what was expected. The suite's checks and the proxy's judging produce it; every renderer prints
 * it through `formatFailure`.
 */

/** A request as shown in a report (the token is redacted, big bodies are cut). */
export interface ShownRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FailureDetails {
  /** The rule the check enforces (quoted from the contract's spec-level facts or profile). */
  rule: string;
  /** What the check expected. */
  expected: string;
  /** What was wrong, in one sentence. */
  actual: string;
  request?: ShownRequest;
  /** The HTTP status of the answer, when there was one. */
  status?: number;
  /** The first part of the answer's body. */
  answer?: string;
  /** How the request went out, when that matters (sent again after a time-out, right after an authenticated request on the same connection). */
  note?: string;
  /** A ready-to-paste curl command that sends the request again (the token as `$CONFORMANCE_TOKEN`). */
  curl?: string;
}

export function formatFailure(d: FailureDetails): string {
  const lines = [`${d.actual}`, `expected: ${d.expected}`];
  if (d.request) {
    lines.push(`request:  ${d.request.method} ${d.request.path}`);
    const headers = Object.entries(d.request.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ');
    if (headers) lines.push(`          ${headers}`);
    if (d.request.body !== undefined) lines.push(`          body ${d.request.body}`);
  }
  if (d.note !== undefined) lines.push(`note:     ${d.note}`);
  if (d.status !== undefined) lines.push(`answer:   ${d.status} ${d.answer ?? ''}`.trimEnd());
  else if (d.answer !== undefined) lines.push(`answer:   ${d.answer}`);
  lines.push(`rule:     ${d.rule}`);
  if (d.curl !== undefined) lines.push(`reproduce:\n${d.curl.replace(/^/gm, '  ')}`);
  return lines.join('\n');
}
