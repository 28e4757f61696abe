/** The judgments are pure functions of an exchange: applied here to hand-written traffic the suite never sent. */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { judgeContexts } from './context.js';
import type { JudgeContext, JudgedExchange } from './exchange.js';
import { judgeNoAccessWithout, judgeUnauthorized } from './auth.js';
import { judgeDefaults, judgeEcho, judgeReadOnlyIgnored } from './create.js';
import { judgeExactOrder, judgeUnknownOrder404 } from './order-info.js';
import { judgeRefused } from './request-errors.js';
import { PROFILE } from './rules.js';
import { judgeNoServerError, judgeProblemDetails } from './server.js';

const document = readContract();
const jc: JudgeContext = judgeContexts(document).strict;
const { model } = jc;
const [lotTransfer = 'createLotTransfer'] = model.createIds;

function exchange(status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): JudgedExchange {
  return { request: { method: 'GET', path: '/x', headers: {} }, answer: { status, headers, text: JSON.stringify(body) } };
}

describe('judgments (pure functions of an exchange)', () => {
  it('exact order: a 2xx describing another order is a violation pointing at order.orderNumber; a 404 is not', () => {
    const other = exchange(200, { order: { orderNumber: 'ORD-1' }, containers: [], charges: [], lots: [] });
    const [v] = judgeExactOrder(other, jc, 'ORD-1-X');
    assert.equal(v?.pointer, '/order/orderNumber');
    assert.match(v?.reason ?? '', /ORD-1/);
    assert.deepEqual(judgeExactOrder(exchange(404, {}), jc, 'ORD-1-X'), []);
    assert.equal(judgeUnknownOrder404(exchange(410, {}), jc, 'X').length, 1);
    // An empty order carrying the number asked: a near miss may exist (passes), a number no order can have may not.
    const shell = exchange(200, { order: { id: 0, orderNumber: 'X' }, containers: [], charges: [], lots: [] });
    assert.deepEqual(judgeUnknownOrder404(shell, jc, 'X'), []);
    assert.equal(judgeUnknownOrder404(shell, jc, 'X', { certainlyUnknown: true })[0]?.rule, PROFILE.unknownOrder);
    assert.deepEqual(judgeUnknownOrder404(exchange(404, {}), jc, 'X', { certainlyUnknown: true }), []);
  });

  it('credentials: a 2xx is refused at spec; 401 needs a Bearer challenge, with invalid_token for a rejected token', () => {
    assert.equal(judgeNoAccessWithout(exchange(200, {})).length, 1);
    assert.deepEqual(judgeNoAccessWithout(exchange(403, {})), []);
    assert.equal(judgeUnauthorized(exchange(401, {}), 'missing').length, 1);
    assert.deepEqual(judgeUnauthorized(exchange(401, {}, { 'www-authenticate': 'Basic realm="a", Bearer realm="b"' }), 'missing'), []);
    assert.equal(judgeUnauthorized(exchange(401, {}, { 'www-authenticate': 'Bearer realm="b"' }), 'rejected').length, 1);
  });

  it('creates: every sent member echoed, defaults applied, read-only ignored; one violation per member', () => {
    const sent = { fk_lot_id: 1, source_scancode: 'a', target_scancode: 'b', amount: 2, completed: true };
    const answer = exchange(201, { ...sent, completed: false, amount: 3, id: 1 });
    assert.deepEqual(
      judgeEcho(answer, jc, lotTransfer, sent).map((v) => v.pointer),
      ['/amount', '/completed'],
    );
    const defaults = judgeDefaults(exchange(201, { completed: true, lotnumber: 'L-2' }), jc, lotTransfer, {}, { lotNumber: 'L-1' });
    assert.deepEqual(defaults.map((v) => v.pointer).sort(), ['/completed', '/lotnumber']);
    assert.equal(judgeReadOnlyIgnored(exchange(201, { id: 987 }), jc, lotTransfer, { id: 987 }).length, 1);
  });

  it('refusals: the status and every pointer of a several-problem body', () => {
    const answer = exchange(400, { errors: [{ pointer: '/amount', detail: 'x' }] });
    assert.deepEqual(
      judgeRefused(answer, jc, 'r', 400, ['/amount', '/source_scancode']).map((v) => v.pointer),
      ['/source_scancode'],
    );
    assert.equal(judgeRefused(exchange(422, {}), jc, 'r', 400).length, 1);
  });

  it('every answer: problem details for errors, no 5xx', () => {
    assert.equal(
      judgeProblemDetails(exchange(404, { type: 'x', title: 't', status: 404, detail: 'd' }), jc).length,
      1,
      'application/json is not problem+json',
    );
    assert.deepEqual(
      judgeProblemDetails(
        exchange(404, { type: 'x', title: 't', status: 404, detail: 'd' }, { 'content-type': 'application/problem+json' }),
        jc,
      ),
      [],
    );
    assert.equal(judgeNoServerError(exchange(502, {})).length, 1);
  });
});

describe('judgeContexts', () => {
  it('compiles a document once: the same contexts for the same document object, new ones for another', () => {
    assert.equal(judgeContexts(document), judgeContexts(document));
    const copy = structuredClone(document);
    const other = judgeContexts(copy);
    assert.notEqual(other, judgeContexts(document));
    assert.equal(other, judgeContexts(copy));
    assert.equal(other.spec.model, other.strict.model);
  });
});
