/**
 * A check written the way a new one is (docs/development.md, "Adding a check"): ONE module with its
 * rule, its judge, its cases, its fault and what the proxy observes. `test/check-registry.test.ts`
 * adds it to the list with one entry and shows the suite runs it, the proxy applies it and the
 * self-test's reference server fails it under its fault. (A fixture: not in `checks/index.ts`.)
 */
import { defineCheck } from '../../checks/define.js';
import type { JudgedExchange, Violation } from '../../judgments/exchange.js';

/** The rule, quoted from its source. */
export const DATE_RULE =
  'Spec (HTTP, RFC 9110 §6.6.1, §5.6.7): an origin server with a clock sends a `Date` header in its answers, an HTTP-date (IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).';

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The judge: a pure function of one exchange. */
export function judgeDate(exchange: JudgedExchange): Violation[] {
  const answer = exchange.answer;
  if (!answer) return [];
  const date = answer.headers['date'];
  if (date !== undefined && IMF_FIXDATE.test(date)) return [];
  return [
    {
      rule: DATE_RULE,
      in: 'header',
      header: 'date',
      expected: 'a Date header in IMF-fixdate form',
      reason: date === undefined ? 'the answer has no Date header' : `the Date header is ${JSON.stringify(date.slice(0, 60))}`,
    },
  ];
}

/** The fault that makes it fail: the reference server's answers carry a date in another form. */
export const DATE_FAULT = 'date-not-http-date';

export const dateHeader = defineCheck({
  name: 'date-header',
  level: 'strict',
  title: 'every answer of the run carries a Date header, an HTTP-date',
  rule: DATE_RULE,
  cases: () => ['every answer of the run'],
  async run(ctx, t) {
    for (const exchange of ctx.http.history.filter((e) => e.answer !== undefined))
      await t.judge(`${exchange.request.method} ${exchange.request.path.slice(0, 120)}`, () => Promise.resolve(exchange), judgeDate);
  },
  faults: () => [{ faults: [DATE_FAULT] }],
  overrides: { [DATE_FAULT]: (_request, answer) => ({ ...answer, headers: { ...answer.headers, date: new Date().toISOString() } }) },
  observe: [{ id: 'answer.date-header', level: 'strict', side: 'server', rule: DATE_RULE, judge: (input) => judgeDate(input.exchange) }],
});
