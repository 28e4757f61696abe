/** Shared steps of the checks: the memoized requests several checks look at. */
import { isObject, type JsonObject } from '../../contract/document.js';
import type { CheckContext } from '../context.js';
import type { Answered } from '../expect.js';
import { CheckSkipped } from '../failure.js';
import type { Exchange } from '../http.js';
import type { CreateOperationId } from '../operations.js';

export const is2xx = (status: number): boolean => status >= 200 && status <= 299;

export interface Created {
  body: JsonObject;
  exchange: Exchange;
}

/** One create of a body (memoized by key: several checks look at the same answer). */
export function created(
  ctx: CheckContext,
  op: CreateOperationId,
  key: string,
  make: () => Promise<JsonObject>,
  contentType?: string,
): Promise<Created> {
  return ctx.memo(`create/${op}/${key}`, async () => {
    const body = await make();
    return { body, exchange: await ctx.write(op, body, contentType) };
  });
}

/** The main create of an operation: a full generated body. */
export function mainCreate(ctx: CheckContext, op: CreateOperationId): Promise<Created> {
  return created(ctx, op, 'main', () => ctx.body(op, 'main'));
}

/** The 2xx answer of an exchange as a JSON object, or a skip when it is no 2xx (another check fails for that). */
export function successObject(ctx: CheckContext, exchange: Exchange, rule: string): { answered: Answered; value: JsonObject } {
  const answered = ctx.expect.answered(exchange, rule, 'an answer');
  if (!is2xx(answered.answer.status))
    throw new CheckSkipped(`no 2xx answer to examine (status ${answered.answer.status}; the status check reports it)`);
  const value = ctx.expect.json(answered, rule);
  if (!isObject(value)) throw ctx.expect.failure(exchange, rule, 'a JSON object', 'the body is JSON but not an object');
  return { answered, value };
}

/** The 2xx answer, which must exist (used where the check itself is about the create succeeding). */
export function mustSucceed(
  ctx: CheckContext,
  exchange: Exchange,
  rule: string,
  status?: number,
): { answered: Answered; value: JsonObject } {
  const answered = ctx.expect.status(exchange, rule, status ?? is2xx, status === undefined ? 'a 2xx status' : `status ${status}`);
  const value = ctx.expect.json(answered, rule);
  if (!isObject(value)) throw ctx.expect.failure(exchange, rule, 'a JSON object', 'the body is JSON but not an object');
  return { answered, value };
}

/** The exchange is a 405 whose Allow header lists `method` (the profile's wrong-method rule). */
export function expectMethodNotAllowed(ctx: CheckContext, exchange: Exchange, rule: string, method: string): void {
  const answered = ctx.expect.status(exchange, rule, 405);
  const allow = answered.answer.headers['allow'];
  const methods = (allow ?? '').split(',').map((m) => m.trim().toUpperCase());
  if (!methods.includes(method))
    throw ctx.expect.failure(
      exchange,
      rule,
      `an Allow header listing ${method}`,
      allow === undefined ? 'no Allow header' : `Allow: ${allow}`,
    );
}

/** `order.orderNumber` of an order-info answer, if there is one. */
export function orderNumberOf(value: JsonObject): unknown {
  const order = value['order'];
  return isObject(order) ? order['orderNumber'] : undefined;
}

/** Finds a challenge of a scheme in a WWW-Authenticate value (several challenges may be joined). */
export function bearerChallenge(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /(?:^|,)\s*Bearer(?=\s|,|$)(.*)$/i.exec(header);
  return match ? match[0].trim() : undefined;
}
