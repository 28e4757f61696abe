/**
 * Checks of a successful create (lot transfer, test sample): spec facts 4-6 and the profile's 201,
 * formats, defaults, ids, read-only. The spec and strict checks judge the same systematic corpus
 * (every class of value of every member, every optional member omitted, every lot up to the cap),
 * plus one seeded generated body on top. The cases come from the suite's data generator, handed with
 * the contract (`CheckSource.data`) and the run (`SuiteContext`). With their faults (the reference
 * server's, for the bundled contract's creates) and what the proxy observes of a create's answer.
 */
import { isObject, readContract, type JsonObject } from '../contract/document.js';
import { operationsModel, type CreateOperationId, type MemberModel } from '../contract/operations-model.js';
import { is2xx, objectOf } from '../judgments/answer.js';
import {
  judgeCreateAnswered,
  judgeCreateShape,
  judgeCreateStatus,
  judgeDefaults,
  judgeEcho,
  judgeReadOnlyIgnored,
} from '../judgments/create.js';
import type { JudgeContext, JudgedExchange, Violation } from '../judgments/exchange.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { childPointer } from '../util/json-pointer.js';
import type { CorpusBody, Derivation, CheckData } from './data.js';
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
import { createOf } from './observe.js';
import { CheckSkipped, on2xx } from './skip.js';

/** The documented cases of the corpus of an operation (for --list-checks): every class of every member the contract accepts. */
export function corpusCases(data: CheckData, d: Derivation): string[] {
  const base = data.baseBody(d, undefined);
  return [
    `every lot of the order (up to ${data.lotCap}), one body per lot at least; the optional members' presence combined pairwise`,
    ...data
      .writable(d.op)
      .filter((m) => !m.namesLot)
      .map((m) => `${m.name}: ${[...data.memberClasses(d, m, base).map((c) => c.name), ...(m.required ? [] : ['omitted'])].join(', ')}`),
  ];
}
const EXTRA = 'one generated body (json-schema-faker, seeded; extra, within the budget left)';

/** Runs a judgment over every corpus create of `op` (and, with `extra`, the seeded generated body). */
async function overCorpus<X extends SuiteExchange>(
  ctx: SuiteContext<X>,
  t: SuiteCases<X>,
  op: CreateOperationId,
  judge: (exchange: X, body: CorpusBody) => Violation[],
  options: { extra?: boolean; only?: (body: CorpusBody) => boolean } = {},
): Promise<void> {
  const corpus = await ctx.corpus(op);
  for (const [index, body] of corpus.entries()) {
    if (options.only && !options.only(body)) continue;
    await t.judge(
      body.name,
      async () => (await ctx.corpusCreate(op, index)).exchange,
      (e) => judge(e, body),
    );
  }
  if (options.extra) {
    const generated = await generatedCreate(ctx, op);
    await t.run(
      generatedCaseName(ctx.config.seed),
      async () => {
        const { body, exchange } = await generated();
        ctx.sent(exchange);
        ctx.verdict(exchange, judge(exchange, { name: 'generated', body, lot: (await ctx.lots())[0] ?? { id: 0, value: {} } }));
      },
      { extra: true },
    );
  }
}

/** The name of the seeded extra case (the one case whose body depends on the seed). */
export const generatedCaseName = (seed: number): string => `generated body (seed ${seed})`;

/** The budget key of the seeded extra create of `op` (planned by the three spec checks that judge it). */
const generatedKey = (op: CreateOperationId): string => `extra/${op}`;
const planGenerated = (op: CreateOperationId): readonly string[] => [generatedKey(op)];

/** The seeded extra create (reserved after every operation's spec cases, `extraWrites`). */
async function generatedCreate<X extends SuiteExchange>(
  ctx: SuiteContext<X>,
  op: CreateOperationId,
): Promise<() => Promise<{ body: JsonObject; exchange: X }>> {
  const body = await ctx.body(op, 'generated');
  const key = generatedKey(op);
  return () => ctx.memo(key, async () => ({ body, exchange: await ctx.createRecord(op, body, { extra: key }) }));
}

/**
 * Values a client sends for the server-assigned members (they must be ignored): for each, a class its
 * schema accepts that a server is least likely to assign itself (the largest number, a format's edge).
 */
export function readOnlyValues(data: CheckData, d: Derivation): JsonObject {
  const out: JsonObject = {};
  const base = data.baseBody(d, undefined);
  for (const m of d.op.members.filter((x) => x.readOnly)) {
    const classes = data.memberClasses(d, m, base).map((c) => c.value);
    const numbers = classes.filter((v): v is number => typeof v === 'number');
    const chosen =
      numbers.length > 0
        ? Math.max(...numbers.filter(Number.isSafeInteger), 0) || numbers[0]
        : classes.find((v) => typeof v === 'string' && v.length > 0);
    if (chosen !== undefined) out[m.name] = chosen;
  }
  return out;
}

/** A 2xx answer's body as a JSON object, if it is one. */
function answerObject(exchange: JudgedExchange): JsonObject | undefined {
  if (!exchange.answer) return undefined;
  const parsed = objectOf(exchange.answer, '');
  return 'value' in parsed ? parsed.value : undefined;
}

function successChecks(source: CheckSource, op: CreateOperationId): SuiteCheck[] {
  const { data } = source;
  const writable = data.writable;
  const d = data.derivationOf(source, op);
  const model = d.op;
  const idMember = model.record?.idMember ?? model.members[0]?.name ?? '';
  const fact = source.model.creates[0]?.operationId === op ? SPEC.lotTransfer : SPEC.testSample;
  const cases = corpusCases(data, d);
  /** A check of the operation's spec fact: every 2xx answer to the corpus and the generated body, judged by `judge`. */
  const factCheck = (
    aspect: string,
    title: string,
    judge: (jc: JudgeContext) => (exchange: JudgedExchange, body: CorpusBody) => Violation[],
  ): SuiteCheck => ({
    id: `${op}.${aspect}`,
    level: 'spec',
    operations: [op],
    extraWrites: planGenerated(op),
    title,
    rule: fact,
    write: true,
    cases: [...cases, EXTRA],
    async run(ctx, t) {
      await overCorpus(ctx, t, op, on2xx(judge(ctx.judge)), { extra: true });
    },
  });
  const checks: SuiteCheck[] = [
    {
      id: `${op}.valid-request-2xx`,
      level: 'spec',
      operations: [op],
      extraWrites: planGenerated(op),
      title: 'valid bodies (every value class of every member, every lot) are answered 2xx',
      rule: SPEC.validRequest,
      write: true,
      cases: [...cases, EXTRA],
      async run(ctx, t) {
        await overCorpus(ctx, t, op, (e) => judgeCreateAnswered(e), { extra: true });
      },
    },
    factCheck(
      'answer-shape',
      `each 2xx answer is application/json, a ${model.successSchema} object of the listed types`,
      (jc) => (e) => judgeCreateShape(e, jc, op, 'spec'),
    ),
    factCheck(
      'echo',
      'the members sent come back with the same values (every value class, every lot)',
      (jc) => (e, body) => judgeEcho(e, jc, op, body.body),
    ),
    {
      id: `${op}.status-201`,
      level: 'strict',
      operations: [op],
      title: `create success is ${model.successStatus}`,
      rule: PROFILE.createSuccess,
      write: true,
      cases,
      async run(ctx, t) {
        await overCorpus(ctx, t, op, (e) => judgeCreateStatus(e, ctx.judge, op));
      },
    },
    {
      id: `${op}.strict-shape`,
      level: 'strict',
      operations: [op],
      title: 'every listed field present, created/modified are RFC 3339 date-times (strict schema)',
      rule: PROFILE.formats,
      write: true,
      cases,
      async run(ctx, t) {
        await overCorpus(
          ctx,
          t,
          op,
          on2xx((e) => judgeCreateShape(e, ctx.judge, op, 'strict')),
        );
      },
    },
    {
      id: `${op}.defaults`,
      level: 'strict',
      operations: [op],
      title: `omitted members get their defaults (${writable(model)
        .filter((m) => 'default' in m || m.defaultFrom || m.defaultSequence)
        .map((m) => m.name)
        .join(', ')})`,
      rule: PROFILE.defaults,
      write: true,
      cases: ['every corpus body omitting a member that has a default'],
      async run(ctx, t) {
        const defaulted = writable(model).filter((m) => 'default' in m || m.defaultFrom || m.defaultSequence);
        await overCorpus(
          ctx,
          t,
          op,
          on2xx((e, body) => judgeDefaults(e, ctx.judge, op, body.body, body.lot.value)),
          {
            only: (body) => defaulted.some((m) => !(m.name in body.body)),
          },
        );
      },
    },
    {
      id: `${op}.ids-unique`,
      level: 'strict',
      operations: [op],
      title: `the creates of the run get different ids (${SEQUENCE_MIN} creates at least, over two lots at least)`,
      rule: PROFILE.responses,
      write: true,
      cases: [`the ids of every corpus create, plus creates up to ${SEQUENCE_MIN} over two lots at least`],
      extraWrites: async (ctx) => (await sequenceExtras(data, ctx, op)).map((e) => e.key),
      async run(ctx, t) {
        await t.run(`the ids of every corpus create, plus creates up to ${SEQUENCE_MIN} over two lots at least`, () =>
          judgeGeneratedUnique(data, ctx, op, idMember, () => true, this.rule, false),
        );
      },
    },
    {
      id: `${op}.read-only-ignored`,
      level: 'strict',
      operations: [op],
      title: `${model.members
        .filter((m) => m.readOnly)
        .map((m) => m.name)
        .join(', ')} sent by the client are ignored (server-assigned), not rejected`,
      rule: PROFILE.readOnly,
      write: true,
      cases: ['a valid body with every server-assigned member'],
      extraWrites: [`read-only/${op}`],
      async run(ctx, t) {
        const [first] = await ctx.corpus(op);
        const body = { ...(first?.body ?? {}), ...readOnlyValues(data, ctx.derivation(op)) };
        await t.judge(
          'a valid body with every server-assigned member',
          () => ctx.extraCreate(`read-only/${op}`, op, body),
          (e) => judgeReadOnlyIgnored(e, ctx.judge, op, body),
        );
      },
    },
    {
      id: `${op}.charset-accepted`,
      level: 'strict',
      operations: [op],
      title: 'application/json with a charset parameter, in any letter case, is accepted (2xx)',
      rule: PROFILE.charset,
      write: true,
      cases: data.mediaTypesAccepted.map((m) => `Content-Type ${m.contentType} (${m.name})`),
      extraWrites: data.mediaTypesAccepted.map((m) => `media/${op}/${m.contentType}`),
      async run(ctx, t) {
        const [first] = await ctx.corpus(op);
        for (const media of data.mediaTypesAccepted)
          await t.judge(
            `Content-Type ${media.contentType} (${media.name})`,
            () => ctx.extraCreate(`media/${op}/${media.contentType}`, op, first?.body ?? {}, { contentType: media.contentType }),
            (e) => judgeCreateAnswered(e).map((v) => ({ ...v, rule: this.rule })),
          );
      },
    },
  ];
  const sequence = writable(model).find((m) => m.defaultSequence);
  if (sequence) checks.push(sequenceCheck(data, op, sequence));
  // A create without a member that has a default has no defaults to check.
  const defaulted = writable(model).some((m) => 'default' in m || m.defaultFrom || m.defaultSequence);
  return defaulted ? checks : checks.filter((c) => c.id !== `${op}.defaults`);
}

/**
 * At least this many creates let the server generate each member it generates (its id, each
 * `x-default-sequence` member): more than a small block size, so a counter that repeats after a few
 * values, an id block or a cache of a few entries shows a repeated value.
 */
export const SEQUENCE_MIN = 12;

/** The members the server generates for a create: `x-default-sequence` members (when omitted). */
const sequenceMembers = (data: CheckData, op: CreateOperationId, ctx: SuiteContext<SuiteExchange>): MemberModel[] =>
  data.writable(ctx.model.create(op)).filter((m) => m.defaultSequence);

/**
 * The creates the uniqueness checks add to the corpus, the same for every seed (known from the corpus
 * and the lots alone): each omits every sequence member, so that with the corpus creates that let
 * the server generate a member (every create for the id; those omitting it for a sequence member)
 * each generated member is generated SEQUENCE_MIN times at least, over two lots at least (a counter
 * kept per lot repeats across lots). They name the first two lots in turn, starting with one the
 * corpus names least for the least-covered member.
 */
function sequenceExtras<X extends SuiteExchange>(
  data: CheckData,
  ctx: SuiteContext<X>,
  op: CreateOperationId,
): Promise<{ key: string; name: string; body: JsonObject }[]> {
  return ctx.memo(`sequence-extras/${op}`, () => planSequenceExtras(data, ctx, op));
}

async function planSequenceExtras<X extends SuiteExchange>(
  data: CheckData,
  ctx: SuiteContext<X>,
  op: CreateOperationId,
): Promise<{ key: string; name: string; body: JsonObject }[]> {
  const corpus = await ctx.corpus(op);
  const lotMember = ctx.model.create(op).recordModel?.lotMember;
  const lots = (await ctx.lots()).slice(0, 2);
  const sequences = sequenceMembers(data, op, ctx);
  const generating: (readonly CorpusBody[])[] = [corpus, ...sequences.map((m) => corpus.filter((b) => !(m.name in b.body)))];
  // The fewest creates of any generated member, and the lots they name.
  const fewest = generating.reduce((a, b) => (b.length < a.length ? b : a));
  const named = new Map(lots.map((lot) => [lot.id, fewest.filter((b) => b.lot.id === lot.id).length]));
  const extras: { key: string; name: string; body: JsonObject }[] = [];
  let count = fewest.length;
  const missingLot = (): boolean => [...named.values()].some((n) => n === 0);
  while (lots.length > 0 && (count < SEQUENCE_MIN || missingLot())) {
    // The lot named least so far (the first of them on a tie).
    const lot = lots.reduce((a, b) => ((named.get(b.id) ?? 0) < (named.get(a.id) ?? 0) ? b : a));
    const from = corpus.find((b) => b.lot.id === lot.id) ?? corpus[0];
    const body = { ...(from?.body ?? {}) };
    if (lotMember !== undefined) body[lotMember] = lot.id;
    for (const m of sequences) delete body[m.name];
    data.ensureMarker(
      ctx.derivation(op),
      body,
      ctx.config.runMarker,
      sequences.map((m) => m.name),
    );
    extras.push({ key: `sequence/${op}/${extras.length}`, name: `one more create, lot ${lot.id} (${extras.length + 1})`, body });
    named.set(lot.id, (named.get(lot.id) ?? 0) + 1);
    count++;
  }
  return extras;
}

/**
 * Judges the values of `member` in the 2xx answers to the corpus creates that `generates` keeps and
 * to the extra creates (sent at once): each a new value (a sequence member's: a non-empty string).
 */
async function judgeGeneratedUnique<X extends SuiteExchange>(
  data: CheckData,
  ctx: SuiteContext<X>,
  op: CreateOperationId,
  member: string,
  generates: (body: CorpusBody) => boolean,
  rule: string,
  nonEmptyString: boolean,
): Promise<void> {
  const corpus = await ctx.corpus(op);
  // Every create is started before any is judged (they are sent at once above --concurrency 1).
  const pending = [
    ...[...corpus.entries()]
      .filter(([, body]) => generates(body))
      .map(([index, body]) => ({ name: body.name, exchange: ctx.corpusCreate(op, index).then((c) => c.exchange) })),
    ...(await sequenceExtras(data, ctx, op)).map((e) => ({ name: e.name, exchange: ctx.extraCreate(e.key, op, e.body) })),
  ];
  const sent = await Promise.allSettled(pending.map((p) => p.exchange));
  const seen = new Map<string, string>();
  for (const [index, { name }] of pending.entries()) {
    const outcome = sent[index];
    if (outcome?.status === 'rejected') throw outcome.reason;
    const exchange = outcome?.value;
    if (!exchange) continue;
    ctx.sent(exchange); // not sent (a time-out of the operation, the deadline): not run, as it blocks
    if (!exchange.answer || !is2xx(exchange.answer.status)) continue;
    const answer = answerObject(exchange);
    if (!answer) continue; // not a JSON object: the shape checks report it
    const value = answer[member];
    const key = JSON.stringify(value);
    const earlier = seen.get(key);
    if ((nonEmptyString && (typeof value !== 'string' || value.length === 0)) || earlier !== undefined)
      ctx.verdict(exchange, [
        {
          rule,
          pointer: childPointer('', member),
          expected: `a generated ${member} not answered before`,
          reason: `${member} is ${key}${earlier !== undefined ? ` (already answered for "${earlier}")` : ''}`,
        },
      ]);
    seen.set(key, name);
  }
  if (seen.size < 2) throw new CheckSkipped(`fewer than two 2xx creates that let the server generate ${member}`);
}

/** Generated values of an `x-default-sequence` member are unique. */
function sequenceCheck(data: CheckData, op: CreateOperationId, member: MemberModel): SuiteCheck {
  const name = `every create omitting ${member.name} (corpus, plus creates up to ${SEQUENCE_MIN} over two lots at least)`;
  return {
    id: `${op}.${member.name.replace(/_/g, '-')}-unique`,
    level: 'strict',
    operations: [op],
    title: `generated ${member.name} values are unique (${SEQUENCE_MIN} at least, over two lots at least)`,
    rule: PROFILE.defaults,
    write: true,
    cases: [name],
    extraWrites: async (ctx) => (await sequenceExtras(data, ctx, op)).map((e) => e.key),
    async run(ctx, t) {
      await t.run(name, () => judgeGeneratedUnique(data, ctx, op, member.name, (body) => !(member.name in body.body), this.rule, true));
    },
  };
}

/** The checks of every create operation of the contract. */
function createChecks(source: CheckSource): SuiteCheck[] {
  return source.model.createIds.flatMap((op) => successChecks(source, op));
}

let referenceCreates: readonly CreateOperationId[] | undefined;

/**
 * The create operations the reference server's faults of this family name: the bundled contract's, read
 * from it when the fault table is first built (a check only other contracts have relies on the faults the
 * self-test derives from their schemas).
 */
export function referenceCreateIds(): readonly CreateOperationId[] {
  return (referenceCreates ??= operationsModel(readContract()).createIds);
}

/** A sample counter kept per lot: the fault the uniqueness check must catch under any seed (`faults.test.ts` runs it under five). */
export const SEQUENCE_PER_LOT = 'sequence-per-lot';

/** The faults of the reference server that make the checks of a successful create fail. */
function faultRows(): readonly FaultCase[] {
  const creates = referenceCreateIds();
  return [
    ...creates.flatMap((op) => [
      { check: `${op}.valid-request-2xx`, faults: [`create-rejects:${op}`] },
      { check: `${op}.answer-shape`, faults: [`create-id-string:${op}`] },
      { check: `${op}.echo`, faults: [`ignore-sent-default-from:${op}`] },
      // Every lot of the order: a server taking every lot for the first one.
      { check: `${op}.echo`, faults: [`first-lot-only:${op}`] },
      { check: `${op}.defaults`, faults: [`wrong-default:${op}`] },
      { check: `${op}.status-201`, faults: [`create-200:${op}`] },
      { check: `${op}.strict-shape`, faults: [`created-format:${op}`] },
      { check: `${op}.ids-unique`, faults: [`constant-id:${op}`] },
      { check: `${op}.read-only-ignored`, faults: [`keep-read-only:${op}`] },
      { check: `${op}.charset-accepted`, faults: [`charset-415:${op}`] },
    ]),
    // Value classes of the create members: `completed: true` ignored, a large amount or a non-ASCII string refused.
    { check: 'createLotTransfer.echo', faults: ['ignore-sent-true:createLotTransfer'] },
    { check: 'createLotTransfer.valid-request-2xx', faults: ['reject-large-number:createLotTransfer'] },
    ...creates.map((op) => ({ check: `${op}.valid-request-2xx`, faults: [`reject-non-ascii:${op}`] })),
    // Date-times RFC 3339 refuses and lenient validators accept: an offset without its colon, a space for T, no seconds, hour 24.
    { check: 'createLotTransfer.strict-shape', faults: ['date-time-no-colon:createLotTransfer'] },
    { check: 'createTestSample.strict-shape', faults: ['date-time-space:createTestSample'] },
    { check: 'createTestSample.strict-shape', faults: ['date-time-no-seconds:createTestSample'] },
    { check: 'createLotTransfer.strict-shape', faults: ['date-time-hour-24:createLotTransfer'] },
    { check: 'createTestSample.sample-number-unique', faults: ['constant-sequence'] },
    // Sequences long enough to expose counters: one kept per lot, one repeating after five values; ids counted per lot.
    { check: 'createTestSample.sample-number-unique', faults: [SEQUENCE_PER_LOT] },
    { check: 'createTestSample.sample-number-unique', faults: ['sequence-cycle-5'] },
    ...creates.map((op) => ({ check: `${op}.ids-unique`, faults: [`id-per-lot:${op}`] })),
  ];
}

/** The checks of a successful create, with their faults. */
export const createModule: CheckModule = {
  suite: createChecks,
  faultCases: () => faultRows().map((f) => ({ ...f, faults: [...f.faults] })),
  overrides: {},
  observe: [],
};

const echo: Observation = {
  id: 'answer.echo',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.lotTransfer} ${SPEC.testSample}`,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return [];
    return judgeEcho(input.exchange, input.jc, op, input.sent);
  },
};

const defaults: Observation = {
  id: 'answer.defaults',
  level: 'strict',
  side: 'server',
  rule: PROFILE.defaults,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return [];
    return judgeDefaults(input.exchange, input.jc, op, input.sent, input.lot);
  },
};

/**
 * What the proxy observes of a create's answer: the members sent come back, the defaults filled in.
 * An entry of its own in the list, before the auth checks' (the proxy's order of server rules).
 */
export const createObserved = defineObservation(echo, defaults);
