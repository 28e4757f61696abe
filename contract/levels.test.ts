import assert from 'node:assert/strict';
import { readContract } from './document.js';
import { deriveLevel, listProfileRules } from './levels.js';
import { compileContract } from './schemas.js';

describe('contract levels', () => {
  const doc = readContract();

  it('the spec level keeps no profile marker and no profile response', () => {
    const spec = deriveLevel(doc, 'spec');
    assert.equal(listProfileRules(spec).length, 0);
    const text = JSON.stringify(spec);
    assert.ok(!text.includes('"exclusiveMinimum"'));
    assert.ok(!text.includes('"format":"date"'));
  });

  it('the spec level answers any 2xx for success and drops the profile error responses', () => {
    const spec = deriveLevel(doc, 'spec');
    const paths = spec['paths'] as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const get = paths['/manualProduction/rest/v1/orders/info/{number}']?.['get'];
    assert.deepEqual(Object.keys(get?.responses ?? {}), ['2XX']);
    const post = paths['/goodsReception/rest/v1/lot-transfers/create']?.['post'];
    assert.deepEqual(Object.keys(post?.responses ?? {}), ['2XX']);
  });

  it('the strict level is the contract itself', () => {
    assert.deepEqual(deriveLevel(doc, 'strict'), doc);
  });

  it('deriving a level never changes the source document', () => {
    const before = JSON.stringify(doc);
    deriveLevel(doc, 'spec');
    assert.equal(JSON.stringify(doc), before);
  });

  it('lists the profile rules with their places', () => {
    const rules = listProfileRules(doc);
    assert.ok(rules.some((r) => r.pointer === '/components/schemas/LotTransferCreate' && r.keywords.includes('unevaluatedProperties')));
    assert.ok(rules.some((r) => r.pointer === '/components/responses/UnknownLot' && r.keywords.includes('response')));
  });

  it('spec validation checks types only; strict adds bounds, required members and formats', () => {
    const body = { fk_lot_id: 0, amount: -1, source_scancode: '', extra: true };
    const spec = compileContract(doc, 'spec').validator({ $ref: '#/components/schemas/LotTransferCreate' });
    const strict = compileContract(doc, 'strict').validator({ $ref: '#/components/schemas/LotTransferCreate' });
    assert.deepEqual(spec(body), []);
    assert.deepEqual(
      strict(body)
        .map((e) => e.pointer)
        .sort(),
      ['/amount', '/extra', '/fk_lot_id', '/source_scancode', '/target_scancode'],
    );
    assert.deepEqual(spec({ fk_lot_id: 'x' }), [{ pointer: '/fk_lot_id', detail: 'must be of type integer' }]);
  });
});
