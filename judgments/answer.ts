/** Small judgments of one answer: there is one, its status, media type, JSON body, schema. */
import contentType from 'content-type';
import { isObject, type JsonObject } from '../contract/document.js';
import type { Validator } from '../contract/schemas.js';
import type { JudgedAnswer, JudgedExchange, Violation } from './exchange.js';

export const is2xx = (status: number): boolean => status >= 200 && status <= 299;

/** The answer's media type (without parameters), lower case; undefined when absent or unparsable. */
export function mediaTypeOf(answer: JudgedAnswer): string | undefined {
  const header = answer.headers['content-type'];
  if (header === undefined) return undefined;
  try {
    return contentType.parse(header).type.toLowerCase();
  } catch {
    return undefined;
  }
}

export function noAnswer(exchange: JudgedExchange, rule: string, expected: string): Violation[] {
  return exchange.answer ? [] : [{ rule, expected, reason: exchange.error ?? 'no answer' }];
}

export function statusIs(
  exchange: JudgedExchange,
  rule: string,
  wanted: number | ((status: number) => boolean),
  expected = typeof wanted === 'number' ? `status ${wanted}` : 'another status',
): Violation[] {
  if (!exchange.answer) return noAnswer(exchange, rule, expected);
  const ok = typeof wanted === 'number' ? exchange.answer.status === wanted : wanted(exchange.answer.status);
  return ok ? [] : [{ rule, expected, reason: `the answer has status ${exchange.answer.status}` }];
}

export function mediaTypeIs(answer: JudgedAnswer, rule: string, wanted: string): Violation[] {
  if (mediaTypeOf(answer) === wanted) return [];
  const header = answer.headers['content-type'];
  return [
    {
      rule,
      expected: `Content-Type ${wanted}`,
      reason: header === undefined ? 'the answer has no Content-Type' : `the answer's Content-Type is "${header}"`,
    },
  ];
}

/** The body parsed as JSON, or a violation. */
export function jsonOf(answer: JudgedAnswer, rule: string): { value: unknown } | { violation: Violation } {
  try {
    return { value: JSON.parse(answer.text) as unknown };
  } catch (error) {
    return { violation: { rule, expected: 'a JSON body', reason: `the body is not JSON (${(error as Error).message})` } };
  }
}

/** The body as a JSON object, or a violation. */
export function objectOf(answer: JudgedAnswer, rule: string): { value: JsonObject } | { violation: Violation } {
  const parsed = jsonOf(answer, rule);
  if ('violation' in parsed) return parsed;
  if (!isObject(parsed.value)) return { violation: { rule, expected: 'a JSON object', reason: 'the body is JSON but not an object' } };
  return { value: parsed.value };
}

export function schemaValid(value: unknown, validator: Validator, rule: string, what: string): Violation[] {
  const problems = validator(value);
  if (problems.length === 0) return [];
  const list = problems
    .slice(0, 8)
    .map((p) => `${p.pointer || '(root)'} ${p.detail}`)
    .join('; ');
  return [
    {
      rule,
      expected: what,
      ...(problems[0]?.pointer ? { pointer: problems[0].pointer } : {}),
      reason: `the body breaks the schema: ${list}${problems.length > 8 ? ` (+${problems.length - 8} more)` : ''}`,
    },
  ];
}
