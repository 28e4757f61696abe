/**
 * The request-body bytes being read at once, all connections together (`--max-body-bytes-in-flight`).
 * A body that would pass the budget is refused with 503 (and its connection closed), so slow or
 * stalled uploads cannot hold unbounded memory; everyone else keeps being served.
 */
import { problem, type ProblemError } from './problems.js';

export class BodyBudget {
  private used = 0;
  constructor(readonly max: number) {}

  /** Takes `bytes` from the budget; false (nothing taken) when that would pass it. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inFlight(): number {
    return this.used;
  }

  exhausted(): ProblemError {
    return problem(
      'busy',
      `The mock is reading ${this.max} bytes of request bodies at once, its most (--max-body-bytes-in-flight); retry shortly, or raise the option.`,
      undefined,
      { 'Retry-After': '1', Connection: 'close' },
    );
  }
}
