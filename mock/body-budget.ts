/**
 * The request-body bytes being read at once, all connections together (`--max-body-bytes-in-flight`).
 * A body that would pass the budget is refused with 503 (and its connection closed), so slow or
 * stalled uploads cannot hold unbounded memory; everyone else keeps being served. The first 64 KiB of
 * each body are not counted, so small requests always pass (at most `--max-connections` × 64 KiB more).
 */
import { problem, type ProblemError } from './problems.js';

export class BodyBudget {
  private used = 0;
  /**
   * @param max bytes of request bodies in flight, all connections together
   * @param freePerRequest the first bytes of each body, not counted: a small request (a normal create) is
   *   never refused because of others' large uploads; their sum is bounded by the connection limit.
   */
  constructor(
    readonly max: number,
    readonly freePerRequest = 64 * 1024,
  ) {}

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
