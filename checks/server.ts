/** Checks over the whole server and over every answer the run received (the suite runs them last). */
import type { OperationsModel } from '../contract/operations-model.js';
import { mediaTypeOf, statusIs } from '../judgments/answer.js';
import { CODINGS, judgeCodingAsked, judgeCodingReadable } from '../judgments/content-coding.js';
import type { Violation } from '../judgments/exchange.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { judgeNoServerError, judgeProblemDetails, judgeProblemStatus } from '../judgments/server.js';
import { defineCheck, type SuiteCases, type SuiteContext, type SuiteExchange } from './define.js';

const describeExchange = (e: SuiteExchange): string =>
  `${e.request.method} ${e.request.path.slice(0, 120)} → ${e.answer?.status ?? 'no answer'}`;

/** Judges every answer of the run so far (or of `history`), each one a case; no answer at all: nothing to judge. */
async function overHistory<X extends SuiteExchange>(
  ctx: SuiteContext<X>,
  t: SuiteCases<X>,
  judge: (exchange: X) => Violation[],
  applies: (e: X) => boolean,
  history: readonly X[] = ctx.http.history,
): Promise<void> {
  const answered = history.filter((e) => e.answer && applies(e));
  for (const exchange of answered) await t.judge(describeExchange(exchange), () => Promise.resolve(exchange), judge);
}

const askingFor = (coding: string): string => `GET of the order asking for ${coding} only (Accept-Encoding: ${coding})`;
const hasAcceptEncoding = (e: SuiteExchange): boolean => Object.keys(e.request.headers).some((h) => h.toLowerCase() === 'accept-encoding');

/** The path-variant checks (order info and every create): a fault of unknown paths breaks them too. */
const pathChecks = (model: OperationsModel): string[] =>
  [...(model.orderInfo !== undefined ? [model.orderInfo.operationId] : []), ...model.createIds].map((op) => `${op}.path-variants-404`);

/** A path under the API that no operation has, and an operation path with one more segment. */
function unknownPaths(model: OperationsModel, marker: string): { name: string; path: string }[] {
  const create = model.creates[0]?.path ?? model.operations[0]?.path ?? '/';
  const base = create.slice(0, create.lastIndexOf('/', create.lastIndexOf('/') - 1));
  return [
    { name: 'an unknown path next to the operations', path: `${base}/conformance-unknown-path-${encodeURIComponent(marker)}` },
    { name: 'a create path with one more segment', path: `${create}/conformance-extra` },
  ];
}

export const unknownPath404 = defineCheck({
  name: 'unknown-path-404',
  level: 'strict',
  title: 'an unknown path is answered 404',
  rule: PROFILE.unknownPath,
  cases: (source) => unknownPaths(source.model, 'MARKER').map((c) => c.name),
  async run(ctx, t) {
    for (const c of unknownPaths(ctx.model, ctx.config.runMarker)) {
      await t.judge(
        c.name,
        () => ctx.send({ operation: 'server', method: 'GET', path: c.path, headers: { ...ctx.bearer() } }),
        (e) => statusIs(e, PROFILE.unknownPath, 404),
      );
    }
  },
  // Near misses of the operations' paths are unknown paths too.
  faults: (_op, model) => [{ faults: ['unknown-path-400'], alsoFails: pathChecks(model) }],
});

export const problemDetails = defineCheck({
  name: 'problem-details',
  level: 'strict',
  title: 'every error answer of the run is application/problem+json with type, title, status (= HTTP status), detail',
  rule: PROFILE.problem,
  cases: () => ['every 4xx/5xx answer of the run'],
  run: (ctx, t) =>
    overHistory(
      ctx,
      t,
      (e) => judgeProblemDetails(e, ctx.judge),
      (e) => (e.answer?.status ?? 0) >= 400,
    ),
  faults: () => [{ faults: ['problem-no-type'] }],
  observe: [
    {
      id: 'answer.problem-status',
      level: 'strict',
      side: 'server',
      rule: PROFILE.problem,
      judge(input) {
        const answer = input.exchange.answer;
        if (!answer || mediaTypeOf(answer) !== 'application/problem+json') return [];
        return judgeProblemStatus(input.exchange, input.answerBody);
      },
    },
  ],
});

export const contentCoding = defineCheck({
  name: 'content-coding',
  level: 'spec',
  title: 'every answer reads as sent: its body decodes by its Content-Encoding, which names no coding the request did not accept',
  rule: SPEC.contentCoding,
  cases: () => [
    ...CODINGS.map(askingFor),
    'every answer of the run (those asking for gzip, deflate, br: every GET of an order but the first, every other valid create)',
  ],
  async run(ctx, t) {
    const earlier = [...ctx.http.history];
    const judge = (e: SuiteExchange): Violation[] => judgeCodingReadable(e, e.answer?.undecodable);
    for (const coding of CODINGS) {
      const asked = ctx.sampleGet({ 'accept-encoding': coding });
      if (asked !== undefined) await t.judge(askingFor(coding), () => asked, judge);
    }
    await overHistory(ctx, t, judge, () => true, earlier);
  },
  // A coding the request did not list, a body that does not decode as labelled, raw DEFLATE.
  faults: () => [{ faults: ['coding-not-listed'] }, { faults: ['br-not-compressed'] }, { faults: ['deflate-raw'] }],
});

export const contentCodingAsked = defineCheck({
  name: 'content-coding-asked',
  level: 'strict',
  title: 'an answer to a request without Accept-Encoding has no Content-Encoding',
  rule: PROFILE.contentCoding,
  cases: () => ['every answer of the run to a request without Accept-Encoding'],
  run: (ctx, t) => overHistory(ctx, t, judgeCodingAsked, (e) => !hasAcceptEncoding(e)),
  faults: () => [{ faults: ['coding-unasked'] }],
});

export const noServerError = defineCheck({
  name: 'no-5xx',
  level: 'strict',
  title: 'no request of the run was answered 5xx',
  rule: PROFILE.noServerError,
  cases: () => ['every answer of the run'],
  run: (ctx, t) => overHistory(ctx, t, judgeNoServerError, () => true),
  faults: (_op, model) => [{ faults: ['unknown-path-500'], alsoFails: ['server.unknown-path-404', ...pathChecks(model)] }],
  observe: [
    {
      id: 'answer.no-5xx',
      level: 'strict',
      side: 'server',
      rule: PROFILE.noServerError,
      judge: (input) => judgeNoServerError(input.exchange),
    },
  ],
});
