/** Judgments of order-info exchanges (spec fact 3, 6; the profile's 200, formats, unknown 404). */
import { isObject, type JsonObject } from '../contract/document.js';
import { orderRead, type OperationsModel } from '../contract/operations-model.js';
import { is2xx, mediaTypeIs, objectOf, schemaValid, statusIs } from './answer.js';
import type { JudgeContext, JudgedExchange, Violation } from './exchange.js';
import { PROFILE, SPEC } from './rules.js';
import { childPointer } from '../util/json-pointer.js';

/** `order.orderNumber` of an order-info answer, if there is one. */
export function orderNumberOf(model: OperationsModel, value: JsonObject): unknown {
  const { links } = orderRead(model);
  const order = value[links.orderMember];
  return isObject(order) ? order[links.orderNumberMember] : undefined;
}

/** Spec fact 6: a GET of an existing order with the accepted token is answered 2xx. */
export function judgeExistingOrderAnswered(exchange: JudgedExchange): Violation[] {
  return statusIs(exchange, SPEC.validRequest, is2xx, 'a 2xx status');
}

/** Spec fact 3: a 2xx answer is application/json, an order-info object of the listed types (spec level). */
export function judgeOrderShape(exchange: JudgedExchange, jc: JudgeContext, level = jc.level): Violation[] {
  const answer = exchange.answer;
  if (!answer || !is2xx(answer.status)) return [];
  const rule = level === 'spec' ? SPEC.orderInfo : PROFILE.formats;
  const parsed = objectOf(answer, rule);
  if ('violation' in parsed) return [parsed.violation];
  const schema = jc.contracts[level].validator({ $ref: `#/components/schemas/${orderRead(jc.model).op.successSchema ?? ''}` });
  return [
    ...(level === 'spec' ? mediaTypeIs(answer, rule, 'application/json') : []),
    ...schemaValid(parsed.value, schema, rule, `an order-info object (${level} level)`),
  ];
}

/**
 * Spec fact 3: a 2xx answer describes the requested order (its order number equals `requested`, or one
 * of `equivalent`: numbers a server may rightly treat as the same, e.g. under a case-insensitive lookup).
 */
export function judgeExactOrder(
  exchange: JudgedExchange,
  jc: JudgeContext,
  requested: string,
  equivalent: readonly string[] = [],
): Violation[] {
  const answer = exchange.answer;
  if (!answer || !is2xx(answer.status)) return [];
  const parsed = objectOf(answer, SPEC.exactOrder);
  if ('violation' in parsed) return [parsed.violation];
  const number = orderNumberOf(jc.model, parsed.value);
  if (number === requested || (typeof number === 'string' && equivalent.includes(number))) return [];
  const { orderMember, orderNumberMember } = orderRead(jc.model).links;
  return [
    {
      rule: SPEC.exactOrder,
      pointer: childPointer(childPointer('', orderMember), orderNumberMember),
      expected: `no 2xx, or a 2xx describing order ${JSON.stringify(requested)}`,
      reason: `a 2xx answer describing order ${JSON.stringify(number)}`,
    },
  ];
}

/** How an unknown number may be answered besides 404 (see `judgeUnknownOrder404`). */
export interface UnknownNumberOptions {
  /** Numbers a server may rightly take for the requested one (a 2xx describing one of them passes). */
  equivalent?: readonly string[];
  /** Statuses a server or proxy may rightly answer for this number, e.g. 400 for an encoded slash. */
  alsoAllowed?: readonly number[];
  /**
   * No order can have this number (the suite's own unknown number, made of the run marker, or the
   * user's `--unknown-order-number`): any 2xx is a violation, whatever its body describes.
   */
  certainlyUnknown?: boolean;
}

/**
 * Profile: an unknown order number is answered 404. A near miss of a real number answered 2xx with
 * exactly that number (or an equivalent one) means the server holds it, and passes; for a number no
 * order can have (`certainlyUnknown`), a 2xx is a violation even when it describes that number (an
 * empty order shell is not a 404).
 */
export function judgeUnknownOrder404(
  exchange: JudgedExchange,
  jc: JudgeContext,
  requested: string,
  options: UnknownNumberOptions = {},
): Violation[] {
  const { equivalent = [], alsoAllowed = [], certainlyUnknown = false } = options;
  const answer = exchange.answer;
  if (answer && is2xx(answer.status) && certainlyUnknown)
    return [
      {
        rule: PROFILE.unknownOrder,
        expected: 'status 404',
        reason: `the answer has status ${answer.status} for ${JSON.stringify(requested)}, a number no order has: a 2xx says the order exists, whatever the body describes`,
      },
    ];
  if (answer && is2xx(answer.status) && judgeExactOrder(exchange, jc, requested, equivalent).length === 0) return [];
  if (answer && alsoAllowed.includes(answer.status)) return [];
  return statusIs(exchange, PROFILE.unknownOrder, 404);
}

/**
 * Why a 404 to the main order may be the server's fault: its number needs percent-encoding in the
 * path. Both explanations, with the decoding faults that fit the number's characters; undefined for a
 * number sent as it is.
 */
export function decodingExplanation(orderNumber: string): string | undefined {
  const encoded = encodeURIComponent(orderNumber);
  if (encoded === orderNumber) return undefined;
  const ways: string[] = [];
  if (orderNumber.includes('%')) ways.push('decodes the path twice (`%25` read as `%`)');
  if (/[?#]/.test(orderNumber)) ways.push('decodes the path before cutting off its query or fragment (`%3F` read as `?`, `%23` as `#`)');
  if (orderNumber.includes('/')) ways.push('takes `%2F` for `/` (a path segment more)');
  ways.push('does not decode the path segment as RFC 3986 says');
  return `the order number ${JSON.stringify(orderNumber)} needs percent-encoding in the path (sent as ${encoded}): either the server ${ways.join(', or ')}; or --order-number names no order on this server`;
}
