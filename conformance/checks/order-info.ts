/** Checks of "get order information". */
import type { CheckContext } from '../context.js';
import { PROFILE, SPEC } from '../rules.js';
import { expectMethodNotAllowed, is2xx, orderNumberOf, successObject } from './helpers.js';
import type { Check } from './types.js';

const OP = 'getOrderInfo' as const;

function unknownExchange(ctx: CheckContext) {
  return ctx.memo('unknown-order', () => ctx.getOrder(ctx.config.unknownOrderNumber));
}

export const orderInfoChecks: Check[] = [
  {
    id: `${OP}.valid-request-2xx`,
    level: 'spec',
    operations: [OP],
    title: 'GET of an existing order with the token is answered 2xx',
    rule: SPEC.validRequest,
    async run(ctx) {
      ctx.expect.status(await ctx.orderExchange(), this.rule, is2xx, 'a 2xx status');
    },
  },
  {
    id: `${OP}.answer-shape`,
    level: 'spec',
    operations: [OP],
    title: 'the 2xx answer is application/json with order, containers, charges, lots of the listed types',
    rule: SPEC.orderInfo,
    async run(ctx) {
      const exchange = await ctx.orderExchange();
      const { answered, value } = successObject(ctx, exchange, this.rule);
      ctx.expect.contentType(answered, this.rule, 'application/json');
      ctx.expect.valid(answered, this.rule, ctx.schema('spec', 'OrderInfo'), value, 'an order-info object (spec level)');
    },
  },
  {
    id: `${OP}.exact-order`,
    level: 'spec',
    operations: [OP],
    title: 'the answer describes the requested order (order.orderNumber equals the number)',
    rule: SPEC.exactOrder,
    async run(ctx) {
      const exchange = await ctx.orderExchange();
      const { value } = successObject(ctx, exchange, this.rule);
      const number = orderNumberOf(value);
      if (number !== ctx.config.orderNumber) {
        throw ctx.expect.failure(
          exchange,
          this.rule,
          `order.orderNumber "${ctx.config.orderNumber}"`,
          `order.orderNumber is ${JSON.stringify(number)}`,
        );
      }
    },
  },
  {
    id: `${OP}.unknown-number-not-another-order`,
    level: 'spec',
    operations: [OP],
    title: 'an unknown order number is never answered with another order',
    rule: SPEC.exactOrder,
    async run(ctx) {
      const exchange = await unknownExchange(ctx);
      const answered = ctx.expect.answered(exchange, this.rule, 'an answer');
      if (!is2xx(answered.answer.status)) return;
      const { value } = successObject(ctx, exchange, this.rule);
      const number = orderNumberOf(value);
      if (number !== ctx.config.unknownOrderNumber) {
        throw ctx.expect.failure(
          exchange,
          this.rule,
          `no 2xx, or a 2xx describing order "${ctx.config.unknownOrderNumber}"`,
          `a 2xx answer describing order ${JSON.stringify(number)}`,
        );
      }
    },
  },
  {
    id: `${OP}.status-200`,
    level: 'strict',
    operations: [OP],
    title: 'order info success is 200',
    rule: PROFILE.orderInfoSuccess,
    async run(ctx) {
      ctx.expect.status(await ctx.orderExchange(), this.rule, 200);
    },
  },
  {
    id: `${OP}.strict-shape`,
    level: 'strict',
    operations: [OP],
    title: 'every listed field present, dates are RFC 3339 (strict schema)',
    rule: PROFILE.formats,
    async run(ctx) {
      const exchange = await ctx.orderExchange();
      const { answered, value } = successObject(ctx, exchange, this.rule);
      ctx.expect.valid(answered, this.rule, ctx.schema('strict', 'OrderInfo'), value, 'an order-info object (strict level)');
    },
  },
  {
    id: `${OP}.unknown-404`,
    level: 'strict',
    operations: [OP],
    title: 'an unknown order number is answered 404',
    rule: PROFILE.unknownOrder,
    async run(ctx) {
      ctx.expect.status(await unknownExchange(ctx), this.rule, 404);
    },
  },
  {
    id: `${OP}.wrong-method-405`,
    level: 'strict',
    operations: [OP],
    title: 'POST on the order-info path is answered 405 with Allow: GET',
    rule: PROFILE.wrongMethod,
    write: true,
    async run(ctx) {
      const exchange = await ctx.send({ target: OP, method: 'POST', path: ctx.path(OP), headers: { ...ctx.bearer() } });
      expectMethodNotAllowed(ctx, exchange, this.rule, 'GET');
    },
  },
];
