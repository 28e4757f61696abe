/**
 * A broken rule as a CheckFailure: the rule, the request (credentials redacted), the status and the
 * first part of the answer. (The rules themselves are judged by `judgments/`.)
 */
import type { ShownRequest } from '../report/failure.js';
import { CheckFailure } from './failure.js';
import type { Exchange, HttpAnswer, HttpRequest } from './http.js';

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

/** The curl that sends a request again, after the requests sent just before it on its connection. */
type Reproduce = (request: HttpRequest, before?: readonly HttpRequest[]) => string | undefined;

/** An exchange that has an answer. */
export type Answered = Exchange & { answer: HttpAnswer };

export class Expect {
  private readonly secrets: string[];
  /**
   * @param reproduce the curl command that sends a request again (`reproduce.ts`), when the run has a
   *   target to send it to
   */
  constructor(
    secrets: readonly string[],
    private readonly reproduce?: Reproduce,
  ) {
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
      ...withNote(exchange),
      ...withCurl(exchange, this.reproduce),
    });
  }
}

function withCurl(exchange: Exchange | undefined, reproduce: Reproduce | undefined): { curl?: string } {
  const curl = exchange && reproduce ? reproduce(exchange.request, exchange.before) : undefined;
  return curl === undefined ? {} : { curl };
}

/** How the request went out, when that matters for reading the answer (see `Exchange`). */
export function noteOf(exchange: Exchange): string | undefined {
  const notes: string[] = [];
  if (exchange.after !== undefined)
    notes.push(
      exchange.connection === 'new'
        ? `sent after ${exchange.after}, on a new connection (the server had closed the one that carried it)`
        : `sent on a kept-alive connection right after ${exchange.after} on it`,
    );
  if (exchange.resent)
    notes.push('sent again on a new connection: the kept-alive one failed before any answer began (closed by the server)');
  if (exchange.retried && exchange.answer)
    notes.push(
      `no answer within ${exchange.retried.afterMs} ms at first: sent again with the limit doubled (${exchange.retried.limitMs} ms), and this is the answer to that retry`,
    );
  if (exchange.waits !== undefined && exchange.waits > 0)
    notes.push(`the server asked the run to wait ${exchange.waits} time(s) first (429/503 with Retry-After), then answered this`);
  return notes.length > 0 ? notes.join('; ') : undefined;
}

function withNote(exchange: Exchange | undefined): { note?: string } {
  const note = exchange ? noteOf(exchange) : undefined;
  return note === undefined ? {} : { note };
}
