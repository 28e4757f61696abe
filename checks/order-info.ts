/** Checks of the order read ("get order information"): one check per `defineCheck`, each with its faults. */
import { isObject } from '../contract/document.js';
import { orderRead, type OperationId, type OperationsModel } from '../contract/operations-model.js';
import { statusIs } from '../judgments/answer.js';
import type { Violation } from '../judgments/exchange.js';
import {
  decodingExplanation,
  judgeExactOrder,
  judgeExistingOrderAnswered,
  judgeOrderShape,
  judgeUnknownOrder404,
} from '../judgments/order-info.js';
import { judgeMethodNotAllowed } from '../judgments/request-errors.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { defineCheck, type SuiteCases, type SuiteContext, type SuiteExchange } from './define.js';
import { on2xx } from './skip.js';

const MAIN = 'the --order-number order';
const ENCODED = 'the --order-number order, first character percent-encoded';

/** The order read, when the contract has one: each check here is made for it alone. */
const orderInfo = (model: OperationsModel): OperationId[] => (model.orderInfo !== undefined ? [model.orderInfo.operationId] : []);

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
function encodedRealPath<X extends SuiteExchange>(ctx: SuiteContext<X>): string {
  const real = ctx.config.orderNumber;
  const first = real.charAt(0);
  const encoded = `%${first.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}${encodeURIComponent(real.slice(1))}`;
  const { op } = orderRead(ctx.model);
  return op.path.replace(`{${op.keyParam ?? ''}}`, first.charCodeAt(0) < 128 ? encoded : encodeURIComponent(real));
}

/** The GET of an order-number variant (memoized: the spec and strict checks judge the same answer). */
const variantExchange = <X extends SuiteExchange>(ctx: SuiteContext<X>, number: string): Promise<X> =>
  ctx.memo(`order/${number}`, () => ctx.getOrder(number));

const encodedRealExchange = <X extends SuiteExchange>(ctx: SuiteContext<X>): Promise<X> =>
  ctx.memo('order/encoded', () => ctx.getOrder(ctx.config.orderNumber, undefined, encodedRealPath(ctx)));

/** Runs a judgment over the unknown-number variants. */
async function overUnknown<X extends SuiteExchange>(
  ctx: SuiteContext<X>,
  t: SuiteCases<X>,
  judge: (variant: UnknownNumber) => (exchange: X) => Violation[],
): Promise<void> {
  for (const variant of unknownNumbers(ctx.config.orderNumber, ctx.config.unknownOrderNumber)) {
    await t.judge(variant.name, () => variantExchange(ctx, variant.number), judge(variant));
  }
}

export const orderValidRequest = defineCheck({
  name: 'valid-request-2xx',
  level: 'spec',
  operations: orderInfo,
  title: 'GET of an existing order with the token is answered 2xx',
  rule: SPEC.validRequest,
  cases: () => [MAIN, ENCODED],
  async run(ctx, t) {
    // A 404 to a number that needs percent-encoding may be the server's decoding: the failure names both explanations.
    const explained = decodingExplanation(ctx.config.orderNumber);
    await t.judge(
      MAIN,
      () => ctx.orderExchange(),
      (e) =>
        judgeExistingOrderAnswered(e).map((v) =>
          e.answer?.status === 404 && explained !== undefined ? { ...v, reason: `${v.reason}: ${explained}` } : v,
        ),
    );
    await t.judge(ENCODED, () => encodedRealExchange(ctx), judgeExistingOrderAnswered);
  },
  // Every order refused; the path's number not decoded.
  faults: () => [{ faults: ['order-always-404'] }, { faults: ['path-not-decoded'] }],
});

export const orderAnswerShape = defineCheck({
  name: 'answer-shape',
  level: 'spec',
  operations: orderInfo,
  title: 'the 2xx answer is application/json with order, containers, charges, lots of the listed types',
  rule: SPEC.orderInfo,
  cases: () => [MAIN],
  async run(ctx, t) {
    await t.judge(
      MAIN,
      () => ctx.orderExchange(),
      on2xx((e) => judgeOrderShape(e, ctx.judge, 'spec')),
    );
  },
  faults: () => [{ faults: ['order-wrong-type'] }],
});

export const orderExact = defineCheck({
  name: 'exact-order',
  level: 'spec',
  operations: orderInfo,
  title: 'the answer describes the requested order (order.orderNumber equals the number)',
  rule: SPEC.exactOrder,
  cases: () => [MAIN, ENCODED],
  async run(ctx, t) {
    const number = ctx.config.orderNumber;
    await t.judge(
      MAIN,
      () => ctx.orderExchange(),
      on2xx((e) => judgeExactOrder(e, ctx.judge, number)),
    );
    await t.judge(
      ENCODED,
      () => encodedRealExchange(ctx),
      on2xx((e) => judgeExactOrder(e, ctx.judge, number)),
    );
  },
  faults: () => [{ faults: ['order-number-changed'] }],
  observe: [
    {
      id: 'answer.exact-order',
      level: 'spec',
      side: 'server',
      rule: SPEC.exactOrder,
      judge(input) {
        const { model } = input.jc;
        if (model.order === undefined) return [];
        const requested = input.params[model.order.numberParam];
        if (input.op !== model.orderInfo?.operationId || requested === undefined || !isObject(input.answerBody)) return [];
        return judgeExactOrder(input.exchange, input.jc, requested);
      },
    },
  ],
});

export const orderUnknownNotAnother = defineCheck({
  name: 'unknown-number-not-another-order',
  level: 'spec',
  operations: orderInfo,
  title: 'an unknown order number (however close to a real one) is never answered with another order',
  rule: SPEC.exactOrder,
  cases: () => UNKNOWN_NUMBER_CASES,
  async run(ctx, t) {
    // The spec defines no answer for a number no order has: only describing another order breaks it.
    await overUnknown(
      ctx,
      t,
      ({ number, equivalent }) =>
        (e) =>
          judgeExactOrder(e, ctx.judge, number, equivalent),
    );
  },
  // Partition classes of the order number: an unknown number resembling a real one, one needing encoding.
  faults: () => [{ faults: ['unknown-order-answers-first'] }, { faults: ['order-prefix-match'] }],
});

export const orderStatus200 = defineCheck({
  name: 'status-200',
  level: 'strict',
  operations: orderInfo,
  title: 'order info success is 200',
  rule: PROFILE.orderInfoSuccess,
  cases: () => [MAIN, ENCODED],
  async run(ctx, t) {
    await t.judge(
      MAIN,
      () => ctx.orderExchange(),
      (e) => statusIs(e, PROFILE.orderInfoSuccess, 200),
    );
    await t.judge(
      ENCODED,
      () => encodedRealExchange(ctx),
      (e) => statusIs(e, PROFILE.orderInfoSuccess, 200),
    );
  },
  faults: () => [{ faults: ['order-203'] }],
});

export const orderStrictShape = defineCheck({
  name: 'strict-shape',
  level: 'strict',
  operations: orderInfo,
  title: 'every listed field present, dates are RFC 3339 (strict schema)',
  rule: PROFILE.formats,
  cases: () => [MAIN],
  async run(ctx, t) {
    await t.judge(
      MAIN,
      () => ctx.orderExchange(),
      on2xx((e) => judgeOrderShape(e, ctx.judge, 'strict')),
    );
  },
  faults: () => [{ faults: ['order-date-format'] }],
});

export const orderUnknown404 = defineCheck({
  name: 'unknown-404',
  level: 'strict',
  operations: orderInfo,
  title: 'an unknown order number is answered 404 (the --unknown-order-number: never a 2xx, whatever it describes)',
  rule: PROFILE.unknownOrder,
  cases: () => UNKNOWN_NUMBER_CASES,
  async run(ctx, t) {
    await overUnknown(
      ctx,
      t,
      ({ number, ...options }) =>
        (e) =>
          judgeUnknownOrder404(e, ctx.judge, number, options),
    );
  },
  // Another status; any number answered 200 with an empty order shell carrying that number (the --unknown-order-number too).
  faults: () => [{ faults: ['unknown-order-410'] }, { faults: ['unknown-order-empty-shell'] }],
});

export const orderWrongMethod = defineCheck({
  name: 'wrong-method-405',
  level: 'strict',
  operations: orderInfo,
  title: 'POST on the order-info path is answered 405 with Allow: GET',
  rule: PROFILE.wrongMethod,
  write: true,
  cases: () => ['POST with the token'],
  async run(ctx, t, op) {
    await t.judge(
      'POST with the token',
      () => ctx.send({ operation: op, method: 'POST', path: ctx.path(op), headers: { ...ctx.credentialsOf(op).headers } }),
      (e) => judgeMethodNotAllowed(e, PROFILE.wrongMethod, ctx.model.get(op).method),
    );
  },
  faults: (op) => [{ faults: [`405-no-allow:${op}`] }],
});
