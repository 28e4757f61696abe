/**
 * The contract works with the ecosystem's standard mock: `prism mock contract/openapi.yaml` serves
 * every operation from the contract's examples, and each answer is valid at the strict level.
 */
import assert from 'node:assert/strict';
import { startPrism, type PrismProcess } from '../test/support/prism.js';
import { isObject, readContract } from './document.js';
import { CONTRACT_YAML_PATH } from './paths.js';
import { compileContract } from './schemas.js';

const READY_WITHIN_MS = 60_000;

describe('prism mock serves the contract (npx prism mock contract/openapi.yaml)', function () {
  this.timeout(READY_WITHIN_MS + 30_000);
  const strict = compileContract(readContract(), 'strict');
  let prism: PrismProcess | undefined;
  let base = '';

  before(async () => {
    prism = await startPrism(['mock', CONTRACT_YAML_PATH], '/', READY_WITHIN_MS);
    base = prism.url;
  });

  after(async () => {
    await prism?.stop();
  });

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { Authorization: 'Bearer t' }) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      assert.fail(`${method} ${path}: the answer is not JSON (${response.status}): ${text.slice(0, 200)}`);
    }
    return { status: response.status, type: response.headers.get('content-type') ?? '', json };
  }

  const check = (schema: string, value: unknown) =>
    assert.deepEqual(strict.validator({ $ref: `#/components/schemas/${schema}` })(value), [], `a valid ${schema} at strict`);

  it('GET order info: 200 application/json with the four members, valid at strict', async () => {
    const answer = await call('GET', '/manualProduction/rest/v1/orders/info/ORD-2026-0001');
    assert.equal(answer.status, 200);
    assert.match(answer.type, /^application\/json/);
    assert.ok(isObject(answer.json));
    assert.deepEqual(Object.keys(answer.json).sort(), ['charges', 'containers', 'lots', 'order']);
    check('OrderInfo', answer.json);
  });

  it('POST lot transfer: 201 application/json, a valid LotTransfer', async () => {
    const body = { fk_lot_id: 2001, source_scancode: 'SRC-0001', target_scancode: 'TGT-0001', amount: 12.5 };
    const answer = await call('POST', '/goodsReception/rest/v1/lot-transfers/create', body);
    assert.equal(answer.status, 201);
    assert.match(answer.type, /^application\/json/);
    check('LotTransfer', answer.json);
  });

  it('POST test sample: 201 application/json, a valid TestSample', async () => {
    const answer = await call('POST', '/goodsReception/rest/v1/test-samples/create', { fk_lot_id: 2001, fk_user_id: 42 });
    assert.equal(answer.status, 201);
    assert.match(answer.type, /^application\/json/);
    check('TestSample', answer.json);
  });

  it('without credentials prism answers the contract 401 problem', async () => {
    const answer = await call('GET', '/manualProduction/rest/v1/orders/info/ORD-2026-0001', undefined, {});
    assert.equal(answer.status, 401);
    check('Problem', answer.json);
  });
});
