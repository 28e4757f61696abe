/** Checks of a successful create (lot transfer, test sample): spec facts 4-6 and the profile's defaults, ids, readOnly. */
import type { JsonObject, JsonValue } from '../../contract/document.js';
import type { CheckContext } from '../context.js';
import { CheckSkipped } from '../failure.js';
import { CREATE_OPERATIONS, type CreateOperationId } from '../operations.js';
import { PROFILE, SPEC } from '../rules.js';
import { created, is2xx, mainCreate, mustSucceed, successObject } from './helpers.js';
import type { Check } from './types.js';

const SCHEMA: Record<CreateOperationId, string> = { createLotTransfer: 'LotTransfer', createTestSample: 'TestSample' };
const SPEC_RULE: Record<CreateOperationId, string> = { createLotTransfer: SPEC.lotTransfer, createTestSample: SPEC.testSample };

const same = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Values a client sends for the server-assigned members (they must be ignored). */
export const READ_ONLY_VALUES: JsonObject = { id: 987654321, created: '2001-02-03T04:05:06Z', modified: '2001-02-03T04:05:06Z' };

function successChecks(op: CreateOperationId): Check[] {
  const rule = SPEC_RULE[op];
  return [
    {
      id: `${op}.valid-request-2xx`,
      level: 'spec',
      operations: [op],
      title: 'a valid generated body naming a lot of the order is answered 2xx',
      rule: SPEC.validRequest,
      write: true,
      async run(ctx) {
        ctx.expect.status((await mainCreate(ctx, op)).exchange, this.rule, is2xx, 'a 2xx status');
      },
    },
    {
      id: `${op}.answer-shape`,
      level: 'spec',
      operations: [op],
      title: `the 2xx answer is application/json, a ${SCHEMA[op]} object of the listed types`,
      rule,
      write: true,
      async run(ctx) {
        const { answered, value } = successObject(ctx, (await mainCreate(ctx, op)).exchange, this.rule);
        ctx.expect.contentType(answered, this.rule, 'application/json');
        ctx.expect.valid(answered, this.rule, ctx.schema('spec', SCHEMA[op]), value, `a ${SCHEMA[op]} object (spec level)`);
      },
    },
    {
      id: `${op}.echo`,
      level: 'spec',
      operations: [op],
      title: 'the members sent come back with the same values',
      rule,
      write: true,
      async run(ctx) {
        const { body, exchange } = await mainCreate(ctx, op);
        const { value } = successObject(ctx, exchange, this.rule);
        const differing = Object.keys(body).filter((name) => !same(body[name], value[name]));
        if (differing.length > 0) {
          const shown = differing.map((n) => `${n}: sent ${JSON.stringify(body[n])}, answered ${JSON.stringify(value[n])}`).join('; ');
          throw ctx.expect.failure(exchange, this.rule, 'every member sent answered with the same value', shown);
        }
      },
    },
    {
      id: `${op}.status-201`,
      level: 'strict',
      operations: [op],
      title: 'create success is 201',
      rule: PROFILE.createSuccess,
      write: true,
      async run(ctx) {
        ctx.expect.status((await mainCreate(ctx, op)).exchange, this.rule, 201);
      },
    },
    {
      id: `${op}.strict-shape`,
      level: 'strict',
      operations: [op],
      title: 'every listed field present, created/modified are RFC 3339 date-times (strict schema)',
      rule: PROFILE.formats,
      write: true,
      async run(ctx) {
        const { answered, value } = successObject(ctx, (await mainCreate(ctx, op)).exchange, this.rule);
        ctx.expect.valid(answered, this.rule, ctx.schema('strict', SCHEMA[op]), value, `a ${SCHEMA[op]} object (strict level)`);
      },
    },
    {
      id: `${op}.ids-unique`,
      level: 'strict',
      operations: [op],
      title: 'two creates get two different ids',
      rule: PROFILE.responses,
      write: true,
      async run(ctx) {
        const first = mustSucceed(ctx, (await mainCreate(ctx, op)).exchange, this.rule);
        const second = await created(ctx, op, 'second', () => ctx.body(op, 'second'));
        const answer = mustSucceed(ctx, second.exchange, this.rule);
        if (!Number.isInteger(first.value['id']) || same(first.value['id'], answer.value['id'])) {
          throw ctx.expect.failure(
            second.exchange,
            this.rule,
            `an integer id other than ${JSON.stringify(first.value['id'])}`,
            `id ${JSON.stringify(answer.value['id'])} (the first create answered ${JSON.stringify(first.value['id'])})`,
          );
        }
      },
    },
    {
      id: `${op}.read-only-ignored`,
      level: 'strict',
      operations: [op],
      title: 'id, created, modified sent by the client are ignored (server-assigned), not rejected',
      rule: PROFILE.readOnly,
      write: true,
      async run(ctx) {
        const { exchange } = await created(ctx, op, 'read-only', async () => ({
          ...(await ctx.body(op, 'read-only')),
          ...READ_ONLY_VALUES,
        }));
        const { value } = mustSucceed(ctx, exchange, this.rule);
        const kept = Object.keys(READ_ONLY_VALUES).filter((name) => same(value[name], READ_ONLY_VALUES[name]));
        if (kept.length > 0) {
          throw ctx.expect.failure(
            exchange,
            this.rule,
            'server-assigned values for id, created, modified',
            `the answer kept the client's ${kept.join(', ')}`,
          );
        }
      },
    },
    {
      id: `${op}.charset-accepted`,
      level: 'strict',
      operations: [op],
      title: 'Content-Type application/json; charset=utf-8 is accepted (2xx)',
      rule: PROFILE.charset,
      write: true,
      async run(ctx) {
        const { exchange } = await created(ctx, op, 'charset', () => ctx.body(op, 'charset'), 'application/json; charset=utf-8');
        ctx.expect.status(exchange, this.rule, is2xx, 'a 2xx status');
      },
    },
  ];
}

async function lotNumber(ctx: CheckContext): Promise<string> {
  const lot = await ctx.lot();
  if (lot.lotNumber === undefined)
    throw new CheckSkipped(`lot ${lot.id} has no string lotNumber in the order answer: the lotnumber default cannot be checked`);
  return lot.lotNumber;
}

function expectMembers(
  ctx: CheckContext,
  rule: string,
  exchange: Parameters<CheckContext['expect']['failure']>[0],
  value: JsonObject,
  wanted: JsonObject,
): void {
  const wrong = Object.keys(wanted).filter((name) => !same(value[name], wanted[name]));
  if (wrong.length > 0) {
    const shown = wrong.map((n) => `${n} is ${JSON.stringify(value[n])}`).join('; ');
    throw ctx.expect.failure(
      exchange,
      rule,
      Object.entries(wanted)
        .map(([n, v]) => `${n} ${JSON.stringify(v)}`)
        .join(', '),
      shown,
    );
  }
}

/** A test sample without `sample_number` (the marker is in `notes`). */
function sampleWithoutNumber(ctx: CheckContext, key: string) {
  return created(ctx, 'createTestSample', key, async () => {
    const body = await ctx.body('createTestSample', key, 'required');
    body['notes'] = `${ctx.config.runMarker} ${key}`;
    return body;
  });
}

const defaultsChecks: Check[] = [
  {
    id: 'createLotTransfer.defaults',
    level: 'strict',
    operations: ['createLotTransfer'],
    title: "omitted members get their defaults: completed false, lotnumber = the lot's lotNumber",
    rule: PROFILE.defaults,
    write: true,
    async run(ctx) {
      const { exchange } = await created(ctx, 'createLotTransfer', 'defaults', () => ctx.body('createLotTransfer', 'defaults', 'required'));
      const { value } = mustSucceed(ctx, exchange, this.rule);
      expectMembers(ctx, this.rule, exchange, value, { completed: false, lotnumber: await lotNumber(ctx) });
    },
  },
  {
    id: 'createTestSample.defaults',
    level: 'strict',
    operations: ['createTestSample'],
    title: 'omitted members get their defaults: status "NEW", notes "", lotnumber = the lot\'s lotNumber, sample_number generated',
    rule: PROFILE.defaults,
    write: true,
    async run(ctx) {
      const a = await sampleWithoutNumber(ctx, 'defaults-a');
      const first = mustSucceed(ctx, a.exchange, this.rule);
      expectMembers(ctx, this.rule, a.exchange, first.value, { status: 'NEW', lotnumber: await lotNumber(ctx) });
      const generated = first.value['sample_number'];
      if (typeof generated !== 'string' || generated.length === 0) {
        throw ctx.expect.failure(
          a.exchange,
          this.rule,
          'a generated, non-empty sample_number',
          `sample_number is ${JSON.stringify(generated)}`,
        );
      }
      const b = await created(ctx, 'createTestSample', 'defaults-b', async () => {
        const body = await ctx.body('createTestSample', 'defaults-b', 'required');
        body['sample_number'] = `${ctx.config.runMarker}-defaults-b`;
        return body;
      });
      const second = mustSucceed(ctx, b.exchange, this.rule);
      expectMembers(ctx, this.rule, b.exchange, second.value, { notes: '' });
    },
  },
  {
    id: 'createTestSample.sample-number-unique',
    level: 'strict',
    operations: ['createTestSample'],
    title: 'generated sample numbers are unique',
    rule: PROFILE.defaults,
    write: true,
    async run(ctx) {
      const first = mustSucceed(ctx, (await sampleWithoutNumber(ctx, 'defaults-a')).exchange, this.rule);
      const c = await sampleWithoutNumber(ctx, 'unique-c');
      const second = mustSucceed(ctx, c.exchange, this.rule);
      const a = first.value['sample_number'];
      const b = second.value['sample_number'];
      if (typeof b !== 'string' || b.length === 0 || same(a, b)) {
        throw ctx.expect.failure(
          c.exchange,
          this.rule,
          `a generated sample_number other than ${JSON.stringify(a)}`,
          `sample_number is ${JSON.stringify(b)}`,
        );
      }
    },
  },
];

export const createChecks: Check[] = [...CREATE_OPERATIONS.flatMap(successChecks), ...defaultsChecks];
