/** Checks over the whole server and over every answer the run received (they run last). */
import type { CheckContext } from '../context.js';
import { PROFILE } from '../rules.js';
import type { Check } from './types.js';

/** Runs a synchronous inspection of the recorded answers as a check (a throw becomes a rejection). */
function inspectHistory(inspect: () => void): Promise<void> {
  return new Promise((resolve) => {
    inspect();
    resolve();
  });
}

function problemDetails(ctx: CheckContext, rule: string): void {
  const validate = ctx.schema('strict', 'Problem');
  for (const exchange of ctx.http.history) {
    if (!exchange.answer || exchange.answer.status < 400) continue;
    const answered = ctx.expect.answered(exchange, rule, 'an answer');
    ctx.expect.contentType(answered, rule, 'application/problem+json');
    const value = ctx.expect.json(answered, rule);
    ctx.expect.valid(answered, rule, validate, value, 'a problem object (type, title, status, detail)');
    const status = (value as { status?: unknown }).status;
    if (status !== answered.answer.status) {
      throw ctx.expect.failure(exchange, rule, `member status ${answered.answer.status}`, `member status is ${JSON.stringify(status)}`);
    }
  }
}

function noServerError(ctx: CheckContext, rule: string): void {
  const failing = ctx.http.history.filter((e) => e.answer && e.answer.status >= 500);
  const first = failing[0];
  if (first) {
    const list = failing.map((e) => `${e.request.method} ${e.request.path} → ${e.answer?.status}`).join('; ');
    throw ctx.expect.failure(first, rule, 'no 5xx answer', `${failing.length} answer(s) were 5xx: ${list}`);
  }
}

export const serverChecks: Check[] = [
  {
    id: 'server.unknown-path-404',
    level: 'strict',
    operations: ['server'],
    title: 'an unknown path is answered 404',
    rule: PROFILE.unknownPath,
    async run(ctx) {
      const path = `/goodsReception/rest/v1/conformance-unknown-path-${encodeURIComponent(ctx.config.runMarker)}`;
      ctx.expect.status(await ctx.send({ target: 'server', method: 'GET', path, headers: { ...ctx.bearer() } }), this.rule, 404);
    },
  },
  {
    id: 'server.problem-details',
    level: 'strict',
    operations: ['server'],
    title: 'every error answer of the run is application/problem+json with type, title, status (= HTTP status), detail',
    rule: PROFILE.problem,
    run(ctx) {
      return inspectHistory(() => problemDetails(ctx, this.rule));
    },
  },
  {
    id: 'server.no-5xx',
    level: 'strict',
    operations: ['server'],
    title: 'no request of the run was answered 5xx',
    rule: PROFILE.noServerError,
    run(ctx) {
      return inspectHistory(() => noServerError(ctx, this.rule));
    },
  },
];
