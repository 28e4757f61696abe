/**
 * judgments/create.ts: each judgment of a create exchange on crafted answers, one that keeps the
 * rule and one that breaks it (so every judgment is shown able to fail), judged against the bundled
 * contract's operations model.
 */
import assert from 'node:assert/strict';
import type { JsonObject } from '../contract/document.js';
import { readContract } from '../contract/document.js';
import type { CreateOperationId } from '../contract/operations-model.js';
import { judgeContexts } from './context.js';
import {
  createFact,
  judgeCreateAnswered,
  judgeCreateShape,
  judgeCreateStatus,
  judgeDefaults,
  judgeEcho,
  judgeReadOnlyIgnored,
  sameJson,
} from './create.js';
import type { JudgeContext, JudgedExchange } from './exchange.js';
import { PROFILE, SPEC } from './rules.js';

const contexts = judgeContexts(readContract());
const strict: JudgeContext = contexts.strict;
const spec: JudgeContext = contexts.spec;
const [transfers, samples] = strict.model.createIds as [CreateOperationId, CreateOperationId];
const LOT = { id: 2001, lotNumber: 'L-240101' };
const STAMP = '2026-11-24T10:00:00.000Z';

/** What a client sends to create a lot transfer, and a correct answer to it (server members filled). */
const sentTransfer: JsonObject = { fk_lot_id: LOT.id, source_scancode: 'SRC-1', target_scancode: 'TGT-1', amount: 2.5 };
const transferAnswer: JsonObject = {
  id: 1,
  ...sentTransfer,
  completed: false,
  lotnumber: LOT.lotNumber,
  created: STAMP,
  modified: STAMP,
};
const sentSample: JsonObject = { fk_lot_id: LOT.id, fk_user_id: 7 };
const sampleAnswer: JsonObject = {
  id: 1,
  ...sentSample,
  lotnumber: LOT.lotNumber,
  sample_number: 'S-000001',
  status: 'NEW',
  notes: '',
  created: STAMP,
  modified: STAMP,
};

function answered(status: number, body: unknown, contentType = 'application/json'): JudgedExchange {
  return {
    request: { method: 'POST', path: '/create', headers: { 'content-type': 'application/json' } },
    answer: { status, headers: { 'content-type': contentType }, text: typeof body === 'string' ? body : JSON.stringify(body) },
  };
}

const unanswered: JudgedExchange = { request: { method: 'POST', path: '/create', headers: {} }, error: 'socket hang up' };

describe('judgments/create', () => {
  it('sameJson compares JSON values by their JSON text', () => {
    assert.equal(sameJson({ a: [1, 'x', null] }, { a: [1, 'x', null] }), true);
    assert.equal(sameJson(undefined, undefined), true);
    assert.equal(sameJson(1, '1'), false);
    assert.equal(sameJson(null, undefined), false);
    assert.equal(sameJson(null, null), true);
    assert.equal(sameJson('x', 'x'), true);
    assert.equal(sameJson(0, -0), true, 'both are written 0');
    assert.equal(sameJson({}, null), false);
    assert.equal(sameJson([1], [1]), true);
    assert.equal(sameJson([1], { 0: 1 }), false);
    assert.equal(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }), false, 'member order counts: an answer is compared as sent');
  });

  it('createFact names spec fact 4 for the first create operation and fact 5 for the second', () => {
    assert.equal(createFact(strict, transfers), SPEC.lotTransfer);
    assert.equal(createFact(strict, samples), SPEC.testSample);
  });

  it('judgeCreateAnswered (spec fact 6): any 2xx passes; another status or no answer is one violation', () => {
    assert.deepEqual(judgeCreateAnswered(answered(201, transferAnswer)), []);
    assert.deepEqual(judgeCreateAnswered(answered(200, transferAnswer)), []);
    const [refused, ...more] = judgeCreateAnswered(answered(422, { title: 'no' }));
    assert.equal(more.length, 0);
    assert.equal(refused?.rule, SPEC.validRequest);
    assert.match(refused?.reason ?? '', /status 422/);
    assert.equal(judgeCreateAnswered(unanswered)[0]?.reason, 'socket hang up');
  });

  it("judgeCreateStatus (profile): the operation's success status (201) and nothing else", () => {
    assert.equal(strict.model.create(transfers).successStatus, 201);
    assert.deepEqual(judgeCreateStatus(answered(201, transferAnswer), strict, transfers), []);
    const [wrong] = judgeCreateStatus(answered(200, transferAnswer), strict, transfers);
    assert.equal(wrong?.rule, PROFILE.createSuccess);
    assert.equal(wrong?.expected, 'status 201');
  });

  it('judgeCreateShape: the created object of the contract, spec types at spec level, profile formats at strict', () => {
    for (const [op, body] of [
      [transfers, transferAnswer],
      [samples, sampleAnswer],
    ] as const) {
      assert.deepEqual(judgeCreateShape(answered(201, body), spec, op), [], `${op} at spec`);
      assert.deepEqual(judgeCreateShape(answered(201, body), strict, op), [], `${op} at strict`);
    }
    // A wrong type breaks the spec fact, at the member.
    const wrongType = judgeCreateShape(answered(201, { ...transferAnswer, amount: '2.5' }), spec, transfers);
    assert.deepEqual(
      wrongType.map((v) => [v.rule, v.pointer]),
      [[SPEC.lotTransfer, '/amount']],
    );
    // A timestamp that is no date-time: only the profile's formats (strict level) refuse it.
    const notADate = answered(201, { ...transferAnswer, created: 'yesterday' });
    assert.deepEqual(judgeCreateShape(notADate, spec, transfers), []);
    assert.deepEqual(
      judgeCreateShape(notADate, strict, transfers).map((v) => [v.rule, v.pointer]),
      [[PROFILE.formats, '/created']],
    );
    // The level can be asked for apart from the context's.
    assert.deepEqual(judgeCreateShape(notADate, strict, transfers, 'spec'), []);
    // The media type is judged at spec level (the profile's schema judgment says nothing about it).
    const asText = judgeCreateShape(answered(201, transferAnswer, 'text/plain'), spec, transfers);
    assert.deepEqual(
      asText.map((v) => [v.in, v.header]),
      [['header', 'content-type']],
    );
    assert.equal(judgeCreateShape(answered(201, 'not json'), spec, transfers)[0]?.expected, 'a JSON body');
    assert.equal(judgeCreateShape(answered(201, [transferAnswer]), spec, transfers)[0]?.expected, 'a JSON object');
    // Nothing to judge without a 2xx answer.
    assert.deepEqual(judgeCreateShape(answered(400, 'not json'), spec, transfers), []);
    assert.deepEqual(judgeCreateShape(unanswered, spec, transfers), []);
  });

  it('judgeEcho: every member sent comes back as sent, read-only members aside; one violation per member', () => {
    assert.deepEqual(judgeEcho(answered(201, transferAnswer), strict, transfers, sentTransfer), []);
    const changed = judgeEcho(answered(201, { ...transferAnswer, amount: 3, source_scancode: 'OTHER' }), strict, transfers, sentTransfer);
    assert.deepEqual(
      changed.map((v) => [v.rule, v.pointer]),
      [
        [SPEC.lotTransfer, '/source_scancode'],
        [SPEC.lotTransfer, '/amount'],
      ],
    );
    assert.match(changed[1]?.reason ?? '', /sent 2\.5, answered 3/);
    // A member left out of the answer is not echoed either.
    const { notes: _dropped, ...withoutNotes } = sampleAnswer;
    assert.deepEqual(
      judgeEcho(answered(201, withoutNotes), strict, samples, { ...sentSample, notes: 'n' }).map((v) => v.pointer),
      ['/notes'],
    );
    // Read-only members the client sent are the server's to assign: no echo expected.
    assert.deepEqual(judgeEcho(answered(201, transferAnswer), strict, transfers, { ...sentTransfer, id: 99, created: 'x' }), []);
    // Only 2xx answers are judged; a 2xx that is no object is one violation.
    assert.deepEqual(judgeEcho(answered(400, { amount: 0 }), strict, transfers, sentTransfer), []);
    assert.equal(judgeEcho(answered(201, '[]'), strict, transfers, sentTransfer).length, 1);
  });

  it('judgeDefaults: defaults, x-default-from (the lot) and x-default-sequence apply to members not sent', () => {
    assert.deepEqual(judgeDefaults(answered(201, transferAnswer), strict, transfers, sentTransfer, LOT), []);
    assert.deepEqual(judgeDefaults(answered(201, sampleAnswer), strict, samples, sentSample, LOT), []);
    const wrong = judgeDefaults(
      answered(201, { ...sampleAnswer, status: 'DONE', lotnumber: 'L-OTHER', sample_number: '' }),
      strict,
      samples,
      sentSample,
      LOT,
    );
    assert.deepEqual(wrong.map((v) => [v.rule, v.pointer]).sort(), [
      [PROFILE.defaults, '/lotnumber'],
      [PROFILE.defaults, '/sample_number'],
      [PROFILE.defaults, '/status'],
    ]);
    assert.equal(wrong.find((v) => v.pointer === '/lotnumber')?.expected, `lotnumber "${LOT.lotNumber}" (the default)`);
    // A member the client sent is not a default: its own value stands.
    assert.deepEqual(
      judgeDefaults(answered(201, { ...transferAnswer, completed: true }), strict, transfers, { ...sentTransfer, completed: true }, LOT),
      [],
    );
    // Without the lot, the lot's default cannot be known: only the other defaults are judged.
    assert.deepEqual(judgeDefaults(answered(201, { ...transferAnswer, lotnumber: 'ANY' }), strict, transfers, sentTransfer, undefined), []);
    assert.deepEqual(judgeDefaults(answered(500, {}), strict, transfers, sentTransfer, LOT), []);
  });

  it('judgeReadOnlyIgnored: a 2xx with server-assigned values; keeping or refusing what the client sent is a violation', () => {
    const sentReadOnly = { ...sentSample, id: 987, created: '2000-01-01T00:00:00Z' };
    assert.deepEqual(judgeReadOnlyIgnored(answered(201, sampleAnswer), strict, samples, sentReadOnly), []);
    const kept = judgeReadOnlyIgnored(answered(201, { ...sampleAnswer, id: 987 }), strict, samples, sentReadOnly);
    assert.deepEqual(
      kept.map((v) => [v.rule, v.pointer]),
      [[PROFILE.readOnly, '/id']],
    );
    const refused = judgeReadOnlyIgnored(answered(400, { title: 'id is read-only' }), strict, samples, sentReadOnly);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]?.rule, PROFILE.readOnly);
    assert.match(refused[0]?.expected ?? '', /ignored, not rejected/);
    assert.equal(judgeReadOnlyIgnored(unanswered, strict, samples, sentReadOnly).length, 1);
  });
});
