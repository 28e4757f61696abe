/** Judgments of requests a server must refuse with a given status (415, 400, 413, 422, 405, 404). */
import { isObject } from '../contract/document.js';
import type { OperationsModel } from '../contract/operations-model.js';
import { statusIs } from './answer.js';
import type { JudgeContext, JudgedExchange, Violation } from './exchange.js';
import { PROFILE } from './rules.js';
import { parseJsonText } from '../util/json.js';

/** The pointers a validation problem's `errors[]` names (empty when the body has none). */
export function errorPointers(model: OperationsModel, text: string): string[] {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return [];
  const value = parsed.value;
  const errors = isObject(value) ? value[model.errorsMember] : undefined;
  if (!Array.isArray(errors)) return [];
  return errors.filter(isObject).flatMap((e) => {
    const pointer = e[model.pointerMember];
    return typeof pointer === 'string' ? [pointer] : [];
  });
}

/** The answer has `status`, and its `errors[]` names every one of `pointers` (one entry per problem). */
export function judgeRefused(
  exchange: JudgedExchange,
  jc: JudgeContext,
  rule: string,
  status: number,
  pointers: readonly string[] = [],
): Violation[] {
  const wrong = statusIs(exchange, rule, status);
  if (wrong.length > 0 || !exchange.answer) return wrong;
  const found = errorPointers(jc.model, exchange.answer.text);
  return pointers
    .filter((p) => !found.includes(p))
    .map((pointer) => ({
      rule,
      in: 'body' as const,
      pointer,
      expected: `${status} with errors[].pointer ${JSON.stringify(pointer)}`,
      reason: `errors[].pointer ${found.length ? found.map((p) => JSON.stringify(p)).join(', ') : '(none)'} does not name ${pointer}`,
    }));
}

/** A known path with a wrong method: 405 with an Allow header listing `allowed`. */
export function judgeMethodNotAllowed(exchange: JudgedExchange, rule: string, allowed: string): Violation[] {
  const wrong = statusIs(exchange, rule, 405);
  if (wrong.length > 0 || !exchange.answer) return wrong;
  const allow = exchange.answer.headers['allow'];
  const methods = (allow ?? '').split(',').map((m) => m.trim().toUpperCase());
  return methods.includes(allowed)
    ? []
    : [
        {
          rule,
          in: 'header',
          header: 'allow',
          expected: `an Allow header listing ${allowed}`,
          reason: allow === undefined ? 'no Allow header' : `Allow: ${allow}`,
        },
      ];
}

/**
 * A request whose body the contract accepts (media type, JSON, schema) is not refused as if it did
 * not: no 415 (the profile's answer to another media type) and no 400 (its answer to a body that is
 * not JSON or breaks the schema). Other refusals (a 422 for an unknown lot, 401, 413) are judged elsewhere.
 */
export function judgeAcceptedBodyNotRefused(exchange: JudgedExchange): Violation[] {
  const status = exchange.answer?.status;
  if (status !== 400 && status !== 415) return [];
  return [
    {
      rule: status === 415 ? PROFILE.mediaType : PROFILE.schema,
      expected: 'no 400 or 415 for a body the contract accepts',
      reason: `${exchange.request.method} ${exchange.request.path} with a body the contract accepts answered ${status}`,
    },
  ];
}

/**
 * A near miss of an operation's path (another path: RFC 3986 §6.2.2.1) is an unknown path: 404, or
 * 405 where the server has operations of its own at it; never redirected (3xx) and never answered
 * (2xx) as the operation at `served`.
 */
export function judgeNotServedAt(exchange: JudgedExchange, rule: string, served: string): Violation[] {
  const expected = `404 (or 405) for a path that is not ${served}`;
  const answer = exchange.answer;
  if (!answer) return statusIs(exchange, rule, 404, expected);
  if (answer.status === 404 || answer.status === 405) return [];
  const location = answer.headers['location'];
  const reason =
    answer.status >= 300 && answer.status <= 399
      ? `redirected (${answer.status}) to ${location === undefined ? '(no Location)' : JSON.stringify(location.slice(0, 200))}${
          location !== undefined && sameTarget(location, served) ? ', the operation’s own path' : ''
        }`
      : answer.status >= 200 && answer.status <= 299
        ? `answered ${answer.status}: served as the operation at ${served}`
        : `the answer has status ${answer.status}`;
  return [{ rule, in: 'path', expected, reason }];
}

/** `location` names the path `served` (absolute or relative, the query aside). */
function sameTarget(location: string, served: string): boolean {
  try {
    return new URL(location, 'http://host.invalid').pathname === served;
  } catch {
    return false;
  }
}
