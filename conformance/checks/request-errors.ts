/** Bad requests to the create operations (strict): 415, 400 (malformed, not an object, schema), 413, 422, 405. */
import type { JsonObject } from '../../contract/document.js';
import type { CreateOperationId, OperationModel } from '../../contract/operations-model.js';
import { judgeMethodNotAllowed, judgeRefused } from '../../judgments/request-errors.js';
import { PROFILE } from '../../judgments/rules.js';
import type { CheckContext } from '../context.js';
import {
  carriesMarker,
  malformedJson,
  missingRequired,
  nonObjectJson,
  outOfBounds,
  severalProblems,
  unknownMember,
  writable,
  wrongTypes,
  UNKNOWN_MEMBER,
  type InvalidBody,
} from '../data.js';
import { CREATE_IDS, MODEL } from './helpers.js';
import type { Check } from './types.js';

/** An id of the lot-naming member far from every discovered lot. */
export async function unknownLotId(ctx: CheckContext): Promise<number> {
  const lots = await ctx.lots();
  const base = 2_147_480_000;
  return lots.some((lot) => lot.id === base) ? Math.max(...lots.map((l) => l.id)) + 1_000_003 : base;
}

/** The valid body the invalid ones are derived from: the first corpus body (fixed, seed-independent). */
async function validBody(ctx: CheckContext, op: CreateOperationId): Promise<JsonObject> {
  const [first] = await ctx.corpus(op);
  const body: JsonObject = { ...(first?.body ?? {}) };
  // Every member a record is found by carries the run marker, so one broken member never leaves a body without it.
  for (const m of writable(ctx.model.create(op)))
    if (carriesMarker(m) && !(m.name in body)) body[m.name] = `${ctx.config.runMarker}-invalid`;
  return body;
}

type Derive = (op: OperationModel, valid: JsonObject, marker: string) => InvalidBody[];

const placeholder = (op: CreateOperationId): JsonObject => Object.fromEntries(writable(MODEL.create(op)).map((m) => [m.name, null]));

const INVALID: { name: string; title: string; derive: Derive }[] = [
  {
    name: 'missing-required-400',
    title: 'each required member missing: 400, pointer to it',
    derive: (op, v) => missingRequired(op, v),
  },
  {
    name: 'wrong-type-400',
    title: 'each member given each wrong JSON type: 400, pointer to it',
    derive: (op, v) => wrongTypes(op, v),
  },
  {
    name: 'out-of-bounds-400',
    title: 'each bound broken: 400, pointer to the member',
    derive: (op, v) => outOfBounds(op, v),
  },
  {
    name: 'unknown-member-400',
    title: 'an unknown member added: 400, pointer to it',
    derive: (_op, v, marker) => unknownMember(v, marker),
  },
  {
    name: 'several-problems-400',
    title: 'several problems in one body: 400, one errors[] entry per problem (every pointer present)',
    derive: (op, v, marker) => severalProblems(op, v, marker),
  },
];

function invalidBodyChecks(op: CreateOperationId): Check[] {
  return INVALID.map(({ name, title, derive }) => ({
    id: `${op}.${name}`,
    level: 'strict',
    operations: [op],
    title,
    rule: PROFILE.schema,
    write: true,
    cases: derive(MODEL.create(op), placeholder(op), 'MARKER').map((c) => c.label),
    async run(ctx, t) {
      for (const c of derive(ctx.model.create(op), await validBody(ctx, op), ctx.config.runMarker)) {
        await t.judge(
          c.label,
          () => ctx.sendToCreate(op, c.body),
          (e) => judgeRefused(e, ctx.judge, this.rule, 400, c.pointers),
        );
      }
    },
  }));
}

function textCheck(
  op: CreateOperationId,
  name: string,
  title: string,
  rule: string,
  status: number,
  cases: (valid: JsonObject) => { label: string; text: string; contentType?: string }[],
): Check {
  return {
    id: `${op}.${name}`,
    level: 'strict',
    operations: [op],
    title,
    rule,
    write: true,
    cases: cases(placeholder(op)).map((c) => c.label),
    async run(ctx, t) {
      for (const c of cases(await validBody(ctx, op))) {
        await t.judge(
          c.label,
          () => ctx.sendToCreate(op, c.text, ctx.bearer(), c.contentType),
          (e) => judgeRefused(e, ctx.judge, this.rule, status),
        );
      }
    },
  };
}

const MEDIA_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'application/xml'];

function badRequestChecks(op: CreateOperationId): Check[] {
  return [
    textCheck(
      op,
      'unsupported-media-type-415',
      'a JSON text sent under another media type is answered 415',
      PROFILE.mediaType,
      415,
      (valid) => MEDIA_TYPES.map((type) => ({ label: `Content-Type ${type}`, text: JSON.stringify(valid), contentType: type })),
    ),
    textCheck(op, 'malformed-json-400', 'malformed JSON is answered 400', PROFILE.malformed, 400, malformedJson),
    textCheck(
      op,
      'non-object-json-400',
      'JSON that is not an object (null, array, string, number, boolean) is answered 400',
      PROFILE.malformed,
      400,
      nonObjectJson,
    ),
    {
      id: `${op}.payload-too-large-413`,
      level: 'strict',
      operations: [op],
      title: 'a body over 1 MiB is answered 413',
      rule: PROFILE.tooLarge,
      write: true,
      cases: ['a valid body padded past 1 MiB'],
      async run(ctx, t) {
        const body = await validBody(ctx, op);
        const member =
          writable(ctx.model.create(op)).find((m) => m.type === 'string' && m.required) ??
          writable(ctx.model.create(op)).find((m) => m.type === 'string');
        const pad = `${ctx.config.runMarker}-${'x'.repeat(1024 * 1024)}`;
        await t.judge(
          'a valid body padded past 1 MiB',
          () => ctx.sendToCreate(op, { ...body, [member?.name ?? UNKNOWN_MEMBER]: pad }),
          (e) => judgeRefused(e, ctx.judge, this.rule, 413),
        );
      },
    },
    {
      id: `${op}.unknown-lot-422`,
      level: 'strict',
      operations: [op],
      title: 'a well-formed body naming no known lot is answered 422, with a pointer to the member',
      rule: PROFILE.unknownLot,
      write: true,
      cases: ['a lot id far from every lot of the order'],
      async run(ctx, t) {
        const lotMember = writable(ctx.model.create(op)).find((m) => m.namesLot);
        const body = { ...(await validBody(ctx, op)), ...(lotMember ? { [lotMember.name]: await unknownLotId(ctx) } : {}) };
        await t.judge(
          'a lot id far from every lot of the order',
          () => ctx.sendToCreate(op, body),
          (e) => judgeRefused(e, ctx.judge, this.rule, 422, lotMember ? [`/${lotMember.name}`] : []),
        );
      },
    },
    {
      id: `${op}.wrong-method-405`,
      level: 'strict',
      operations: [op],
      title: `GET on the create path is answered 405 with Allow: ${MODEL.create(op).method}`,
      rule: PROFILE.wrongMethod,
      cases: ['GET with the token'],
      async run(ctx, t) {
        await t.judge(
          'GET with the token',
          () => ctx.send({ operation: op, method: 'GET', path: ctx.path(op), headers: { ...ctx.bearer() } }),
          (e) => judgeMethodNotAllowed(e, this.rule, ctx.model.create(op).method),
        );
      },
    },
  ];
}

export const requestErrorChecks: Check[] = CREATE_IDS.flatMap((op) => [...badRequestChecks(op), ...invalidBodyChecks(op)]);
