/**
 * Rate limits: an answer 429 (Too Many Requests, RFC 6585 §4) or 503 with `Retry-After` (RFC 9110
 * §10.2.3, §15.6.4) asks the client to come back later. The run then slows down: no request of the
 * run is sent before the time the server named (`Pace`), the request is sent again, and nothing of it
 * is counted against the server. A 429 without `Retry-After` is waited out the way HTTP clients back
 * off (1 s, then 2 s, 4 s, 8 s). A 503 without `Retry-After` is an answer like any other (judged).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits for one request before it is given up as rate-limited (not run, never failed). */
export const MAX_WAITS = 10;
/** Back-off waits for a 429 without Retry-After (1 s, 2 s, 4 s, 8 s), then the request is given up as rate-limited. */
export const BACKOFF_MS = [1000, 2000, 4000, 8000] as const;
/** The longest single wait without --deadline; a longer Retry-After leaves the request not run (rate-limited). */
export const MAX_WAIT_MS = 60_000;

/**
 * The wait a `Retry-After` value asks for, in ms: delay-seconds, or an HTTP-date (counted from the
 * answer's `Date` when it has one, else from now). Undefined when absent or not one of the two forms.
 */
export function retryAfterMs(value: string | undefined, answerDate?: string, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(text)) return undefined;
  const sent = answerDate !== undefined ? Date.parse(answerDate) : NaN;
  return Math.max(0, at - (Number.isNaN(sent) ? now : sent));
}

/**
 * What an answer asks of the client: to wait this many ms and send the request again; `give-up` for a
 * 429 without Retry-After past the back-off waits; undefined for any other answer (it is judged).
 */
export function rateLimit(status: number, headers: Readonly<Record<string, string>>, waitsSoFar: number): number | 'give-up' | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const asked = retryAfterMs(headers['retry-after'], headers['date']);
  if (asked !== undefined) return asked;
  if (status === 503) return undefined;
  return BACKOFF_MS[waitsSoFar] ?? 'give-up';
}

/** The run's pace: the time before which no request is sent, and how often and how long the server made it wait. */
export class Pace {
  private notBefore = 0;
  /** Answers that asked the run to wait. */
  waits = 0;
  /** Wall time during which the run sent nothing because the server asked it to wait (overlaps counted once). */
  pausedMs = 0;

  /** The server asked to wait `ms` from now. */
  hold(ms: number, now = Date.now()): void {
    this.waits += 1;
    const until = now + ms;
    const from = Math.max(now, this.notBefore);
    if (until > from) {
      this.pausedMs += until - from;
      this.notBefore = until;
    }
  }

  /** Epoch ms before which nothing is sent. */
  get until(): number {
    return this.notBefore;
  }

  /** Resolves once requests may be sent again. */
  async ready(): Promise<void> {
    for (let left = this.notBefore - Date.now(); left > 0; left = this.notBefore - Date.now()) await sleep(left);
  }
}
