/**
 * The request-body bytes held at once, all connections together (`--max-body-bytes-in-flight`). A body
 * larger than `freePerRequest` (64 KiB) counts in full from its first byte until it has been parsed and
 * checked (the create decided), or its connection is gone; from then on what the request holds (its
 * parsed input, then its answer) counts against the answer budget of its session (`answer-budget.ts`),
 * so a slow reader or a fault that slows the answer never holds what other sessions' bodies need.
 * However many arrive at once the bodies the mock holds stay bounded. A body whose declared length
 * cannot fit is refused with 503 before a byte of it is read (and its connection closed); one without a
 * declared length (chunked) is charged as it arrives and refused as soon as it would pass. Smaller
 * bodies are never charged, so a normal create is never refused because of others' uploads; their sum
 * is bounded by `--max-connections` × 64 KiB.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { problem, type ProblemError } from './problems.js';

/** One request's share of the budget. */
export interface BodyHold {
  /** Charges the body read so far (`size` bytes in all); false (nothing more taken) when that would pass the budget. */
  take(size: number): boolean;
  /** The 503 problem answered when `take` refused. */
  exhausted(): ProblemError;
  /** Gives the body's share back (it has been parsed and checked); later calls do nothing. */
  release(): void;
}

export class BodyBudget {
  private used = 0;
  private readonly small: BodyHold = { take: () => true, exhausted: () => this.exhausted(), release: () => undefined };
  /**
   * @param max bytes of request bodies held at once, all connections together
   * @param freePerRequest a body up to this size is not charged: a small request (a normal create) is
   *   never refused because of others' large uploads; their sum is bounded by the connection limit.
   */
  constructor(
    readonly max: number,
    readonly freePerRequest = 64 * 1024,
  ) {}

  /** The bytes held now (tests). */
  get held(): number {
    return this.used;
  }

  /**
   * Admits the body of `req`, held until `release()` or until `res` closes (answered, or the connection gone). Throws the 503
   * problem at once when its declared length (over `freePerRequest`) cannot fit: nothing of it is read.
   */
  admit(req: IncomingMessage, res: ServerResponse): BodyHold {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    // The hot path: a small body of declared length (the framing never lets it grow) is never charged.
    if (declared <= this.freePerRequest) return this.small;
    let charged = 0;
    let released = false;
    const charge = (bytes: number): boolean => {
      // Answered or gone already: nothing will release a charge, and nothing more of the body is read.
      if (released || res.closed) return true;
      if (this.used + bytes > this.max) return false;
      if (charged === 0) res.once('close', release);
      this.used += bytes;
      charged += bytes;
      return true;
    };
    const release = (): void => {
      if (released) return;
      released = true;
      this.used -= charged;
      charged = 0;
      res.off('close', release);
    };
    if (declared > this.freePerRequest && !charge(declared)) throw this.exhausted();
    return {
      take: (size) => size <= this.freePerRequest || size <= charged || charge(size - charged),
      exhausted: () => this.exhausted(),
      release,
    };
  }

  exhausted(): ProblemError {
    return problem(
      'busy',
      `The mock holds ${this.max} bytes of request bodies at once, its most (--max-body-bytes-in-flight); retry shortly, or raise the option.`,
      undefined,
      { 'Retry-After': '1', Connection: 'close' },
    );
  }
}
