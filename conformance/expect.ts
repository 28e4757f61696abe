/**
 * Small assertions over an exchange. Each throws a CheckFailure carrying the rule, the request
 * (token redacted), the status and the first part of the answer.
 */
import contentType from 'content-type';
import type { Validator } from '../contract/schemas.js';
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

  /** The exchange has an answer (not a time-out, a closed connection or a too large answer). */
  answered(exchange: Exchange, rule: string, expected: string): Answered {
    if (!exchange.answer) throw this.failure(exchange, rule, expected, exchange.error ?? 'no answer');
    return exchange as Answered;
  }

  status(exchange: Exchange, rule: string, expected: number | ((status: number) => boolean), description?: string): Answered {
    const wanted = description ?? (typeof expected === 'number' ? `status ${expected}` : 'another status');
    const answered = this.answered(exchange, rule, wanted);
    const ok = typeof expected === 'number' ? answered.answer.status === expected : expected(answered.answer.status);
    if (!ok) throw this.failure(exchange, rule, wanted, `the answer has status ${answered.answer.status}`);
    return answered;
  }

  /** The answer's media type (without parameters), lower case; undefined when absent or unparsable. */
  mediaType(answer: HttpAnswer): string | undefined {
    const header = answer.headers['content-type'];
    if (header === undefined) return undefined;
    try {
      return contentType.parse(header).type.toLowerCase();
    } catch {
      return undefined;
    }
  }

  contentType(exchange: Answered, rule: string, wanted: string): void {
    const type = this.mediaType(exchange.answer);
    if (type !== wanted) {
      const header = exchange.answer.headers['content-type'];
      throw this.failure(
        exchange,
        rule,
        `Content-Type ${wanted}`,
        header === undefined ? 'the answer has no Content-Type' : `the answer's Content-Type is "${header}"`,
      );
    }
  }

  json(exchange: Answered, rule: string): unknown {
    try {
      return JSON.parse(exchange.answer.text) as unknown;
    } catch (error) {
      throw this.failure(exchange, rule, 'a JSON body', `the body is not JSON (${(error as Error).message})`);
    }
  }

  valid(exchange: Answered, rule: string, validator: Validator, value: unknown, what: string): void {
    const problems = validator(value);
    if (problems.length > 0) {
      const list = problems
        .slice(0, 8)
        .map((p) => `${p.pointer || '(root)'} ${p.detail}`)
        .join('; ');
      throw this.failure(
        exchange,
        rule,
        what,
        `the body breaks the schema: ${list}${problems.length > 8 ? ` (+${problems.length - 8} more)` : ''}`,
      );
    }
  }
}
