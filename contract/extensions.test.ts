/**
 * contract/extensions.ts: the one reader of `x-default-from` and `x-default-sequence`. Every malformed
 * value is a start-up error of the operations model naming the JSON Pointer where it is written (the
 * member's own schema, also when a create inherits the member through `allOf`) and what to write there;
 * a well-formed one becomes the member's typed facts. Small synthetic contracts, built here.
 */
import assert from 'node:assert/strict';
import { readContract, type JsonObject, type JsonValue, type OpenApiDocument } from './document.js';
import { ExtensionError, MAX_SEQUENCE_WIDTH, parseDefaultFrom, parseDefaultSequence, schemaExtensions } from './extensions.js';
import { operationsModel, withOrder } from './operations-model.js';

/**
 * A contract of one create, `POST /things` with a `ThingCreate` body (all of `ThingFields`) answering a
 * `Thing` (all of `ThingFields`), a fixture read of an `Order` listing `Lot`s, and `extra` schemas.
 */
function contract(fields: JsonObject, extra: JsonObject = {}): OpenApiDocument {
  const fieldsRef = { $ref: '#/components/schemas/ThingFields' };
  return structuredClone({
    openapi: '3.1.0',
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } } },
          responses: {
            '201': { description: 'made', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          },
        },
      },
      '/orders/{number}': {
        get: {
          operationId: 'getOrder',
          parameters: [{ name: 'number', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the order', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        LotId: { type: 'integer' },
        Lot: { type: 'object', properties: { id: { type: 'integer' }, lotNumber: { type: 'string' }, supplier: { type: 'string' } } },
        Header: { type: 'object', properties: { orderNumber: { type: 'string' } } },
        Order: {
          type: 'object',
          properties: {
            order: { $ref: '#/components/schemas/Header' },
            lots: { type: 'array', items: { $ref: '#/components/schemas/Lot' } },
          },
        },
        ThingFields: {
          type: 'object',
          properties: { id: { type: 'integer', readOnly: true }, lot: { $ref: '#/components/schemas/LotId' }, ...fields },
        },
        ThingCreate: { allOf: [fieldsRef], type: 'object' },
        Thing: { allOf: [fieldsRef], type: 'object' },
        ...extra,
      },
    },
  });
}

const MEMBER = '/components/schemas/ThingFields/properties/s';

/** The model of `doc` throws an ExtensionError at `pointer` whose message says `says` and ends naming the pointer. */
function refusedAt(doc: OpenApiDocument, pointer: string, says: RegExp): void {
  assert.throws(
    () => operationsModel(doc),
    (error: unknown) =>
      error instanceof ExtensionError && error.pointer === pointer && says.test(error.message) && error.message.endsWith(`(at ${pointer})`),
  );
}

describe('contract/extensions: the one reader of x-default-from and x-default-sequence', () => {
  describe('a malformed value is a start-up error naming its pointer and what to write', () => {
    const cases: [string, JsonValue, string, RegExp][] = [
      ['x-default-from not a string', { 'x-default-from': 7 }, `${MEMBER}/x-default-from`, /is 7, not "<resource>\.<member>": write/],
      ['x-default-from without a member', { 'x-default-from': 'lot' }, `${MEMBER}/x-default-from`, /is "lot", not "<resource>\.<member>"/],
      ['x-default-from with an empty member', { 'x-default-from': 'lot.' }, `${MEMBER}/x-default-from`, /is "lot\.", not/],
      ['x-default-from with an empty resource', { 'x-default-from': '.lotNumber' }, `${MEMBER}/x-default-from`, /is "\.lotNumber", not/],
      ['x-default-from with two dots', { 'x-default-from': 'lot.lotNumber.x' }, `${MEMBER}/x-default-from`, /is "lot\.lotNumber\.x", not/],
      [
        'x-default-sequence not an object',
        { 'x-default-sequence': 'S-' },
        `${MEMBER}/x-default-sequence`,
        /is "S-", not an object: write \{ prefix/,
      ],
      ['x-default-sequence an array', { 'x-default-sequence': ['S-', 6] }, `${MEMBER}/x-default-sequence`, /not an object/],
      ['x-default-sequence without a prefix', { 'x-default-sequence': { width: 6 } }, `${MEMBER}/x-default-sequence`, /needs "prefix"/],
      [
        'x-default-sequence with a prefix not a string',
        { 'x-default-sequence': { prefix: 1, width: 6 } },
        `${MEMBER}/x-default-sequence/prefix`,
        /needs "prefix", the text before the number/,
      ],
      [
        'x-default-sequence without a width',
        { 'x-default-sequence': { prefix: 'S-' } },
        `${MEMBER}/x-default-sequence`,
        /needs "width".*not none/,
      ],
      [
        'x-default-sequence with a width not an integer',
        { 'x-default-sequence': { prefix: 'S-', width: 1.5 } },
        `${MEMBER}/x-default-sequence/width`,
        /needs "width", the digits .* not 1\.5/,
      ],
      [
        'x-default-sequence with a width below 0',
        { 'x-default-sequence': { prefix: 'S-', width: -1 } },
        `${MEMBER}/x-default-sequence/width`,
        /not -1/,
      ],
      [
        `x-default-sequence with a width above ${MAX_SEQUENCE_WIDTH}`,
        { 'x-default-sequence': { prefix: 'S-', width: MAX_SEQUENCE_WIDTH + 1 } },
        `${MEMBER}/x-default-sequence/width`,
        new RegExp(`from 0 to ${MAX_SEQUENCE_WIDTH}\\), not ${MAX_SEQUENCE_WIDTH + 1}`),
      ],
      [
        'x-default-sequence with a width as text',
        { 'x-default-sequence': { prefix: 'S-', width: '6' } },
        `${MEMBER}/x-default-sequence/width`,
        /not "6"/,
      ],
      [
        'x-default-sequence with a member it does not have',
        { 'x-default-sequence': { prefix: 'S-', width: 6, start: 100 } },
        `${MEMBER}/x-default-sequence/start`,
        /has no "start" \(only prefix and width\): remove it/,
      ],
      [
        'both extensions on one member',
        { 'x-default-from': 'lot.lotNumber', 'x-default-sequence': { prefix: 'S-', width: 6 } },
        MEMBER,
        /both x-default-from and x-default-sequence.*keep the one/,
      ],
      [
        'a default and x-default-from',
        { default: 'L', 'x-default-from': 'lot.lotNumber' },
        `${MEMBER}/x-default-from`,
        /both default and x-default-from/,
      ],
      [
        'a default and x-default-sequence',
        { default: 'S', 'x-default-sequence': { prefix: 'S-', width: 6 } },
        `${MEMBER}/x-default-sequence`,
        /both default and x-default-sequence/,
      ],
      [
        'x-default-from naming records without a schema',
        { 'x-default-from': 'batch.number' },
        `${MEMBER}/x-default-from`,
        /reads "batch" records, but the contract has no schema Batch for them/,
      ],
      [
        'x-default-from naming a member the record does not have',
        { 'x-default-from': 'lot.lotNo' },
        `${MEMBER}/x-default-from`,
        /reads the member "lotNo" of Lot, which has no such member \(it has id, lotNumber, supplier\): write one of its members/,
      ],
    ];
    for (const [label, extension, pointer, says] of cases)
      it(label, () => refusedAt(contract({ s: { type: 'string', ...(extension as JsonObject) } }), pointer, says));

    it('x-default-from naming two kinds of record: the second one is named, with the first', () => {
      const doc = contract({
        s: { type: 'string', 'x-default-from': 'lot.lotNumber' },
        t: { type: 'string', 'x-default-from': 'header.orderNumber' },
      });
      refusedAt(
        doc,
        '/components/schemas/ThingFields/properties/t/x-default-from',
        new RegExp(`reads "header" records, but ${MEMBER}/x-default-from reads "lot" records: .* write lot\\.<member>`),
      );
    });

    it('in a schema no operation uses (it is never served, and still refused)', () => {
      refusedAt(
        contract({}, { Unused: { type: 'object', properties: { u: { type: 'string', 'x-default-sequence': { prefix: 'U' } } } } }),
        '/components/schemas/Unused/properties/u/x-default-sequence',
        /needs "width"/,
      );
    });

    it('inline in an operation: the pointer goes through the paths', () => {
      const doc = contract({});
      const post = ((doc['paths'] as JsonObject)['/things'] as JsonObject)['post'] as JsonObject;
      post['requestBody'] = {
        content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'string', 'x-default-from': 'lot' } } } } },
      };
      refusedAt(doc, '/paths/~1things/post/requestBody/content/application~1json/schema/properties/n/x-default-from', /is "lot"/);
    });

    it('two extensions merged through allOf on one member: the member is named where it is written', () => {
      const doc = contract(
        { s: { allOf: [{ $ref: '#/components/schemas/Numbered' }], 'x-default-from': 'lot.lotNumber' } },
        { Numbered: { type: 'string', 'x-default-sequence': { prefix: 'N', width: 3 } } },
      );
      refusedAt(doc, MEMBER, /both x-default-from and x-default-sequence/);
    });
  });

  describe('a malformed level marker or body limit is a start-up error naming its pointer', () => {
    const post = (doc: OpenApiDocument): JsonObject => ((doc['paths'] as JsonObject)['/things'] as JsonObject)['post'] as JsonObject;
    const responses = (doc: OpenApiDocument): JsonObject => post(doc)['responses'] as JsonObject;
    const thingFields = (doc: OpenApiDocument): JsonObject =>
      ((doc['components'] as JsonObject)['schemas'] as JsonObject)['ThingFields'] as JsonObject;
    const cases: [string, (doc: OpenApiDocument) => void, string, RegExp][] = [
      [
        'x-profile neither a list nor true',
        (doc) => (thingFields(doc)['x-profile'] = 'required'),
        '/components/schemas/ThingFields/x-profile',
        /x-profile is "required": write the keywords .* as a list/,
      ],
      [
        'x-profile listing no keyword name',
        (doc) => (thingFields(doc)['x-profile'] = ['required', 3]),
        '/components/schemas/ThingFields/x-profile/1',
        /x-profile lists 3: list keyword names/,
      ],
      [
        'x-spec-status no status',
        (doc) => ((responses(doc)['201'] as JsonObject)['x-spec-status'] = 'any 2xx'),
        '/paths/~1things/post/responses/201/x-spec-status',
        /x-spec-status is "any 2xx": write the status the specification gives/,
      ],
      [
        'x-max-body-bytes as text',
        (doc) => (responses(doc)['413'] = { description: 'too large', 'x-max-body-bytes': '1MiB' }),
        '/paths/~1things/post/responses/413/x-max-body-bytes',
        /x-max-body-bytes is "1MiB": write the largest request body accepted, in bytes/,
      ],
      [
        'x-max-body-bytes of 0',
        (doc) => (responses(doc)['413'] = { description: 'too large', 'x-max-body-bytes': 0 }),
        '/paths/~1things/post/responses/413/x-max-body-bytes',
        /x-max-body-bytes is 0/,
      ],
    ];
    for (const [label, change, pointer, says] of cases)
      it(label, () => {
        const doc = contract({});
        change(doc);
        refusedAt(doc, pointer, says);
      });

    it('well-formed markers and limits are read as before', () => {
      const doc = contract({});
      thingFields(doc)['x-profile'] = ['required'];
      (responses(doc)['201'] as JsonObject)['x-spec-status'] = '2XX';
      responses(doc)['413'] = { description: 'too large', 'x-profile': true, 'x-max-body-bytes': 2048 };
      assert.equal(operationsModel(doc).get('createThing').maxBodyBytes, 2048);
    });
  });

  describe('what is not an extension is not read', () => {
    it('a member named x-default-from, and examples, defaults and constants holding one, are data', () => {
      const doc = contract(
        {
          'x-default-from': { type: 'string' },
          e: {
            type: 'object',
            examples: [{ 'x-default-from': 1 }],
            default: { 'x-default-sequence': 'no' },
            const: { 'x-default-from': '' },
          },
        },
        { Other: { type: 'object', 'x-note': { 'x-default-from': 'not read' } } },
      );
      assert.deepEqual(schemaExtensions(doc), []);
      const members = operationsModel(doc).create('createThing').members;
      assert.deepEqual(
        members.map((m) => [m.name, m.defaultFrom, m.defaultSequence]),
        members.map((m) => [m.name, undefined, undefined]),
      );
    });
  });

  describe('a well-formed value becomes the typed facts of every member that has it', () => {
    it('through allOf and $ref, on the request and the answer; the member schema keeps no x- keyword', () => {
      const doc = contract(
        {
          s: { type: 'string', 'x-default-from': 'lot.supplier' },
          n: { $ref: '#/components/schemas/Numbered' },
          nested: { type: 'object', properties: { inner: { type: 'string', 'x-default-from': 'lot.lotNumber' } } },
        },
        { Numbered: { type: 'string', 'x-default-sequence': { prefix: '', width: 0 } } },
      );
      const create = withOrder(operationsModel(doc)).create('createThing');
      for (const members of [create.members, create.successMembers]) {
        const s = members.find((m) => m.name === 's');
        const n = members.find((m) => m.name === 'n');
        assert.deepEqual(s?.defaultFrom, { resource: 'lot', member: 'supplier' });
        assert.deepEqual(n?.defaultSequence, { prefix: '', width: 0 });
        for (const m of members) assert.doesNotMatch(JSON.stringify(m.schema), /"x-/, m.name);
      }
      assert.deepEqual(
        create.recordModel?.fields.filter((f) => f.name === 's' || f.name === 'n'),
        [
          { name: 's', rule: { kind: 'from-lot', member: 'supplier' } },
          { name: 'n', rule: { kind: 'sequence', prefix: '', width: 0 } },
        ],
      );
    });

    it("the bundled contract's sites are every member that has one, each at its own pointer", () => {
      const doc = readContract();
      const model = operationsModel(doc);
      const sites = schemaExtensions(doc);
      assert.ok(sites.length > 0);
      for (const site of sites) assert.ok(site.pointer.startsWith('/components/schemas/'), site.pointer);
      const facts = (m: { defaultFrom?: unknown; defaultSequence?: unknown }): string =>
        JSON.stringify({ from: m.defaultFrom, sequence: m.defaultSequence });
      const read = new Set(sites.map(facts));
      for (const op of model.creates)
        for (const m of op.members) if (m.defaultFrom || m.defaultSequence) assert.ok(read.has(facts(m)), `${op.operationId}.${m.name}`);
    });

    it('the parsers read the documented shapes and nothing else', () => {
      assert.deepEqual(parseDefaultFrom('lot.lotNumber', '/p'), { resource: 'lot', member: 'lotNumber' });
      assert.deepEqual(parseDefaultSequence({ prefix: 'S-', width: 6 }, '/p'), { prefix: 'S-', width: 6 });
      assert.deepEqual(parseDefaultSequence({ width: MAX_SEQUENCE_WIDTH, prefix: '' }, '/p'), { prefix: '', width: MAX_SEQUENCE_WIDTH });
      for (const bad of [null, true, {}, [], 'a..b', ''])
        assert.throws(() => parseDefaultFrom(bad, '/p'), ExtensionError, JSON.stringify(bad));
      assert.throws(() => parseDefaultSequence(null, '/p'), ExtensionError);
    });
  });
});
