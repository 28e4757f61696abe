/** Checks over the whole server and over every answer the run received (they run last). */
import { judgeNoServerError, judgeProblemDetails } from '../../judgments/server.js';
import { statusIs } from '../../judgments/answer.js';
import { PROFILE } from '../../judgments/rules.js';
import type { Cases } from '../cases.js';
import type { CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import type { CheckSource } from './helpers.js';
import type { OperationsModel } from '../../contract/operations-model.js';
import type { Check } from './types.js';

const describeExchange = (e: Exchange): string =>
  `${e.request.method} ${e.request.path.slice(0, 120)} → ${e.answer?.status ?? 'no answer'}`;

/** Judges every answer of the run so far (each one a case); no answer at all: nothing to judge. */
async function overHistory(
  ctx: CheckContext,
  t: Cases,
  judge: (exchange: Exchange) => ReturnType<typeof judgeNoServerError>,
  applies: (e: Exchange) => boolean,
): Promise<void> {
  const answered = ctx.http.history.filter((e) => e.answer && applies(e));
  for (const exchange of answered) await t.judge(describeExchange(exchange), () => Promise.resolve(exchange), judge);
}

/** A path under the API that no operation has, and an operation path with one more segment. */
function unknownPaths(model: OperationsModel, marker: string): { name: string; path: string }[] {
  const create = model.creates[0]?.path ?? model.orderInfo.path;
  const base = create.slice(0, create.lastIndexOf('/', create.lastIndexOf('/') - 1));
  return [
    { name: 'an unknown path next to the operations', path: `${base}/conformance-unknown-path-${encodeURIComponent(marker)}` },
    { name: 'a create path with one more segment', path: `${create}/conformance-extra` },
  ];
}

/** Checks over the whole server. */
export function serverChecks(source: CheckSource): Check[] {
  return [
    {
      id: 'server.unknown-path-404',
      level: 'strict',
      operations: ['server'],
      title: 'an unknown path is answered 404',
      rule: PROFILE.unknownPath,
      cases: unknownPaths(source.model, 'MARKER').map((c) => c.name),
      async run(ctx, t) {
        for (const c of unknownPaths(ctx.model, ctx.config.runMarker)) {
          await t.judge(
            c.name,
            () => ctx.send({ operation: 'server', method: 'GET', path: c.path, headers: { ...ctx.bearer() } }),
            (e) => statusIs(e, this.rule, 404),
          );
        }
      },
    },
    {
      id: 'server.problem-details',
      level: 'strict',
      operations: ['server'],
      title: 'every error answer of the run is application/problem+json with type, title, status (= HTTP status), detail',
      rule: PROFILE.problem,
      cases: ['every 4xx/5xx answer of the run'],
      run(ctx, t) {
        return overHistory(
          ctx,
          t,
          (e) => judgeProblemDetails(e, ctx.judge),
          (e) => (e.answer?.status ?? 0) >= 400,
        );
      },
    },
    {
      id: 'server.no-5xx',
      level: 'strict',
      operations: ['server'],
      title: 'no request of the run was answered 5xx',
      rule: PROFILE.noServerError,
      cases: ['every answer of the run'],
      run(ctx, t) {
        return overHistory(ctx, t, judgeNoServerError, () => true);
      },
    },
  ];
}
