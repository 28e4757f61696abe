/** Bad requests to the create operations (strict): 415, 400 (malformed, not an object, schema), 413, 422, 405. */
import { isObject, type JsonObject } from '../../contract/document.js';
import type { CheckContext } from '../context.js';
import { missingRequired, outOfBounds, unknownMember, wrongTypes, type InvalidBody } from '../data.js';
import { CheckFailure } from '../failure.js';
import type { Exchange } from '../http.js';
import { CREATE_OPERATIONS, type CreateOperationId } from '../operations.js';
import { PROFILE } from '../rules.js';
import { expectMethodNotAllowed } from './helpers.js';
import type { Check } from './types.js';

/** An `fk_lot_id` far from any real lot (and from every discovered one). */
export async function unknownLotId(ctx: CheckContext): Promise<number> {
  const lots = await ctx.lots();
  const base = 2_147_480_000;
  return lots.some((lot) => lot.id === base) ? Math.max(...lots.map((l) => l.id)) + 1_000_003 : base;
}

/** The pointers an answer's `errors[]` names (empty when the body has none). */
export function errorPointers(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isObject(value) || !Array.isArray(value['errors'])) return [];
  return value['errors'].filter(isObject).flatMap((e) => (typeof e['pointer'] === 'string' ? [e['pointer']] : []));
}

/** Sends every invalid body; fails listing every case not answered 400 with a pointer to the bad member. */
async function expectRejected(ctx: CheckContext, op: CreateOperationId, rule: string, cases: InvalidBody[]): Promise<void> {
  const problems: string[] = [];
  let first: Exchange | undefined;
  for (const c of cases) {
    const exchange = await ctx.post(op, c.body);
    let problem: string | undefined;
    if (!exchange.answer) problem = exchange.error ?? 'no answer';
    else if (exchange.answer.status !== 400) problem = `status ${exchange.answer.status}`;
    else if (!errorPointers(exchange.answer.text).includes(c.pointer)) {
      const found = errorPointers(exchange.answer.text);
      problem = `errors[].pointer ${found.length ? found.map((p) => JSON.stringify(p)).join(', ') : '(none)'} does not name ${c.pointer}`;
    }
    if (problem !== undefined) {
      problems.push(`${c.label}: ${problem}`);
      first ??= exchange;
    }
  }
  if (problems.length > 0) {
    const failure = ctx.expect.failure(
      first,
      rule,
      `400 with errors[].pointer naming the member, for each of ${cases.length} bodies`,
      `${problems.length} of ${cases.length} bodies: ${problems.join('; ')}`,
    );
    throw new CheckFailure({ ...failure.details, actual: `${failure.details.actual} (request shown: the first failing body)` });
  }
}

type Derive = (ctx: CheckContext, op: CreateOperationId, valid: JsonObject) => InvalidBody[];

const INVALID: { name: string; title: string; derive: Derive }[] = [
  {
    name: 'missing-required-400',
    title: 'each required member dropped: 400, pointer to it',
    derive: (ctx, op, v) => missingRequired(ctx.models[op], v),
  },
  {
    name: 'wrong-type-400',
    title: 'each member given a wrong type: 400, pointer to it',
    derive: (ctx, op, v) => wrongTypes(ctx.models[op], v),
  },
  {
    name: 'out-of-bounds-400',
    title: 'each bound broken: 400, pointer to the member',
    derive: (ctx, op, v) => outOfBounds(ctx.models[op], v),
  },
  {
    name: 'unknown-member-400',
    title: 'an unknown member added: 400, pointer to it',
    derive: (ctx, _op, v) => unknownMember(v, ctx.config.runMarker),
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
    async run(ctx) {
      await expectRejected(ctx, op, this.rule, derive(ctx, op, await ctx.body(op, 'invalid')));
    },
  }));
}

function statusCheck(
  op: CreateOperationId,
  name: string,
  title: string,
  rule: string,
  status: number,
  send: (ctx: CheckContext) => Promise<Exchange[]>,
): Check {
  return {
    id: `${op}.${name}`,
    level: 'strict',
    operations: [op],
    title,
    rule,
    write: true,
    async run(ctx) {
      for (const exchange of await send(ctx)) ctx.expect.status(exchange, this.rule, status);
    },
  };
}

function badRequestChecks(op: CreateOperationId): Check[] {
  return [
    statusCheck(op, 'unsupported-media-type-415', 'a JSON text sent as text/plain is answered 415', PROFILE.mediaType, 415, async (ctx) => [
      await ctx.post(op, JSON.stringify(await ctx.body(op, 'media-type')), ctx.bearer(), 'text/plain'),
    ]),
    statusCheck(op, 'malformed-json-400', 'malformed JSON is answered 400', PROFILE.malformed, 400, async (ctx) => [
      await ctx.post(op, `{"fk_lot_id": ${(await ctx.lot()).id}, "notes": "${ctx.config.runMarker}"`),
    ]),
    statusCheck(
      op,
      'non-object-json-400',
      'JSON that is not an object (an array, a number) is answered 400',
      PROFILE.malformed,
      400,
      async (ctx) => [await ctx.post(op, [await ctx.body(op, 'array')]), await ctx.post(op, '42')],
    ),
    statusCheck(op, 'payload-too-large-413', 'a body over 1 MiB is answered 413', PROFILE.tooLarge, 413, async (ctx) => {
      const body = await ctx.body(op, 'too-large');
      const pad = `${ctx.config.runMarker}-${'x'.repeat(1024 * 1024)}`;
      const member = op === 'createLotTransfer' ? 'target_scancode' : 'notes';
      return [await ctx.post(op, { ...body, [member]: pad })];
    }),
    {
      id: `${op}.unknown-lot-422`,
      level: 'strict',
      operations: [op],
      title: 'a well-formed body naming no known lot is answered 422, pointer /fk_lot_id',
      rule: PROFILE.unknownLot,
      write: true,
      async run(ctx) {
        const exchange = await ctx.post(op, { ...(await ctx.body(op, 'unknown-lot')), fk_lot_id: await unknownLotId(ctx) });
        const answered = ctx.expect.status(exchange, this.rule, 422);
        if (!errorPointers(answered.answer.text).includes('/fk_lot_id')) {
          throw ctx.expect.failure(
            exchange,
            this.rule,
            'errors[].pointer "/fk_lot_id"',
            'the answer has no errors[] entry naming /fk_lot_id',
          );
        }
      },
    },
    {
      id: `${op}.wrong-method-405`,
      level: 'strict',
      operations: [op],
      title: 'GET on the create path is answered 405 with Allow: POST',
      rule: PROFILE.wrongMethod,
      async run(ctx) {
        const exchange = await ctx.send({ target: op, method: 'GET', path: ctx.path(op), headers: { ...ctx.bearer() } });
        expectMethodNotAllowed(ctx, exchange, this.rule, 'POST');
      },
    },
  ];
}

export const requestErrorChecks: Check[] = CREATE_OPERATIONS.flatMap((op) => [...badRequestChecks(op), ...invalidBodyChecks(op)]);
