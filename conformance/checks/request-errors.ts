/** Bad requests to the create operations: 415, 400 (malformed, not an object, every keyword of the schema), 413, 422, 405. */
import type { JsonObject } from '../../contract/document.js';
import type { CreateOperationId } from '../../contract/operations-model.js';
import { judgeCreateAnswered, judgeCreateShape } from '../../judgments/create.js';
import { is2xx } from '../../judgments/answer.js';
import { judgeMethodNotAllowed, judgeRefused } from '../../judgments/request-errors.js';
import { PROFILE, SPEC } from '../../judgments/rules.js';
import type { CheckContext } from '../context.js';
import {
  baseBody,
  derivationOf,
  invalidBodies,
  KEYWORD_FAMILIES,
  paddedBody,
  malformedJson,
  nonObjectJson,
  severalProblems,
  withMarkers,
  writable,
  UNKNOWN_MEMBER,
  type Derivation,
  type InvalidBody,
} from '../data.js';
import { BODY_SIZES, MEDIA_TYPES_REFUSED } from '../values/catalogue.js';
import type { Cases } from '../cases.js';
import type { CheckSource } from './helpers.js';
import type { Check } from './types.js';
import { withQuery } from '../../util/query.js';

/** An id of the lot-naming member that the schema accepts and no discovered lot has (far from them). */
export async function unknownLotId(ctx: CheckContext, op: CreateOperationId): Promise<number> {
  const lots = await ctx.lots();
  const d = ctx.derivation(op);
  const member = writable(d.op).find((m) => m.namesLot);
  const known = new Set(lots.map((l) => l.id));
  const base = baseBody(d, lots[0]?.id);
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
function placeholder(d: Derivation): JsonObject {
  return withMarkers(d, baseBody(d, undefined), 'MARKER');
}

const FAMILY_CHECKS: { name: string; title: string; keywords: readonly string[] | 'other' }[] = [
  { name: 'missing-required-400', title: 'each required member missing: 400, pointer to it', keywords: KEYWORD_FAMILIES.required },
  {
    name: 'wrong-type-400',
    title: 'each member (server-assigned ones too) given each wrong JSON type: 400, pointer to it',
    keywords: KEYWORD_FAMILIES.type,
  },
  { name: 'out-of-bounds-400', title: 'each bound broken (just past it): 400, pointer to the member', keywords: KEYWORD_FAMILIES.bounds },
  { name: 'unknown-member-400', title: 'an unknown member added: 400, pointer to it', keywords: KEYWORD_FAMILIES.unknown },
  {
    name: 'invalid-value-400',
    title: 'each value off the enum or const, outside the pattern or format, not a multiple: 400, pointer to the member',
    keywords: 'other',
  },
];

const ALL_FAMILIES = new Set<string>(Object.values(KEYWORD_FAMILIES).flat());
const inFamily = (c: InvalidBody, keywords: readonly string[] | 'other'): boolean =>
  keywords === 'other' ? !ALL_FAMILIES.has(c.keyword) : keywords.includes(c.keyword);

function invalidBodyChecks(source: CheckSource, op: CreateOperationId): Check[] {
  const d = derivationOf(source, op);
  const documented = invalidBodies(d, placeholder(d));
  const strictChecks: Check[] = FAMILY_CHECKS.flatMap(({ name, title, keywords }): Check[] => {
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
          for (const c of invalidBodies(ctx.derivation(op), await ctx.validBody(op)).filter((x) => inFamily(x, keywords)))
            await t.judge(
              c.label,
              () => ctx.memo(`invalid/${op}/${c.label}`, () => ctx.sendToCreate(op, c.body)),
              (e) => judgeRefused(e, ctx.judge, this.rule, 400, c.pointers),
            );
        },
      },
    ];
  });
  const several = severalProblems(documented, placeholder(d));
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
        for (const c of severalProblems(invalidBodies(ctx.derivation(op), valid), valid))
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
        for (const c of invalidBodies(ctx.derivation(op), await ctx.validBody(op)).filter((x) => x.levels.includes('spec')))
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
): Check {
  return {
    id: `${op}.${name}`,
    level: 'strict',
    operations: [op],
    title,
    rule,
    write: true,
    cases: cases(placeholder(derivationOf(source, op))).map((c) => c.label),
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
function bodySizeChecks(source: CheckSource, op: CreateOperationId, limit: number): Check[] {
  const d = derivationOf(source, op);
  const sizes = [
    ...BODY_SIZES.filter((s) => s.bytes < limit),
    { name: 'just under the limit', bytes: limit - 4096, reason: "the profile's own limit" },
  ];
  const cases = sizes
    .filter((s) => paddedBody(d, placeholder(d), s.bytes, 'MARKER') !== undefined)
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
          .filter((s) => paddedBody(ctx.derivation(op), valid, s.bytes, ctx.config.runMarker) !== undefined)
          .map((s) => `size/${op}/${s.bytes}`);
      },
      async run(ctx, t) {
        const valid = await ctx.validBody(op);
        for (const size of sizes) {
          const padded = paddedBody(ctx.derivation(op), valid, size.bytes, `${ctx.config.runMarker}-size-${size.bytes}`);
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

function badRequestChecks(source: CheckSource, op: CreateOperationId): Check[] {
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
        MEDIA_TYPES_REFUSED.map((media) => ({
          label: media.contentType === null ? media.name : `Content-Type ${media.contentType}`,
          text: JSON.stringify(valid),
          contentType: media.contentType,
        })),
    ),
    textCheck(source, op, 'malformed-json-400', 'malformed JSON is answered 400', PROFILE.malformed, 400, malformedJson),
    textCheck(
      source,
      op,
      'non-object-json-400',
      'JSON that is not an object (null, array, string, number, boolean) is answered 400',
      PROFILE.malformed,
      400,
      nonObjectJson,
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
            async run(ctx: CheckContext, t: Cases) {
              const body = await ctx.validBody(op);
              const member =
                writable(ctx.model.create(op)).find((m) => m.type === 'string' && m.required) ??
                writable(ctx.model.create(op)).find((m) => m.type === 'string');
              const pad = `${ctx.config.runMarker}-${'x'.repeat(limit)}`;
              for (const framing of TOO_LARGE_FRAMINGS)
                await t.judge(
                  `a valid body padded past ${limit} bytes, ${framing.name}`,
                  () =>
                    ctx.sendToCreate(op, { ...body, [member?.name ?? UNKNOWN_MEMBER]: pad }, ctx.credentialsOf(op).headers, {
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
      extraWrites: () => Promise.resolve([`chunked/${op}`]),
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
    ...(writable(model).some((m) => m.namesLot) ? [unknownLotCheck(op)] : []),
    ...wrongMethodChecks(source, op),
  ];
}

/** A create naming a lot: a lot no order has is answered 422. */
function unknownLotCheck(op: CreateOperationId): Check {
  return {
    id: `${op}.unknown-lot-422`,
    level: 'strict',
    operations: [op],
    title: 'a well-formed body naming no known lot is answered 422, with a pointer to the member',
    rule: PROFILE.unknownLot,
    write: true,
    cases: ['a lot id far from every lot of the order'],
    async run(ctx, t) {
      const lotMember = writable(ctx.model.create(op)).find((m) => m.namesLot);
      const body = { ...(await ctx.validBody(op)), ...(lotMember ? { [lotMember.name]: await unknownLotId(ctx, op) } : {}) };
      await t.judge(
        'a lot id far from every lot of the order',
        () => ctx.sendToCreate(op, body),
        (e) => judgeRefused(e, ctx.judge, this.rule, 422, lotMember ? [`/${lotMember.name}`] : []),
      );
    },
  };
}

/** A method the create's path does not serve (GET unless another operation has it there) is answered 405 with Allow. */
function wrongMethodChecks(source: CheckSource, op: CreateOperationId): Check[] {
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
export function requestErrorChecks(source: CheckSource): Check[] {
  return source.model.createIds.flatMap((op) => [...badRequestChecks(source, op), ...invalidBodyChecks(source, op)]);
}
