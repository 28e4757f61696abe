/** The client-side judgments: a request judged on its own, one violation per JSON pointer of its body. */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import type { JudgeContext, JudgedExchange } from './exchange.js';
import {
  judgeCredentialsSent,
  judgeKnownOperation,
  judgeRequestJson,
  judgeRequestMediaType,
  judgeRequestSchema,
  presentedCredentials,
} from './request.js';

const document = readContract();
const model = operationsModel(document);
const contracts = { spec: compileContract(document, 'spec'), strict: compileContract(document, 'strict') };
const strict: JudgeContext = { level: 'strict', model, contracts };
const spec: JudgeContext = { level: 'spec', model, contracts };
const [op = 'createLotTransfer'] = model.createIds;
const create = model.create(op);

function request(headers: Record<string, string>, body?: string): JudgedExchange {
  return { request: { target: op, method: 'POST', path: create.path, headers, ...(body !== undefined ? { body } : {}) } };
}

/** A valid body of the create, from the operations model: every required member with a value of its type. */
function validBody(): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const m of create.members.filter((x) => x.required && !x.readOnly))
    body[m.name] = m.type === 'string' ? 'S-1' : m.type === 'boolean' ? false : m.namesLot ? 2001 : 1;
  return body;
}

describe('judgments of a client request', () => {
  it('credentials: missing, another scheme, a malformed token, a bearer token', () => {
    assert.equal(presentedCredentials(request({}).request), 'missing');
    assert.equal(presentedCredentials(request({ authorization: 'Basic dTpw' }).request), 'non-bearer');
    assert.equal(presentedCredentials(request({ authorization: 'Bearer a b' }).request), 'malformed');
    assert.equal(presentedCredentials(request({ authorization: 'Bearer abc' }).request), 'bearer');
    assert.equal(judgeCredentialsSent(request({}), strict, op)[0]?.header, 'authorization');
    assert.deepEqual(judgeCredentialsSent(request({ authorization: 'Bearer abc' }), strict, op), []);
  });

  it('an operation of the contract: a wrong method names the allowed ones, an unknown path says so', () => {
    const none = { request: { method: 'DELETE', path: create.path, headers: {} } };
    assert.equal(judgeKnownOperation(none, ['POST'])[0]?.in, 'method');
    assert.equal(judgeKnownOperation(none)[0]?.in, 'path');
    assert.deepEqual(judgeKnownOperation(request({})), []);
  });

  it('media type and JSON: application/json with a charset passes; text/plain, an empty body, broken JSON do not', () => {
    assert.deepEqual(judgeRequestMediaType(request({ 'content-type': 'application/json; charset=utf-8' }), strict, op), []);
    assert.equal(judgeRequestMediaType(request({ 'content-type': 'text/plain' }), strict, op)[0]?.header, 'content-type');
    assert.equal(judgeRequestJson(request({}), strict, op).length, 1);
    assert.equal(judgeRequestJson(request({}, '{"a":'), strict, op).length, 1);
    assert.deepEqual(judgeRequestJson(request({}, '{}'), strict, op), []);
  });

  it('the schema: one violation per pointer, every problem of the body; an unknown member only at strict', () => {
    assert.deepEqual(judgeRequestSchema(request({}, JSON.stringify(validBody())), strict, op), []);
    const [first, second] = create.members.filter((m) => m.required && !m.readOnly);
    const broken: Record<string, unknown> = { ...validBody(), colour: 'red' };
    if (first) broken[first.name] = first.type === 'string' ? 7 : 'seven';
    if (second) delete broken[second.name];
    const pointers = judgeRequestSchema(request({}, JSON.stringify(broken)), strict, op).map((v) => v.pointer);
    assert.ok(pointers.includes(`/${first?.name ?? ''}`), pointers.join());
    assert.ok(pointers.includes('/colour'), pointers.join());
    assert.ok(pointers.length >= 3, pointers.join());
    assert.ok(!judgeRequestSchema(request({}, JSON.stringify(broken)), spec, op).some((v) => v.pointer === '/colour'));
  });
});
