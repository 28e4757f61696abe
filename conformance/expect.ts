/**
 * A broken rule as a CheckFailure: the rule, the request (credentials redacted), the status and the
 * first part of the answer. (The rules themselves are judged by `judgments/`.)
 */
import { CheckFailure, type ShownRequest } from './failure.js';
import type { Exchange, HttpAnswer } from './http.js';

/** How much of a body a report shows. */
const SHOWN_CHARS = 300;

export function cut(text: string, max = SHOWN_CHARS): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}… (${text.length} chars)` : flat;
}

/** Secrets shorter than this are hidden only where credentials go (a 1-letter token would garble every text). */
const MIN_SCANNED_SECRET = 6;

export function showRequest(exchange: Exchange, secrets: readonly string[]): ShownRequest {
  const { request } = exchange;
  const scanned = secrets.filter((s) => s.length >= MIN_SCANNED_SECRET);
  const redact = (value: string): string => scanned.reduce((v, s) => v.split(s).join('<redacted>'), value);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    // The credential of an Authorization header is never shown, whatever its scheme or length.
    if (name.toLowerCase() !== 'authorization') headers[name] = redact(value);
    else headers[name] = /^\S+\s/.test(value) ? `${value.split(/\s/, 1)[0] ?? ''} <redacted>` : '<redacted>';
  }
  const shown: ShownRequest = { method: request.method, path: request.path, headers };
  if (request.body !== undefined) shown.body = cut(redact(request.body.toString('utf8')));
  return shown;
}

/** An exchange that has an answer. */
export type Answered = Exchange & { answer: HttpAnswer };

export class Expect {
  private readonly secrets: string[];
  constructor(secrets: readonly string[]) {
    this.secrets = [...secrets];
  }

  /** A value never shown in a report (it is replaced by `<redacted>`). */
  addSecret(secret: string): void {
    this.secrets.push(secret);
  }

  failure(exchange: Exchange | undefined, rule: string, expected: string, actual: string): CheckFailure {
    return new CheckFailure({
      rule,
      expected,
      actual,
      ...(exchange ? { request: showRequest(exchange, this.secrets) } : {}),
      ...(exchange?.answer ? { status: exchange.answer.status, answer: cut(exchange.answer.text) } : {}),
    });
  }
}
