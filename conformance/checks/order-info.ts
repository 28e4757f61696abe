/** Checks of "get order information". */
import { judgeExactOrder, judgeExistingOrderAnswered, judgeOrderShape, judgeUnknownOrder404 } from '../../judgments/order-info.js';
import { judgeMethodNotAllowed } from '../../judgments/request-errors.js';
import { PROFILE, SPEC } from '../../judgments/rules.js';
import { statusIs } from '../../judgments/answer.js';
import type { Cases } from '../cases.js';
import { decodingExplanation } from '../configuration.js';
import type { CheckContext } from '../context.js';
import {
  encodedRealExchange,
  on2xx,
  UNKNOWN_NUMBER_CASES,
  unknownNumbers,
  variantExchange,
  type CheckSource,
  type UnknownNumber,
} from './helpers.js';
import type { Check } from './types.js';

const MAIN = 'the --order-number order';
const ENCODED = 'the --order-number order, first character percent-encoded';

/** Runs a judgment over the unknown-number variants. */
async function overUnknown(ctx: CheckContext, t: Cases, judge: (variant: UnknownNumber) => Parameters<Cases['judge']>[2]): Promise<void> {
  for (const variant of unknownNumbers(ctx.config.orderNumber, ctx.config.unknownOrderNumber)) {
    await t.judge(variant.name, () => variantExchange(ctx, variant.number), judge(variant));
  }
}

/** The checks of the order-info operation. */
export function orderInfoChecks(source: CheckSource): Check[] {
  if (source.model.orderInfo === undefined) return [];
  const OP = source.model.orderInfo.operationId;
  const METHOD = source.model.orderInfo.method;
  return [
    {
      id: `${OP}.valid-request-2xx`,
      level: 'spec',
      operations: [OP],
      title: 'GET of an existing order with the token is answered 2xx',
      rule: SPEC.validRequest,
      cases: [MAIN, ENCODED],
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
    },
    {
      id: `${OP}.answer-shape`,
      level: 'spec',
      operations: [OP],
      title: 'the 2xx answer is application/json with order, containers, charges, lots of the listed types',
      rule: SPEC.orderInfo,
      cases: [MAIN],
      async run(ctx, t) {
        await t.judge(
          MAIN,
          () => ctx.orderExchange(),
          on2xx((e) => judgeOrderShape(e, ctx.judge, 'spec')),
        );
      },
    },
    {
      id: `${OP}.exact-order`,
      level: 'spec',
      operations: [OP],
      title: 'the answer describes the requested order (order.orderNumber equals the number)',
      rule: SPEC.exactOrder,
      cases: [MAIN, ENCODED],
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
    },
    {
      id: `${OP}.unknown-number-not-another-order`,
      level: 'spec',
      operations: [OP],
      title: 'an unknown order number (however close to a real one) is never answered with another order',
      rule: SPEC.exactOrder,
      cases: UNKNOWN_NUMBER_CASES,
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
    },
    {
      id: `${OP}.status-200`,
      level: 'strict',
      operations: [OP],
      title: 'order info success is 200',
      rule: PROFILE.orderInfoSuccess,
      cases: [MAIN, ENCODED],
      async run(ctx, t) {
        await t.judge(
          MAIN,
          () => ctx.orderExchange(),
          (e) => statusIs(e, this.rule, 200),
        );
        await t.judge(
          ENCODED,
          () => encodedRealExchange(ctx),
          (e) => statusIs(e, this.rule, 200),
        );
      },
    },
    {
      id: `${OP}.strict-shape`,
      level: 'strict',
      operations: [OP],
      title: 'every listed field present, dates are RFC 3339 (strict schema)',
      rule: PROFILE.formats,
      cases: [MAIN],
      async run(ctx, t) {
        await t.judge(
          MAIN,
          () => ctx.orderExchange(),
          on2xx((e) => judgeOrderShape(e, ctx.judge, 'strict')),
        );
      },
    },
    {
      id: `${OP}.unknown-404`,
      level: 'strict',
      operations: [OP],
      title: 'an unknown order number is answered 404 (the --unknown-order-number: never a 2xx, whatever it describes)',
      rule: PROFILE.unknownOrder,
      cases: UNKNOWN_NUMBER_CASES,
      async run(ctx, t) {
        await overUnknown(
          ctx,
          t,
          ({ number, ...options }) =>
            (e) =>
              judgeUnknownOrder404(e, ctx.judge, number, options),
        );
      },
    },
    {
      id: `${OP}.wrong-method-405`,
      level: 'strict',
      operations: [OP],
      title: 'POST on the order-info path is answered 405 with Allow: GET',
      rule: PROFILE.wrongMethod,
      write: true,
      cases: ['POST with the token'],
      async run(ctx, t) {
        await t.judge(
          'POST with the token',
          () => ctx.send({ operation: OP, method: 'POST', path: ctx.path(OP), headers: { ...ctx.credentialsOf(OP).headers } }),
          (e) => judgeMethodNotAllowed(e, this.rule, METHOD),
        );
      },
    },
  ];
}
