/**
 * Bad requests to the create operations: 415, 400 (malformed, not an object, every keyword of the
 * schema), 413, 422, 405. The bodies come from the suite's data generator, handed with the contract
 * (`CheckSource.data`). With their faults (the reference server's, for the bundled contract's creates)
 * and what the proxy observes of a refused request.
 */
import type { JsonObject } from '../contract/document.js';
import { isObject } from '../contract/document.js';
import type { CreateOperationId } from '../contract/operations-model.js';
import { judgeCreateAnswered, judgeCreateShape } from '../judgments/create.js';
import { is2xx } from '../judgments/answer.js';
import { judgeRequestSchema, mediaTypeFault, securityPresented } from '../judgments/request.js';
import { judgeAcceptedBodyNotRefused, judgeMethodNotAllowed, judgeRefused } from '../judgments/request-errors.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { childPointer } from '../util/json-pointer.js';
import { withQuery } from '../util/query.js';
import type { CheckData, Derivation, InvalidBody } from './data.js';
import {
  defineObservation,
  type CheckModule,
  type CheckSource,
  type FaultCase,
  type Observation,
  type SuiteCases,
  type SuiteCheck,
  type SuiteContext,
  type SuiteExchange,
} from './define.js';
import { referenceCreateIds } from './create.js';
import { createOf } from './observe.js';
import { mediaType, requestJson, requestSchema } from './request.js';

/** An id of the lot-naming member that the schema accepts and no discovered lot has (far from them). */
export async function unknownLotId<X extends SuiteExchange>(data: CheckData, ctx: SuiteContext<X>, op: CreateOperationId): Promise<number> {
  const lots = await ctx.lots();
  const d = ctx.derivation(op);
  const member = data.writable(d.op).find((m) => m.namesLot);
  const known = new Set(lots.map((l) => l.id));
  const base = data.baseBody(d, lots[0]?.id);
  const far = [2_147_480_000, Math.max(...lots.map((l) => l.id)) + 1_000_003, 999_999, ...lots.map((l) => l.id + 1)];
  const max = typeof member?.schema['maximum'] === 'number' ? member.schema['maximum'] : undefined;
  if (max !== undefined) far.push(max, max - 1);
  return (
    far.find(
      (id) =>
        !known.has(id) && (!member || !d.validate.strict({ ...base, [member.name]: id }).some((e) => e.pointer === `/${member.name}`)),
    ) ?? 2_147_480_000
  );
}

/** A body to derive the documented case names from (no lot known yet). */
function placeholder(data: CheckData, d: Derivation): JsonObject {
  return data.withMarkers(d, data.baseBody(d, undefined), 'MARKER');
}

/** The invalid-body checks, one per keyword family (`other`: every keyword of no family). */
const familyChecks = (families: CheckData['keywordFamilies']): { name: string; title: string; keywords: readonly string[] | 'other' }[] => [
  { name: 'missing-required-400', title: 'each required member missing: 400, pointer to it', keywords: families.required },
  {
    name: 'wrong-type-400',
    title: 'each member (server-assigned ones too) given each wrong JSON type: 400, pointer to it',
    keywords: families.type,
  },
  { name: 'out-of-bounds-400', title: 'each bound broken (just past it): 400, pointer to the member', keywords: families.bounds },
  { name: 'unknown-member-400', title: 'an unknown member added: 400, pointer to it', keywords: families.unknown },
  {
    name: 'invalid-value-400',
    title: 'each value off the enum or const, outside the pattern or format, not a multiple: 400, pointer to the member',
    keywords: 'other',
  },
];

function invalidBodyChecks(source: CheckSource, op: CreateOperationId): SuiteCheck[] {
  const { data } = source;
  const all = new Set<string>(Object.values(data.keywordFamilies).flat());
  const inFamily = (c: InvalidBody, keywords: readonly string[] | 'other'): boolean =>
    keywords === 'other' ? !all.has(c.keyword) : keywords.includes(c.keyword);
  const d = data.derivationOf(source, op);
  const documented = data.invalidBodies(d, placeholder(data, d));
  const strictChecks: SuiteCheck[] = familyChecks(data.keywordFamilies).flatMap(({ name, title, keywords }): SuiteCheck[] => {
    const cases = documented.filter((c) => inFamily(c, keywords)).map((c) => c.label);
    if (cases.length === 0) return [];
    return [
      {
        id: `${op}.${name}`,
        level: 'strict',
        operations: [op],
        title,
        rule: PROFILE.schema,
        write: true,
        cases,
        async run(ctx, t) {
          for (const c of data.invalidBodies(ctx.derivation(op), await ctx.validBody(op)).filter((x) => inFamily(x, keywords)))
            await t.judge(
              c.label,
              () => ctx.memo(`invalid/${op}/${c.label}`, () => ctx.sendToCreate(op, c.body)),
              (e) => judgeRefused(e, ctx.judge, this.rule, 400, c.pointers),
            );
        },
      },
    ];
  });
  const several = data.severalProblems(documented, placeholder(data, d));
  if (several.length > 0)
    strictChecks.push({
      id: `${op}.several-problems-400`,
      level: 'strict',
      operations: [op],
      title: 'several problems in one body: 400, one errors[] entry per problem (every pointer present)',
      rule: PROFILE.schema,
      write: true,
      cases: ['one body breaking the schema at several members (an unknown member, a required member missing, a bound, a type)'],
      async run(ctx, t) {
        const valid = await ctx.validBody(op);
        for (const c of data.severalProblems(data.invalidBodies(ctx.derivation(op), valid), valid))
          await t.judge(
            'one body breaking the schema at several members (an unknown member, a required member missing, a bound, a type)',
            () => ctx.sendToCreate(op, c.body),
            (e) => judgeRefused(e, ctx.judge, this.rule, 400, c.pointers),
          );
      },
    });
  // The specification's own keywords (its listed types, and any the contract states as specification
  // facts): a body breaking one is refused, or answered with a created object that keeps to the
  // contract (a coerced value, the member ignored); never stored and answered as sent.
  const specCases = documented.filter((c) => c.levels.includes('spec'));
  if (specCases.length > 0)
    strictChecks.push({
      id: `${op}.invalid-not-created-as-sent`,
      level: 'spec',
      operations: [op],
      title: 'a body breaking a specification-level keyword gets no 2xx whose created object breaks the contract',
      rule: SPEC.invalidRequest,
      write: true,
      cases: specCases.map((c) => c.label),
      async run(ctx, t) {
        for (const c of data.invalidBodies(ctx.derivation(op), await ctx.validBody(op)).filter((x) => x.levels.includes('spec')))
          await t.judge(
            c.label,
            () => ctx.memo(`invalid/${op}/${c.label}`, () => ctx.sendToCreate(op, c.body)),
            (e) =>
              e.answer && is2xx(e.answer.status) ? judgeCreateShape(e, ctx.judge, op, 'spec').map((v) => ({ ...v, rule: this.rule })) : [],
          );
      },
    });
  return strictChecks;
}

function textCheck(
  source: CheckSource,
  op: CreateOperationId,
  name: string,
  title: string,
  rule: string,
  status: number,
  cases: (valid: JsonObject) => { label: string; text: string; contentType?: string | null }[],
): SuiteCheck {
  return {
    id: `${op}.${name}`,
    level: 'strict',
    operations: [op],
    title,
    rule,
    write: true,
    cases: cases(placeholder(source.data, source.data.derivationOf(source, op))).map((c) => c.label),
    async run(ctx, t) {
      for (const c of cases(await ctx.validBody(op))) {
        await t.judge(
          c.label,
          () =>
            ctx.sendToCreate(op, c.text, ctx.credentialsOf(op).headers, c.contentType === undefined ? {} : { contentType: c.contentType }),
          (e) => judgeRefused(e, ctx.judge, this.rule, status),
        );
      }
    },
  };
}

/**
 * How a body past the limit is framed: with Content-Length (a server may refuse it unread) and in
 * chunked transfer coding (RFC 9112 §7.1: no length is known before the body is read, so a server
 * that checks only Content-Length reads and accepts it).
 */
const TOO_LARGE_FRAMINGS = [
  { name: 'with Content-Length', chunked: false },
  { name: 'chunked (no Content-Length)', chunked: true },
] as const;

const CHUNKED_CASE = 'a valid body (the first corpus body) in chunked transfer coding, no Content-Length';

/** Valid bodies between common server limits and the contract's limit: each answered 2xx (none when no member can carry the padding). */
function bodySizeChecks(source: CheckSource, op: CreateOperationId, limit: number): SuiteCheck[] {
  const { data } = source;
  const d = data.derivationOf(source, op);
  const sizes = [
    ...data.bodySizes.filter((s) => s.bytes < limit),
    { name: 'just under the limit', bytes: limit - 4096, reason: "the profile's own limit" },
  ];
  const cases = sizes
    .filter((s) => data.paddedBody(d, placeholder(data, d), s.bytes, 'MARKER') !== undefined)
    .map((s) => `${s.bytes} bytes (${s.name}: ${s.reason})`);
  if (cases.length === 0) return [];
  return [
    {
      id: `${op}.large-body-2xx`,
      level: 'strict',
      operations: [op],
      title: `valid bodies between common server limits and ${limit} bytes are answered 2xx`,
      rule: PROFILE.bodyAccepted,
      write: true,
      cases,
      async extraWrites(ctx) {
        const valid = await ctx.validBody(op);
        return sizes
          .filter((s) => data.paddedBody(ctx.derivation(op), valid, s.bytes, ctx.config.runMarker) !== undefined)
          .map((s) => `size/${op}/${s.bytes}`);
      },
      async run(ctx, t) {
        const valid = await ctx.validBody(op);
        for (const size of sizes) {
          const padded = data.paddedBody(ctx.derivation(op), valid, size.bytes, `${ctx.config.runMarker}-size-${size.bytes}`);
          if (!padded) continue;
          await t.judge(
            `${size.bytes} bytes (${size.name}: ${size.reason})`,
            () => ctx.extraCreate(`size/${op}/${size.bytes}`, op, padded.body),
            (e) => judgeCreateAnswered(e).map((v) => ({ ...v, rule: this.rule })),
          );
        }
      },
    },
  ];
}

function badRequestChecks(source: CheckSource, op: CreateOperationId): SuiteCheck[] {
  const { data } = source;
  const writable = data.writable;
  const model = source.model.create(op);
  const limit = model.maxBodyBytes ?? 1024 * 1024;
  return [
    textCheck(
      source,
      op,
      'unsupported-media-type-415',
      'a JSON text sent under another media type (one that nearly matches included), or with no Content-Type at all, is answered 415',
      PROFILE.mediaType,
      415,
      (valid) =>
        data.mediaTypesRefused.map((media) => ({
          label: media.contentType === null ? media.name : `Content-Type ${media.contentType}`,
          text: JSON.stringify(valid),
          contentType: media.contentType,
        })),
    ),
    textCheck(source, op, 'malformed-json-400', 'malformed JSON is answered 400', PROFILE.malformed, 400, (valid) =>
      data.malformedJson(valid),
    ),
    textCheck(
      source,
      op,
      'non-object-json-400',
      'JSON that is not an object (null, array, string, number, boolean) is answered 400',
      PROFILE.malformed,
      400,
      (valid) => data.nonObjectJson(valid),
    ),
    ...(model.errorStatuses.includes(413)
      ? [
          {
            id: `${op}.payload-too-large-413`,
            level: 'strict' as const,
            operations: [op],
            title: `a body over ${limit} bytes is answered 413, framed by Content-Length or chunked`,
            rule: PROFILE.tooLarge,
            write: true,
            cases: TOO_LARGE_FRAMINGS.map((f) => `a valid body padded past ${limit} bytes, ${f.name}`),
            async run<X extends SuiteExchange>(ctx: SuiteContext<X>, t: SuiteCases<X>) {
              const body = await ctx.validBody(op);
              const member =
                writable(ctx.model.create(op)).find((m) => m.type === 'string' && m.required) ??
                writable(ctx.model.create(op)).find((m) => m.type === 'string');
              const pad = `${ctx.config.runMarker}-${'x'.repeat(limit)}`;
              for (const framing of TOO_LARGE_FRAMINGS)
                await t.judge(
                  `a valid body padded past ${limit} bytes, ${framing.name}`,
                  () =>
                    ctx.sendToCreate(op, { ...body, [member?.name ?? data.unknownMember]: pad }, ctx.credentialsOf(op).headers, {
                      chunked: framing.chunked,
                    }),
                  (e) => judgeRefused(e, ctx.judge, PROFILE.tooLarge, 413),
                );
            },
          },
        ]
      : []),
    {
      id: `${op}.chunked-body-2xx`,
      level: 'strict',
      operations: [op],
      title: 'a valid body in chunked transfer coding (no Content-Length) is answered 2xx',
      rule: PROFILE.bodyAccepted,
      write: true,
      cases: [CHUNKED_CASE],
      extraWrites: [`chunked/${op}`],
      async run(ctx, t) {
        const [first] = await ctx.corpus(op);
        await t.judge(
          CHUNKED_CASE,
          () => ctx.extraCreate(`chunked/${op}`, op, first?.body ?? {}, { chunked: true }),
          (e) => judgeCreateAnswered(e).map((v) => ({ ...v, rule: this.rule })),
        );
      },
    },
    ...bodySizeChecks(source, op, limit),
    ...(writable(model).some((m) => m.namesLot) ? [unknownLotCheck(data, op)] : []),
    ...wrongMethodChecks(source, op),
  ];
}

/** A create naming a lot: a lot no order has is answered 422. */
function unknownLotCheck(data: CheckData, op: CreateOperationId): SuiteCheck {
  return {
    id: `${op}.unknown-lot-422`,
    level: 'strict',
    operations: [op],
    title: 'a well-formed body naming no known lot is answered 422, with a pointer to the member',
    rule: PROFILE.unknownLot,
    write: true,
    cases: ['a lot id far from every lot of the order'],
    async run(ctx, t) {
      const lotMember = data.writable(ctx.model.create(op)).find((m) => m.namesLot);
      const body = { ...(await ctx.validBody(op)), ...(lotMember ? { [lotMember.name]: await unknownLotId(data, ctx, op) } : {}) };
      await t.judge(
        'a lot id far from every lot of the order',
        () => ctx.sendToCreate(op, body),
        (e) => judgeRefused(e, ctx.judge, this.rule, 422, lotMember ? [`/${lotMember.name}`] : []),
      );
    },
  };
}

/** A method the create's path does not serve (GET unless another operation has it there) is answered 405 with Allow. */
function wrongMethodChecks(source: CheckSource, op: CreateOperationId): SuiteCheck[] {
  const model = source.model.create(op);
  const served = source.model.operations.filter((o) => o.path === model.path).map((o) => o.method);
  const method = ['GET', 'PUT', 'PATCH', 'DELETE'].find((m) => !served.includes(m));
  if (method === undefined) return [];
  const name = `${method} with the token`;
  return [
    {
      id: `${op}.wrong-method-405`,
      level: 'strict',
      operations: [op],
      title: `${method} on the create path is answered 405 with Allow: ${served.join(', ')}`,
      rule: PROFILE.wrongMethod,
      cases: [name],
      async run(ctx, t) {
        await t.judge(
          name,
          () =>
            ctx.send({
              operation: op,
              method,
              path: withQuery(ctx.path(op), ctx.credentialsOf(op).query),
              headers: { ...ctx.credentialsOf(op).headers },
            }),
          (e) => judgeMethodNotAllowed(e, this.rule, model.method),
        );
      },
    },
  ];
}

/** The bad-request checks of every create operation of the contract. */
function requestErrorChecks(source: CheckSource): SuiteCheck[] {
  return source.model.createIds.flatMap((op) => [...badRequestChecks(source, op), ...invalidBodyChecks(source, op)]);
}

/** The faults of the reference server that make the bad-request checks fail (`alsoFails`: checks a fault cannot help breaking too). */
function faultRows(): readonly FaultCase[] {
  const creates = referenceCreateIds();
  return [
    ...creates.flatMap((op) => [
      // JSON that is not an object: null answered 500.
      { check: `${op}.non-object-json-400`, faults: [`null-body-500:${op}`], alsoFails: ['server.no-5xx'] },
      // Several problems in one body: only the first reported.
      { check: `${op}.several-problems-400`, faults: [`first-problem-only:${op}`] },
      { check: `${op}.unsupported-media-type-415`, faults: [`accept-text-plain:${op}`] },
      // A body with no Content-Type at all parsed as JSON.
      { check: `${op}.unsupported-media-type-415`, faults: [`no-content-type-json:${op}`] },
      { check: `${op}.malformed-json-400`, faults: [`malformed-422:${op}`] },
      { check: `${op}.non-object-json-400`, faults: [`non-object-422:${op}`] },
      { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-400:${op}`] },
      // A body of a wrong JSON type stored and answered as sent (spec level).
      { check: `${op}.invalid-not-created-as-sent`, faults: [`store-wrong-type:${op}`] },
      { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-no-pointer:${op}`] },
      { check: `${op}.wrong-method-405`, faults: [`405-no-allow:${op}`] },
      {
        check: `${op}.missing-required-400`,
        faults: [`no-required:${op}`],
        // A create's several-problems body holds one problem of this class too.
        alsoFails: [`${op}.several-problems-400`],
      },
      {
        check: `${op}.wrong-type-400`,
        faults: [`wrong-type-pointer-root:${op}`],
        // A create's several-problems body holds one problem of this class too.
        alsoFails: [`${op}.several-problems-400`],
      },
      {
        check: `${op}.out-of-bounds-400`,
        faults: [`no-bounds:${op}`],
        // A create's several-problems body holds one problem of this class too.
        alsoFails: [`${op}.several-problems-400`],
      },
      // Unknown members: a pointer not escaped (~1, ~0); near misses of real members bound to them (aliasing).
      { check: `${op}.unknown-member-400`, faults: [`pointer-unescaped:${op}`] },
      { check: `${op}.unknown-member-400`, faults: [`member-aliases:${op}`] },
      {
        check: `${op}.unknown-member-400`,
        faults: [`allow-unknown:${op}`],
        // A create's several-problems body holds one problem of this class too.
        alsoFails: [`${op}.several-problems-400`],
      },
    ]),
    // Framing: the limit checked against Content-Length only (a chunked body past it read and accepted); a chunked body read with its framing.
    ...creates.flatMap((op) => [
      { check: `${op}.payload-too-large-413`, faults: [`chunked-no-limit:${op}`] },
      { check: `${op}.chunked-body-2xx`, faults: [`chunked-raw:${op}`] },
    ]),
    { check: 'createLotTransfer.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createTestSample.payload-too-large-413'] },
    { check: 'createTestSample.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createLotTransfer.payload-too-large-413'] },
    // Body sizes between common server limits and the profile's: a server keeping its stack's 100 KiB default
    // (it also refuses the corpus body of test samples whose two 64 KiB text classes meet in one row).
    ...['createLotTransfer.large-body-2xx', 'createTestSample.large-body-2xx'].map((check) => ({
      check,
      faults: ['limit-100kb'],
      alsoFails: [
        'createLotTransfer.large-body-2xx',
        'createTestSample.large-body-2xx',
        'createTestSample.valid-request-2xx',
        'createTestSample.status-201',
      ].filter((c) => c !== check),
    })),
  ];
}

/** The bad-request checks of the creates, with their faults. */
export const requestErrorsModule: CheckModule = {
  suite: requestErrorChecks,
  faultCases: () =>
    faultRows().map((f) => ({
      check: f.check,
      faults: [...f.faults],
      ...(f.alsoFails !== undefined ? { alsoFails: [...f.alsoFails] } : {}),
    })),
  overrides: {},
  observe: [],
};

const wrongMethod: Observation = {
  id: 'answer.unknown-route',
  level: 'strict',
  side: 'server',
  rule: PROFILE.wrongMethod,
  judge(input) {
    const [first, ...others] = input.allow ?? [];
    if (input.op || first === undefined) return [];
    const found = judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, first);
    // A wrong status is one violation; with 405, the Allow header must list every method of the path.
    if (found.some((v) => v.header === undefined)) return found;
    return [...found, ...others.flatMap((method) => judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, method))];
  },
};

const inputStatus: Observation = {
  id: 'answer.input-status',
  level: 'strict',
  side: 'server',
  rule: `${PROFILE.mediaType} ${PROFILE.malformed} ${PROFILE.schema}`,
  judge(input) {
    const op = createOf(input);
    const answer = input.exchange.answer;
    if (!op || !answer || !input.requestComplete || answer.status === 401) return [];
    if (securityPresented(input.exchange.request, input.jc.model.get(op).security).kind !== 'well-formed') return [];
    if (input.clientRules.has(mediaType.id)) {
      // A charset other than UTF-8 is the client's fault (RFC 8259 §8.1, `mediaTypeFault`), but the profile
      // asks nothing of the server's answer to it (the mock refuses it 415; a server may read it as UTF-8).
      const wanted = input.jc.model.get(op).requestMediaType ?? 'application/json';
      if (mediaTypeFault(input.exchange.request.headers['content-type'], wanted)?.kind === 'charset') return [];
      return judgeRefused(input.exchange, input.jc, PROFILE.mediaType, 415);
    }
    if (input.clientRules.has(requestJson.id)) return judgeRefused(input.exchange, input.jc, PROFILE.malformed, 400);
    if (input.clientRules.has(requestSchema.id)) return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400);
    return judgeAcceptedBodyNotRefused(input.exchange);
  },
};

const errorPointers: Observation = {
  id: 'answer.error-pointers',
  level: 'strict',
  side: 'server',
  rule: `${PROFILE.schema} ${PROFILE.unknownLot}`,
  judge(input) {
    const op = createOf(input);
    const answer = input.exchange.answer;
    const { model } = input.jc;
    // Without an `errors` list answer.schema reports the answer; here the list is judged.
    const errors = model.errorsMember;
    if (!op || !answer || errors === undefined || !isObject(input.answerBody) || !Array.isArray(input.answerBody[errors])) return [];
    if (answer.status === 400) {
      const problems = judgeRequestSchema(input.exchange, input.jc, op, 'strict').flatMap((v) =>
        v.pointer !== undefined ? [v.pointer] : [],
      );
      return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400, problems);
    }
    const lotMember = model.create(op).recordModel?.lotMember;
    if (answer.status !== 422 || lotMember === undefined) return [];
    return judgeRefused(input.exchange, input.jc, PROFILE.unknownLot, 422, [childPointer('', lotMember)]);
  },
};

/**
 * What the proxy observes of refused requests: a wrong method, a refused body's status and its error
 * pointers. An entry of its own in the list, before the auth checks' (the proxy's order of server rules).
 */
export const requestErrorsObserved = defineObservation(wrongMethod, inputStatus, errorPointers);
