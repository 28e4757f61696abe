/** Judgments of every answer (the profile's problem details, no 5xx). */
import { mediaTypeIs, jsonOf, schemaValid } from './answer.js';
import type { JudgeContext, JudgedExchange, Violation } from './exchange.js';
import { PROFILE } from './rules.js';
import { isObject } from '../contract/document.js';

/** Profile: an error answer is application/problem+json with type, title, status (= the HTTP status), detail. */
export function judgeProblemDetails(exchange: JudgedExchange, jc: JudgeContext): Violation[] {
  const answer = exchange.answer;
  if (!answer || answer.status < 400) return [];
  const rule = PROFILE.problem;
  const type = mediaTypeIs(answer, rule, 'application/problem+json');
  if (type.length > 0) return type;
  const parsed = jsonOf(answer, rule);
  if ('violation' in parsed) return [parsed.violation];
  const problemSchema = jc.model.problemSchema;
  const invalid =
    problemSchema === undefined
      ? []
      : schemaValid(
          parsed.value,
          jc.contracts.strict.validator({ $ref: `#/components/schemas/${problemSchema}` }),
          rule,
          'a problem object (type, title, status, detail)',
        );
  if (invalid.length > 0) return invalid;
  return judgeProblemStatus(exchange, parsed.value, true);
}

/**
 * Profile: the `status` member of an error's problem body is the HTTP status (`required`: a missing
 * member is a violation too; otherwise only a different value is). `body`: the parsed answer body.
 */
export function judgeProblemStatus(exchange: JudgedExchange, body: unknown, required = false): Violation[] {
  const answer = exchange.answer;
  if (!answer || answer.status < 400 || !isObject(body)) return [];
  const status = body['status'];
  if (status === answer.status || (!required && status === undefined)) return [];
  return [
    {
      rule: PROFILE.problem,
      in: 'body',
      pointer: '/status',
      expected: `member status ${answer.status}`,
      reason: `member status is ${JSON.stringify(status)}, the HTTP status is ${answer.status}`,
    },
  ];
}

/** Profile (strict): no request is answered 5xx. */
export function judgeNoServerError(exchange: JudgedExchange): Violation[] {
  const answer = exchange.answer;
  return answer && answer.status >= 500
    ? [
        {
          rule: PROFILE.noServerError,
          expected: 'no 5xx answer',
          reason: `${exchange.request.method} ${exchange.request.path} answered ${answer.status}`,
        },
      ]
    : [];
}
