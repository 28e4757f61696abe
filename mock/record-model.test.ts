/**
 * mock/record-model.ts: the record rules read from the contract. The expectations for the bundled
 * contract are derived from its operations model (`contract/operations-model.ts`), never typed here,
 * so the test stays valid when the contract changes; the refusals use small synthetic contracts.
 */
import assert from 'node:assert/strict';
import { listOperations, readContract, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import { operationsModel, withOrder, type MemberModel } from '../contract/operations-model.js';
import { collectProperties, formatSequence, parseSequence, recordModel, type FieldRule } from './record-model.js';

const doc = readContract();
const model = withOrder(operationsModel(doc));
const operations = listOperations(doc);

/** The rule a member of the operations model implies (see the file comment of record-model.ts). */
function expectedRule(member: MemberModel): FieldRule {
  if (member.readOnly) return member.type === 'integer' ? { kind: 'id' } : { kind: 'timestamp' };
  if (member.defaultFrom) return { kind: 'from-lot', member: member.defaultFrom.member };
  if (member.defaultSequence) return { kind: 'sequence', ...member.defaultSequence };
  if (member.default !== undefined) return { kind: 'default', value: member.default };
  return { kind: 'input' };
}

/** A contract of one create whose request and answer schema is `Thing` (with `LotId`). */
function synthetic(properties: JsonObject, extra: JsonObject = {}): OpenApiDocument {
  return {
    openapi: '3.1.0',
    paths: {},
    components: { schemas: { LotId: { type: 'integer' }, Thing: { type: 'object', properties }, ...extra } },
  };
}
const THING = { $ref: '#/components/schemas/Thing' };
const LOT = { $ref: '#/components/schemas/LotId' };
/** The synthetic contracts' lot: the request member `lot`, and `x-default-from: lot.<member>`. */
const SYNTHETIC_LOT = { member: 'lot', resource: 'lot' };

describe('mock/record-model: record rules from the contract', () => {
  for (const create of model.creates) {
    describe(`${create.operationId} (bundled contract)`, () => {
      const spec = operations.find((op) => op.operationId === create.operationId);
      const request = spec?.requestBody?.content.get('application/json');
      const answer = spec?.responses.find((r) => r.status === String(create.successStatus))?.content.get('application/json');
      const built = () => {
        assert.ok(request && answer, 'a JSON request body and success answer');
        return recordModel(doc, create.operationId, request, answer, {
          member: create.members.find((m) => m.namesLot)?.name,
          resource: model.order.lotResource,
        });
      };

      it("the record's members are the success schema's, in contract order", () => {
        const schema = { $ref: `#/components/schemas/${create.successSchema}` };
        assert.deepEqual(
          built().fields.map((f) => f.name),
          [...collectProperties(doc, schema).keys()],
        );
      });

      it('each member of the request gets the rule its schema states (readOnly, default, x-default-from, x-default-sequence)', () => {
        const fields = new Map(built().fields.map((f) => [f.name, f.rule]));
        assert.ok(create.members.length > 0);
        for (const member of create.members) assert.deepEqual(fields.get(member.name), expectedRule(member), member.name);
        const kinds = new Set([...fields.values()].map((rule) => rule.kind));
        assert.ok(kinds.has('id') && kinds.has('timestamp') && kinds.has('input'), 'server-assigned and client members');
      });

      it('the readOnly members of the request are the ones stripped; the lot member is the one naming a lot', () => {
        const record = built();
        assert.deepEqual(
          record.readOnly,
          create.members.filter((m) => m.readOnly).map((m) => m.name),
        );
        assert.equal(record.lotMember, create.members.find((m) => m.namesLot)?.name);
      });
    });
  }

  it('the bundled contract has every kind of rule in some create (so the cases above reach them)', () => {
    const kinds = new Set(model.creates.flatMap((op) => op.members.map((m) => expectedRule(m).kind)));
    assert.deepEqual([...kinds].sort(), ['default', 'from-lot', 'id', 'input', 'sequence', 'timestamp']);
  });

  describe('collectProperties', () => {
    it('follows $ref and allOf, in document order; later parts override earlier ones', () => {
      const d = synthetic(
        { own: { type: 'string' } },
        {
          Base: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } } },
          Both: {
            allOf: [{ $ref: '#/components/schemas/Base' }, { properties: { b: { type: 'integer' }, c: { type: 'boolean' } } }],
            properties: { d: { type: 'null' } },
          },
        },
      );
      const props = collectProperties(d, { $ref: '#/components/schemas/Both' });
      assert.deepEqual([...props.keys()], ['a', 'b', 'c', 'd']);
      assert.deepEqual(props.get('b'), { type: 'integer' });
      assert.equal(collectProperties(d, { $ref: '#/components/schemas/Missing' }).size, 0);
      assert.equal(collectProperties(d, undefined).size, 0);
    });

    it('stops at a $ref cycle through allOf (depth 20)', () => {
      const d = synthetic({}, { Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }], properties: { x: { type: 'string' } } } });
      assert.deepEqual([...collectProperties(d, { $ref: '#/components/schemas/Loop' }).keys()], ['x']);
    });
  });

  describe('rules of synthetic contracts', () => {
    it('reads keywords through $ref and allOf of a member', () => {
      const d = synthetic(
        {
          lot: LOT,
          n: { $ref: '#/components/schemas/Id' },
          at: { allOf: [{ $ref: '#/components/schemas/Stamp' }] },
          kind: { allOf: [{ type: 'string' }, { default: 'A' }] },
          tag: { type: 'string', 'x-default-sequence': { prefix: 'T', width: 2 } },
          name: { type: 'string', 'x-default-from': 'lot.lotNumber' },
        },
        { Id: { type: 'integer', readOnly: true }, Stamp: { type: 'string', format: 'date-time', readOnly: true } },
      );
      const record = recordModel(d, 'op', THING, THING, SYNTHETIC_LOT);
      assert.deepEqual(record.fields, [
        { name: 'lot', rule: { kind: 'input' } },
        { name: 'n', rule: { kind: 'id' } },
        { name: 'at', rule: { kind: 'timestamp' } },
        { name: 'kind', rule: { kind: 'default', value: 'A' } },
        { name: 'tag', rule: { kind: 'sequence', prefix: 'T', width: 2 } },
        { name: 'name', rule: { kind: 'from-lot', member: 'lotNumber' } },
      ]);
      assert.deepEqual(record.readOnly, ['n', 'at']);
      assert.equal(record.lotMember, 'lot');
    });

    it('a member whose $ref leads nowhere, or loops through allOf, is plain input', () => {
      const d = synthetic(
        { lot: LOT, gone: { $ref: '#/components/schemas/Missing' }, loop: { $ref: '#/components/schemas/Loop' } },
        { Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }] } },
      );
      assert.deepEqual(
        recordModel(d, 'op', THING, THING, SYNTHETIC_LOT).fields.map((f) => [f.name, f.rule.kind]),
        [
          ['lot', 'input'],
          ['gone', 'input'],
          ['loop', 'input'],
        ],
      );
    });

    it('a default of null or false is a default (not "no default")', () => {
      const d = synthetic({ lot: LOT, a: { type: ['string', 'null'], default: null }, b: { type: 'boolean', default: false } });
      const rules = recordModel(d, 'op', THING, THING, SYNTHETIC_LOT).fields.map((f) => f.rule);
      assert.deepEqual(rules.slice(1), [
        { kind: 'default', value: null },
        { kind: 'default', value: false },
      ]);
    });

    const refusals: [string, JsonObject, RegExp][] = [
      [
        'a readOnly member neither an integer nor a date-time',
        { s: { type: 'string', readOnly: true } },
        /^Error: op: the readOnly member "s" is neither/,
      ],
      [
        'x-default-from not of the form lot.<member>',
        { s: { type: 'string', 'x-default-from': 'order.number' } },
        /^Error: op: x-default-from "order\.number" of "s"/,
      ],
      [
        'x-default-from naming no member',
        { s: { type: 'string', 'x-default-from': 'lot.' } },
        /x-default-from "lot\." of "s" is not of the form/,
      ],
      [
        'x-default-sequence without a width',
        { s: { type: 'string', 'x-default-sequence': { prefix: 'S-' } } },
        /^Error: op: x-default-sequence of "s" must be/,
      ],
      ['x-default-sequence not an object', { s: { type: 'string', 'x-default-sequence': 'S-' } }, /x-default-sequence of "s" must be/],
    ];
    for (const [label, properties, message] of refusals) {
      it(`refuses ${label}`, () => {
        assert.throws(() => recordModel(synthetic({ lot: LOT, ...properties }), 'op', THING, THING, SYNTHETIC_LOT), message);
      });
    }

    it('refuses a request schema without the member naming a lot', () => {
      const d = synthetic({ other: { type: 'integer' } });
      const noMember = /^Error: op: the request schema has no member naming a lot \(a member of its id schema\)$/;
      assert.throws(() => recordModel(d, 'op', THING, THING, SYNTHETIC_LOT), noMember);
      assert.throws(() => recordModel(d, 'op', THING, THING, { member: undefined, resource: 'lot' }), noMember);
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
