/** Checks over the whole server and over every answer the run received (they run last). */
import { judgeNoServerError, judgeProblemDetails } from '../../judgments/server.js';
import { statusIs } from '../../judgments/answer.js';
import { CODINGS, judgeCodingAsked, judgeCodingReadable } from '../../judgments/content-coding.js';
import { PROFILE, SPEC } from '../../judgments/rules.js';
import type { Cases } from '../cases.js';
import type { CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import type { CheckSource } from './helpers.js';
import type { OperationsModel } from '../../contract/operations-model.js';
import type { Check } from './types.js';

const describeExchange = (e: Exchange): string =>
  `${e.request.method} ${e.request.path.slice(0, 120)} → ${e.answer?.status ?? 'no answer'}`;

/** Judges every answer of the run so far (or of `history`), each one a case; no answer at all: nothing to judge. */
async function overHistory(
  ctx: CheckContext,
  t: Cases,
  judge: (exchange: Exchange) => ReturnType<typeof judgeNoServerError>,
  applies: (e: Exchange) => boolean,
  history: readonly Exchange[] = ctx.http.history,
): Promise<void> {
  const answered = history.filter((e) => e.answer && applies(e));
  for (const exchange of answered) await t.judge(describeExchange(exchange), () => Promise.resolve(exchange), judge);
}

const askingFor = (coding: string): string => `GET of the order asking for ${coding} only (Accept-Encoding: ${coding})`;
const hasAcceptEncoding = (e: Exchange): boolean => Object.keys(e.request.headers).some((h) => h.toLowerCase() === 'accept-encoding');

/** A path under the API that no operation has, and an operation path with one more segment. */
function unknownPaths(model: OperationsModel, marker: string): { name: string; path: string }[] {
  const create = model.creates[0]?.path ?? model.operations[0]?.path ?? '/';
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
      id: 'server.content-coding',
      level: 'spec',
      operations: ['server'],
      title: 'every answer reads as sent: its body decodes by its Content-Encoding, which names no coding the request did not accept',
      rule: SPEC.contentCoding,
      cases: [
        ...CODINGS.map(askingFor),
        'every answer of the run (those asking for gzip, deflate, br: every GET of an order but the first, every other valid create)',
      ],
      async run(ctx, t) {
        const earlier = [...ctx.http.history];
        const judge = (e: Exchange) => judgeCodingReadable(e, e.answer?.undecodable);
        for (const coding of CODINGS) {
          const asked = ctx.sampleGet({ 'accept-encoding': coding });
          if (asked !== undefined) await t.judge(askingFor(coding), () => asked, judge);
        }
        await overHistory(ctx, t, judge, () => true, earlier);
      },
    },
    {
      id: 'server.content-coding-asked',
      level: 'strict',
      operations: ['server'],
      title: 'an answer to a request without Accept-Encoding has no Content-Encoding',
      rule: PROFILE.contentCoding,
      cases: ['every answer of the run to a request without Accept-Encoding'],
      run(ctx, t) {
        return overHistory(ctx, t, judgeCodingAsked, (e) => !hasAcceptEncoding(e));
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
