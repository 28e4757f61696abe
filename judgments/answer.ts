/** Small judgments of one answer: there is one, its status, media type, JSON body, schema. */
import contentType from 'content-type';
import { isObject, type JsonObject } from '../contract/document.js';
import type { Validator } from '../contract/schemas.js';
import type { JudgedAnswer, JudgedExchange, Violation } from './exchange.js';
import { parseJsonText } from '../util/json.js';

export const is2xx = (status: number): boolean => status >= 200 && status <= 299;

/** The last `Content-Type` read and its media type: judging one answer reads it several times, and most answers share one. */
let lastMediaType: { header: string; type: string | undefined } | undefined;

/** The answer's media type (without parameters), lower case; undefined when absent or unparsable. */
export function mediaTypeOf(answer: JudgedAnswer): string | undefined {
  const header = answer.headers['content-type'];
  if (header === undefined) return undefined;
  if (lastMediaType?.header === header) return lastMediaType.type;
  let type: string | undefined;
  try {
    type = contentType.parse(header).type.toLowerCase();
  } catch {
    type = undefined;
  }
  lastMediaType = { header, type };
  return type;
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
      in: 'header',
      header: 'content-type',
      expected: `Content-Type ${wanted}`,
      reason: header === undefined ? 'the answer has no Content-Type' : `the answer's Content-Type is "${header}"`,
    },
  ];
}

/**
 * What an answer's body is parsed within (docs/conformance.md, "What the suite reads"): the suite reads
 * at most 1 MiB + 64 KiB of an answer (the largest honest answer echoes a 1 MiB create), and no answer of
 * the contracts nests anywhere near 128 levels; a body past either is a failure, never a parse.
 */
export const ANSWER_LIMITS = { maxLength: 1024 * 1024 + 64 * 1024, maxDepth: 128, what: 'the answer' } as const;

/** The body parsed as JSON within ANSWER_LIMITS (the value the exchange carries when its builder parsed it already), or a violation. */
export function jsonOf(answer: JudgedAnswer, rule: string): { value: unknown } | { violation: Violation } {
  if (answer.json) return answer.json;
  const parsed = parseJsonText(answer.text, ANSWER_LIMITS);
  if (parsed.ok) return { value: parsed.value };
  const bounded = parsed.reason.startsWith(ANSWER_LIMITS.what);
  return {
    violation: {
      rule,
      expected: 'a JSON body',
      reason: bounded
        ? `${parsed.reason} (the suite parses an answer of at most ${ANSWER_LIMITS.maxLength.toLocaleString('en')} characters and ${ANSWER_LIMITS.maxDepth} levels of nesting)`
        : `the body is not JSON (${parsed.reason})`,
    },
  };
}

/** The body as a JSON object, or a violation. */
export function objectOf(answer: JudgedAnswer, rule: string): { value: JsonObject } | { violation: Violation } {
  const parsed = jsonOf(answer, rule);
  if ('violation' in parsed) return parsed;
  if (!isObject(parsed.value)) return { violation: { rule, expected: 'a JSON object', reason: 'the body is JSON but not an object' } };
  return { value: parsed.value };
}

/** At most this many pointers are reported one by one; the last one names how many more there are. */
export const MAX_POINTERS = 20;

/**
 * The problems of a value against a schema: one violation per JSON pointer (every detail of that
 * pointer in its reason), so that a body with several problems shows each of them. `what` names the
 * value (`an order-info object (spec level)`); `whose` the body (`the body`, `the request body`).
 */
export function schemaValid(value: unknown, validator: Validator, rule: string, what: string, whose = 'the body'): Violation[] {
  const problems = validator(value);
  if (problems.length === 0) return [];
  const byPointer = new Map<string, string[]>();
  for (const p of problems) byPointer.set(p.pointer, [...(byPointer.get(p.pointer) ?? []), p.detail]);
  const pointers = [...byPointer.keys()];
  const more = pointers.length - MAX_POINTERS;
  return pointers.slice(0, MAX_POINTERS).map((pointer, i) => ({
    rule,
    in: 'body',
    pointer,
    expected: what,
    reason: `${whose} breaks the schema at ${pointer || '(root)'}: ${(byPointer.get(pointer) ?? []).join(', ')}${
      i === MAX_POINTERS - 1 && more > 0 ? ` (and ${more} more pointers)` : ''
    }`,
  }));
}
