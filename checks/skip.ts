/**
 * A case that does not apply: the user left it out (`read-only`) or there is nothing to judge. The
 * suite's runner records it as skipped, with its reason (`conformance/cases.ts`).
 */
import { is2xx } from '../judgments/answer.js';
import type { JudgedExchange, Violation } from '../judgments/exchange.js';
import type { SkipReason } from '../report/results.js';

/** The check (or one case of it) does not apply: the user left it out (`read-only`) or there is nothing to judge. */
export class CheckSkipped extends Error {
  readonly reason: SkipReason;
  constructor(message: string, reason: SkipReason = 'not-applicable') {
    super(message);
    this.name = 'CheckSkipped';
    this.reason = reason;
  }
}

/** The case is about a 2xx answer: skipped (not applicable) when there is none (another check fails for that). */
export function needs2xx(exchange: JudgedExchange): void {
  if (!exchange.answer) throw new CheckSkipped(`no answer to examine (${exchange.error ?? 'none'}; the status check reports it)`);
  if (!is2xx(exchange.answer.status))
    throw new CheckSkipped(`no 2xx answer to examine (status ${exchange.answer.status}; the status check reports it)`);
}

/** A judgment applied only to a 2xx answer (the case is skipped otherwise). */
export function on2xx<X extends JudgedExchange, A extends unknown[]>(
  judge: (exchange: X, ...rest: A) => Violation[],
): (exchange: X, ...rest: A) => Violation[] {
  return (exchange, ...rest) => {
    needs2xx(exchange);
    return judge(exchange, ...rest);
  };
}
