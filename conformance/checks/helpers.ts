/** Shared steps of the checks: what a check list is built from, the order-number variants, created answers. */
import { readContract, type OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import { orderRead, type CreateOperationId, type OperationsModel } from '../../contract/operations-model.js';
import type { CompiledContract } from '../../contract/schemas.js';
import { judgeContexts } from '../../judgments/context.js';
import { is2xx } from '../../judgments/answer.js';
import type { Violation } from '../../judgments/exchange.js';
import type { CheckContext } from '../context.js';
import { CheckSkipped } from '../failure.js';
import type { Exchange } from '../http.js';

/** What a list of checks is built from: a contract's operations model and its schemas compiled at both levels. */
export interface CheckSource {
  model: OperationsModel;
  contracts: Record<Level, CompiledContract>;
}

export function sourceOf(document: OpenApiDocument): CheckSource {
  const { model, contracts } = judgeContexts(document).strict;
  return { model, contracts };
}

/** The bundled contract: the default checks, `--list-checks` without --contract, and the suite's own fault table. */
export const BUNDLED: CheckSource = sourceOf(readContract());
export const MODEL: OperationsModel = BUNDLED.model;
export const CREATE_IDS: CreateOperationId[] = MODEL.createIds;
export const OPERATION_IDS = MODEL.operations.map((op) => op.operationId);

/** The case is about a 2xx answer: skipped (not applicable) when there is none (another check fails for that). */
export function needs2xx(exchange: Exchange): void {
  if (!exchange.answer) throw new CheckSkipped(`no answer to examine (${exchange.error ?? 'none'}; the status check reports it)`);
  if (!is2xx(exchange.answer.status))
    throw new CheckSkipped(`no 2xx answer to examine (status ${exchange.answer.status}; the status check reports it)`);
}

/** A judgment applied only to a 2xx answer (the case is skipped otherwise). */
export function on2xx<A extends unknown[]>(
  judge: (exchange: Exchange, ...rest: A) => Violation[],
): (exchange: Exchange, ...rest: A) => Violation[] {
  return (exchange, ...rest) => {
    needs2xx(exchange);
    return judge(exchange, ...rest);
  };
}

/** One order number no order should have (see `unknownNumbers`). */
export interface UnknownNumber {
  name: string;
  number: string;
  equivalent: string[];
  alsoAllowed?: number[];
  /** No order can have it (the --unknown-order-number): at strict, any 2xx fails, whatever it describes. */
  certainlyUnknown?: boolean;
}

/**
 * Order numbers no order should have: the --unknown-order-number (by default made of the run marker,
 * which no server can hold: `certainlyUnknown`), and near misses of the real one, each resembling it
 * in a different way (or needing encoding). A near miss answered 2xx with exactly its own number means
 * the server holds such an order, which the suite cannot rule out; `equivalent`: the real number,
 * where a correct server may take the variant for it (a case-insensitive or space-padded lookup, as
 * many databases do); answering the real order is then not counted against it, answering any other
 * order is.
 */
export function unknownNumbers(real: string, unknown: string): UnknownNumber[] {
  const swapped = [...real].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  const list: UnknownNumber[] = [
    { name: 'the --unknown-order-number', number: unknown, equivalent: [], certainlyUnknown: true },
    { name: 'the real number with a suffix', number: `${real}-CONFORMANCE-0`, equivalent: [] },
    { name: 'a prefix of the real number', number: real.slice(0, -1), equivalent: [] },
    { name: 'the real number in another letter case (the real order accepted too)', number: swapped, equivalent: [real] },
    { name: 'the real number with a trailing space, %20 (the real order accepted too)', number: `${real} `, equivalent: [real] },
    {
      name: 'the real number with an encoded slash, %2F (400 accepted too: servers may refuse it)',
      number: `${real}/1`,
      equivalent: [],
      alsoAllowed: [400],
    },
    { name: 'the real number with a non-ASCII suffix (UTF-8, percent-encoded)', number: `${real}-Ä`, equivalent: [] },
  ];
  return list.filter((c) => c.number.length > 0 && c.number !== real);
}

/** The case names of `unknownNumbers`, for the documented case lists. */
export const UNKNOWN_NUMBER_CASES = unknownNumbers('R-1', 'U').map((c) => c.name);

/** The path of the real order number with its first character percent-encoded (the same order, per RFC 3986). */
export function encodedRealPath(ctx: CheckContext): string {
  const real = ctx.config.orderNumber;
  const first = real.charAt(0);
  const encoded = `%${first.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}${encodeURIComponent(real.slice(1))}`;
  const { op } = orderRead(ctx.model);
  return op.path.replace(`{${op.keyParam ?? ''}}`, first.charCodeAt(0) < 128 ? encoded : encodeURIComponent(real));
}

/** The GET of an order-number variant (memoized: the spec and strict checks judge the same answer). */
export function variantExchange(ctx: CheckContext, number: string): Promise<Exchange> {
  return ctx.memo(`order/${number}`, () => ctx.getOrder(number));
}

export function encodedRealExchange(ctx: CheckContext): Promise<Exchange> {
  return ctx.memo('order/encoded', () => ctx.getOrder(ctx.config.orderNumber, undefined, encodedRealPath(ctx)));
}

export type { CreateOperationId };
