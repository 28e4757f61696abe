/** Judgments against what the contract documents per operation and status. */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { operationsModel, withOrder } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import { schemaValid } from './answer.js';
import { documentedResponse, judgeDocumentedAnswer, judgeDocumentedStatus } from './documented.js';
import type { JudgeContext, JudgedExchange } from './exchange.js';
import { judgeAcceptedBodyNotRefused } from './request-errors.js';
import { judgeProblemStatus } from './server.js';

const document = readContract();
const model = withOrder(operationsModel(document));
const contracts = { spec: compileContract(document, 'spec'), strict: compileContract(document, 'strict') };
const jc: JudgeContext = { level: 'strict', model, contracts };
const info = model.orderInfo.operationId;

function answer(status: number, body: unknown, type = 'application/json'): JudgedExchange {
  return {
    request: { method: 'GET', path: '/x', headers: {} },
    answer: { status, headers: { 'content-type': type }, text: typeof body === 'string' ? body : JSON.stringify(body) },
  };
}

describe('judgments of documented answers', () => {
  it('a status the operation does not document is a violation at strict (the success status and errors are documented)', () => {
    assert.ok(documentedResponse(jc, info, model.orderInfo.successStatus));
    assert.deepEqual(judgeDocumentedStatus(answer(model.orderInfo.successStatus, {}), jc, info), []);
    assert.equal(judgeDocumentedStatus(answer(418, {}), jc, info)[0]?.in, 'status');
  });

  it('the documented body: another media type is a header violation, and each pointer of a broken body its own violation', () => {
    assert.equal(judgeDocumentedAnswer(answer(200, {}, 'text/plain'), jc, info)[0]?.header, 'content-type');
    assert.equal(judgeDocumentedAnswer(answer(200, '{"a":'), jc, info)[0]?.pointer, '');
    const pointers = judgeDocumentedAnswer(answer(200, { order: 1, containers: 2 }), jc, info).map((v) => v.pointer);
    assert.ok(pointers.includes('/order') && pointers.includes('/containers'), pointers.join());
  });

  it('schemaValid: one violation per pointer, capped with a count of the rest', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ pointer: `/m${i}`, detail: 'bad' }));
    const found = schemaValid({}, () => many, 'r', 'x');
    assert.equal(found.length, 20);
    assert.match(found[19]?.reason ?? '', /and 10 more pointers/);
  });

  it('a problem whose status member is not the HTTP status; a body the contract accepts refused 400 or 415', () => {
    assert.equal(judgeProblemStatus(answer(404, {}), { status: 400 }).length, 1);
    assert.deepEqual(judgeProblemStatus(answer(404, {}), {}), [], 'a missing member is the schema judgment');
    assert.equal(judgeProblemStatus(answer(404, {}), {}, true).length, 1);
    assert.equal(judgeAcceptedBodyNotRefused(answer(400, {})).length, 1);
    assert.deepEqual(judgeAcceptedBodyNotRefused(answer(422, {})), []);
  });
});
