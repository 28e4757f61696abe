/**
 * The contract carries exactly the profile that contract/README.md documents, and each marker takes
 * effect: present at `strict`, gone at `spec`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, listOperations, readContract, resolvePointer, type JsonValue } from './document.js';
import { deriveLevel, listProfileRules } from './levels.js';
import { PROJECT_ROOT } from './paths.js';

/** The short name the README's table uses for one marker (see "Rules: specification and profile"). */
function shortNames(doc: ReturnType<typeof readContract>): Map<string, { pointer: string; keyword: string }> {
  const names = new Map<string, { pointer: string; keyword: string }>();
  const operations = listOperations(doc);
  for (const rule of listProfileRules(doc)) {
    for (const keyword of rule.keywords) {
      let name: string | undefined;
      const schema = /^\/components\/schemas\/([^/]+)(?:\/properties\/([^/]+))?$/.exec(rule.pointer);
      const response = /^\/components\/responses\/([^/]+)$/.exec(rule.pointer);
      const status = /^\/paths\/([^/]+)\/([a-z]+)\/responses\/([^/]+)$/.exec(rule.pointer);
      if (schema) name = `${schema[1]}${schema[2] ? `.${schema[2]}` : ''}: ${keyword}`;
      else if (response && keyword === 'response') name = `responses.${response[1]}`;
      else if (status && keyword === 'status') {
        const path = decodeURIComponent(status[1] ?? '')
          .replace(/~1/g, '/')
          .replace(/~0/g, '~');
        const op = operations.find((o) => o.path === path && o.method === status[2]);
        name = `${op?.operationId ?? path} ${status[3]}: x-spec-status`;
      }
      assert.ok(name, `a profile marker at ${rule.pointer} (${keyword}) has no short name: extend the README notation and this test`);
      names.set(name, { pointer: rule.pointer, keyword });
    }
  }
  return names;
}

/** The markers named in the last column of the README's rules table. */
function readmeMarkers(): Set<string> {
  const text = readFileSync(join(PROJECT_ROOT, 'contract', 'README.md'), 'utf8');
  const table = text.slice(text.indexOf('| Rule | Source | Reason | In the contract |'));
  assert.ok(table.length > 0, 'contract/README.md has the rules table');
  const markers = new Set<string>();
  for (const line of table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---'))) {
    const cells = line.split(' | ');
    if (!cells[1]?.startsWith('profile')) continue;
    const last = cells[cells.length - 1] ?? '';
    for (const [, code] of last.matchAll(/`([^`]+)`/g)) if (code && (/: /.test(code) || code.startsWith('responses.'))) markers.add(code);
  }
  return markers;
}

/** Every schema object reachable from the operations of `doc` (following `$ref`s). */
function reachableSchemas(doc: ReturnType<typeof readContract>): Map<string, JsonValue> {
  const found = new Map<string, JsonValue>();
  const visit = (node: JsonValue | undefined, pointer: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${pointer}/${i}`));
    if (!isObject(node)) return;
    if (typeof node['$ref'] === 'string') {
      const target = node['$ref'];
      if (found.has(target)) return;
      found.set(target, resolvePointer(doc, target) ?? null);
      visit(resolvePointer(doc, target), target);
    }
    for (const [key, value] of Object.entries(node)) if (key !== '$ref') visit(value, `${pointer}/${key}`);
  };
  visit(doc['paths'], '#/paths');
  return found;
}

const keywordsIn = (node: JsonValue | undefined, keyword: string): number => {
  if (Array.isArray(node)) return node.reduce<number>((n, item) => n + keywordsIn(item, keyword), 0);
  if (!isObject(node)) return 0;
  return Object.entries(node).reduce<number>((n, [key, value]) => n + (key === keyword ? 1 : 0) + keywordsIn(value, keyword), 0);
};

describe('the profile in the contract (contract/README.md ↔ contract/openapi.yaml)', () => {
  const doc = readContract();
  const spec = deriveLevel(doc, 'spec');
  const markers = shortNames(doc);

  it('the README names every profile marker of the contract, and names no marker the contract lacks', () => {
    const documented = readmeMarkers();
    const inContract = new Set(markers.keys());
    assert.deepEqual([...inContract].filter((m) => !documented.has(m)).sort(), [], 'markers missing from the README table');
    assert.deepEqual([...documented].filter((m) => !inContract.has(m)).sort(), [], 'README markers the contract does not have');
  });

  it('every marked keyword is present at strict and gone at spec', () => {
    for (const [name, { pointer, keyword }] of markers) {
      if (keyword === 'response' || keyword === 'status') continue;
      const strictNode = resolvePointer(doc, `#${pointer}`);
      const specNode = resolvePointer(spec, `#${pointer}`);
      assert.ok(isObject(strictNode) && keyword in strictNode, `${name}: present at strict`);
      assert.ok(isObject(specNode) && !(keyword in specNode) && !('x-profile' in specNode), `${name}: gone at spec`);
    }
  });

  it('spec: success is any 2XX and no operation has an error response; strict: 200/201 plus the profile errors', () => {
    const statuses = (d: typeof doc) => listOperations(d).map((op) => [op.operationId, op.responses.map((r) => r.status)]);
    assert.deepEqual(statuses(spec), [
      ['getOrderInfo', ['2XX']],
      ['createLotTransfer', ['2XX']],
      ['createTestSample', ['2XX']],
    ]);
    assert.deepEqual(statuses(doc), [
      ['getOrderInfo', ['200', '401', '404']],
      ['createLotTransfer', ['201', '400', '401', '413', '415', '422']],
      ['createTestSample', ['201', '400', '401', '413', '415', '422']],
    ]);
    for (const op of listOperations(doc))
      for (const response of op.responses)
        assert.equal(response.profile, !response.status.startsWith('2'), `${op.operationId} ${response.status} is a profile response`);
    for (const op of listOperations(spec)) {
      assert.equal(op.secured, true, `${op.operationId} keeps bearer security at spec`);
      assert.deepEqual([...(op.responses[0]?.content.keys() ?? [])], ['application/json']);
    }
  });

  it('spec: the schemas in use carry types only (no formats, bounds, defaults, readOnly; required only on OrderInfo)', () => {
    const reachable = reachableSchemas(spec);
    assert.ok(reachable.has('#/components/schemas/Lot') && reachable.has('#/components/schemas/TestSampleCreate'));
    assert.ok(!reachable.has('#/components/schemas/Problem'), 'the problem schemas are used by profile responses only');
    const reachableDoc = { schemas: [...reachable.values()] };
    for (const keyword of [
      'format',
      'minimum',
      'exclusiveMinimum',
      'minLength',
      'unevaluatedProperties',
      'default',
      'readOnly',
      'x-profile',
    ]) {
      assert.equal(keywordsIn(reachableDoc, keyword), 0, `no ${keyword} at spec`);
    }
    const required = [...reachable].filter(([, schema]) => isObject(schema) && 'required' in schema).map(([ref]) => ref);
    assert.deepEqual(required, ['#/components/schemas/OrderInfo']);
    assert.deepEqual(resolvePointer(spec, '#/components/schemas/OrderInfo/required'), ['order', 'containers', 'charges', 'lots']);
  });

  it('strict: required members on Order, Charge, Lot and the created objects; formats; bounds', () => {
    const at = (pointer: string) => resolvePointer(doc, `#/components/schemas/${pointer}`);
    for (const name of ['Order', 'Charge', 'Lot', 'LotTransfer', 'TestSample']) {
      const schema = at(name);
      assert.ok(isObject(schema) && Array.isArray(schema['required']), `${name} has required members`);
      const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
      if (properties.length > 0)
        assert.deepEqual([...schema['required']].sort(), properties.sort(), `${name}: every listed field is required`);
    }
    assert.deepEqual(at('LotTransferCreate/required'), ['fk_lot_id', 'source_scancode', 'target_scancode', 'amount']);
    assert.deepEqual(at('TestSampleCreate/required'), ['fk_lot_id', 'fk_user_id']);
    assert.equal(at('FullDate/format'), 'date');
    assert.equal(at('DateTime/format'), 'date-time');
    assert.equal(at('LotTransferFields/properties/amount/exclusiveMinimum'), 0);
    assert.equal(at('ScanCode/minLength'), 1);
    assert.equal(at('LotId/minimum'), 1);
    assert.equal(at('TestSampleFields/properties/fk_user_id/minimum'), 1);
    for (const member of ['orderDate', 'deliveryDate'])
      assert.deepEqual(at(`Order/properties/${member}`), { $ref: '#/components/schemas/FullDate' });
    assert.deepEqual(at('Lot/properties/deliveryDate'), { $ref: '#/components/schemas/FullDate' });
    assert.deepEqual(at('Lot/properties/createdAt'), { $ref: '#/components/schemas/DateTime' });
    for (const fields of ['LotTransferFields', 'TestSampleFields'])
      for (const member of ['id', 'created', 'modified'])
        assert.equal(at(`${fields}/properties/${member}/readOnly`), true, `${fields}.${member}`);
  });

  it('strict: response schemas stay open (a server may add members), request schemas are closed', () => {
    for (const name of ['OrderInfo', 'Order', 'Container', 'Charge', 'Lot', 'LotTransfer', 'TestSample'])
      assert.equal(keywordsIn(resolvePointer(doc, `#/components/schemas/${name}`) ?? null, 'unevaluatedProperties'), 0, name);
    for (const name of ['LotTransferCreate', 'TestSampleCreate'])
      assert.equal(resolvePointer(doc, `#/components/schemas/${name}/unevaluatedProperties`), false, name);
  });

  it('strict: every error response is application/problem+json; 401 carries WWW-Authenticate: Bearer', () => {
    for (const op of listOperations(doc))
      for (const response of op.responses.filter((r) => !r.status.startsWith('2'))) {
        assert.deepEqual([...response.content.keys()], ['application/problem+json'], `${op.operationId} ${response.status}`);
        const example = response.examples.get('application/problem+json');
        assert.ok(
          isObject(example) && example['status'] === Number(response.status),
          `${op.operationId} ${response.status} example status`,
        );
        if (response.status === '401') assert.deepEqual(response.headers, ['www-authenticate']);
      }
    assert.equal(resolvePointer(doc, '#/components/headers/WWW-Authenticate/schema/pattern'), '^Bearer( |$)');
  });
});
