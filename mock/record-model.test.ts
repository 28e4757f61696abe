/**
 * mock/record-model.ts: the record rules of a create, built from the operations model. The expectations
 * for the bundled contract are derived from its operations model (`contract/operations-model.ts`), never
 * typed here, so the test stays valid when the contract changes; the rest uses small synthetic contracts.
 */
import assert from 'node:assert/strict';
import { readContract, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import { operationsModel, withOrder, type MemberModel } from '../contract/operations-model.js';
import { formatSequence, parseSequence, recordModel, type FieldRule } from './record-model.js';

const model = withOrder(operationsModel(readContract()));

/** The rule a member of the operations model implies (see the file comment of record-model.ts); `first`: the first date-time stamp so far. */
function expectedRule(member: MemberModel, first: { stamp: boolean }): FieldRule {
  if (member.readOnly) {
    if (member.type === 'integer') return { kind: 'id' };
    const stamp = first.stamp ? 'created' : 'changed';
    first.stamp = false;
    return { kind: 'timestamp', stamp };
  }
  if (member.defaultFrom) return { kind: 'from-lot', member: member.defaultFrom.member };
  if (member.defaultSequence) return { kind: 'sequence', ...member.defaultSequence };
  if (member.default !== undefined) return { kind: 'default', value: member.default };
  return { kind: 'input' };
}

/** A contract of one create, `POST /things` answering 201 a `Thing` (request and answer share it), with `LotId` and a fixture read of `Order` with lots when `lots`. */
function synthetic(properties: JsonObject, extra: JsonObject = {}, lots = false): OpenApiDocument {
  const thing = { $ref: '#/components/schemas/Thing' };
  return JSON.parse(
    JSON.stringify({
      openapi: '3.1.0',
      paths: {
        '/things': {
          post: {
            operationId: 'createThing',
            requestBody: { content: { 'application/json': { schema: thing } } },
            responses: { '201': { description: 'made', content: { 'application/json': { schema: thing } } } },
          },
        },
        ...(lots
          ? {
              '/orders/{number}': {
                get: {
                  operationId: 'getOrder',
                  parameters: [{ name: 'number', in: 'path', required: true, schema: { type: 'string' } }],
                  responses: {
                    '200': {
                      description: 'the order',
                      content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } },
                    },
                  },
                },
              },
            }
          : {}),
      },
      components: {
        schemas: {
          LotId: { type: 'integer' },
          Lot: { type: 'object', properties: { id: { type: 'integer' }, lotNumber: { type: 'string' } } },
          Header: { type: 'object', properties: { orderNumber: { type: 'string' } } },
          Order: {
            type: 'object',
            properties: {
              order: { $ref: '#/components/schemas/Header' },
              lots: { type: 'array', items: { $ref: '#/components/schemas/Lot' } },
            },
          },
          Thing: { type: 'object', properties },
          ...extra,
        },
      },
    }),
  ) as OpenApiDocument;
}
const LOT = { $ref: '#/components/schemas/LotId' };
const built = (doc: OpenApiDocument) => {
  const m = operationsModel(doc);
  return recordModel(m.create('createThing'), m.order?.lotResource);
};

describe('mock/record-model: record rules from the operations model', () => {
  for (const create of model.creates) {
    describe(`${create.operationId} (bundled contract)`, () => {
      const record = () => recordModel(create, model.order.lotResource);

      it("the record's members are the success schema's, in contract order", () => {
        assert.deepEqual(
          record().fields.map((f) => f.name),
          create.successMembers.map((m) => m.name),
        );
      });

      it('each member gets the rule its schema states (readOnly, default, x-default-from, x-default-sequence)', () => {
        const fields = new Map(record().fields.map((f) => [f.name, f.rule]));
        const first = { stamp: true };
        assert.ok(create.successMembers.length > 0);
        for (const member of create.successMembers) assert.deepEqual(fields.get(member.name), expectedRule(member, first), member.name);
        const kinds = new Set([...fields.values()].map((rule) => rule.kind));
        assert.ok(kinds.has('id') && kinds.has('timestamp') && kinds.has('input'), 'server-assigned and client members');
      });

      it('the readOnly members of the request are the ones stripped; the lot member is the one naming a lot', () => {
        assert.deepEqual(
          record().readOnly,
          create.members.filter((m) => m.readOnly).map((m) => m.name),
        );
        assert.equal(record().lotMember, create.members.find((m) => m.namesLot)?.name);
      });
    });
  }

  it('the bundled contract has every kind of rule in some create (so the cases above reach them)', () => {
    const kinds = new Set(model.creates.flatMap((op) => recordModel(op, model.order.lotResource).fields.map((f) => f.rule.kind)));
    assert.deepEqual([...kinds].sort(), ['default', 'from-lot', 'id', 'input', 'sequence', 'timestamp']);
  });

  describe('rules of synthetic contracts', () => {
    it('reads keywords through $ref and allOf of a member; the first date-time stamps the create, the others every change', () => {
      const d = synthetic(
        {
          lot: LOT,
          n: { $ref: '#/components/schemas/Id' },
          at: { allOf: [{ $ref: '#/components/schemas/Stamp' }] },
          changed: { allOf: [{ $ref: '#/components/schemas/Stamp' }] },
          kind: { allOf: [{ type: 'string' }, { default: 'A' }] },
          tag: { type: 'string', 'x-default-sequence': { prefix: 'T', width: 2 } },
          name: { type: 'string', 'x-default-from': 'lot.lotNumber' },
        },
        { Id: { type: 'integer', readOnly: true }, Stamp: { type: 'string', format: 'date-time', readOnly: true } },
        true,
      );
      const record = built(d);
      assert.deepEqual(record.fields, [
        { name: 'lot', rule: { kind: 'input' } },
        { name: 'n', rule: { kind: 'id' } },
        { name: 'at', rule: { kind: 'timestamp', stamp: 'created' } },
        { name: 'changed', rule: { kind: 'timestamp', stamp: 'changed' } },
        { name: 'kind', rule: { kind: 'default', value: 'A' } },
        { name: 'tag', rule: { kind: 'sequence', prefix: 'T', width: 2 } },
        { name: 'name', rule: { kind: 'from-lot', member: 'lotNumber' } },
      ]);
      assert.deepEqual(record.readOnly, ['n', 'at', 'changed']);
      assert.equal(record.lotMember, 'lot');
    });

    it('a create that names no lot has no lot member (a contract without lots)', () => {
      const record = built(synthetic({ name: { type: 'string' }, n: { type: 'integer', readOnly: true } }));
      assert.equal(record.lotMember, undefined);
      assert.deepEqual(
        record.fields.map((f) => [f.name, f.rule.kind]),
        [
          ['name', 'input'],
          ['n', 'id'],
        ],
      );
    });

    it('a default of null or false is a default (not "no default")', () => {
      const d = synthetic({ a: { type: ['string', 'null'], default: null }, b: { type: 'boolean', default: false } });
      assert.deepEqual(
        built(d).fields.map((f) => f.rule),
        [
          { kind: 'default', value: null },
          { kind: 'default', value: false },
        ],
      );
    });

    it('refuses a readOnly member the mock cannot assign', () => {
      assert.throws(
        () => built(synthetic({ s: { type: 'string', readOnly: true } })),
        /^Error: createThing: the readOnly member "s" is neither/,
      );
    });

    it('refuses x-default-from when no create names a lot the mock holds', () => {
      const m = operationsModel(synthetic({ lot: LOT, s: { type: 'string', 'x-default-from': 'lot.lotNumber' } }, {}, true));
      assert.throws(
        () => recordModel(m.create('createThing'), undefined),
        /^Error: createThing: "s" is read from a lot \(x-default-from\), but no request member of the contract's creates names a lot the mock holds/,
      );
    });

    it("is the operations model's record model (one reading of the server-assigned members), never a copy", () => {
      for (const create of model.creates) assert.equal(recordModel(create, model.order.lotResource), create.recordModel);
    });
  });

  describe('sequences', () => {
    it('formatSequence pads to the width and never cuts a longer number', () => {
      assert.equal(formatSequence('S-', 6, 1), 'S-000001');
      assert.equal(formatSequence('S-', 6, 123456), 'S-123456');
      assert.equal(formatSequence('S-', 2, 1234), 'S-1234');
      assert.equal(formatSequence('', 0, 7), '7');
    });

    it('parseSequence reads back what formatSequence wrote, and 0 for a value the client chose', () => {
      for (const n of [1, 42, 999999, 1234567]) assert.equal(parseSequence('S-', formatSequence('S-', 6, n)), n);
      for (const value of ['T-000001', 'S-', 'S-12a', 'S--1', 'S-1.5', `S-${'1'.repeat(16)}`, 12, null, undefined, ['S-1']]) {
        assert.equal(parseSequence('S-', value), 0, JSON.stringify(value));
      }
      assert.equal(parseSequence('S-', `S-${'9'.repeat(15)}`), 999999999999999);
    });
  });
});
