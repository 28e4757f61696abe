/**
 * The adapter judges with the suite's judgments: for an exchange built by hand, each proxy violation
 * is the shared judgment's violation (same reason, same place), named by the proxy's list.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readContract } from '../../contract/document.js';
import { withOrder } from '../../contract/operations-model.js';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { judgeContexts, judgeDefaults, judgeEcho, judgeExactOrder, judgeRequestSchema, type JudgeContext } from '../../judgments/index.js';
import type { ProxyExchange } from './exchange.js';
import { schemesOf } from '../../contract/security.js';
import { grownContract } from '../../support/grown-contracts.js';
import { MAX_BODY_DEPTH } from '../body.js';
import { createJudge } from './judge.js';
import { JUDGMENTS } from './judgments.js';

const document = readContract();
const jc: JudgeContext = judgeContexts(document).strict;
const model = withOrder(jc.model);
const ORDER = 'ORD-2026-0001';
const order = readFileSync(join(PROJECT_ROOT, 'fixtures', 'orders', `${ORDER}.json`), 'utf8');
const [transfer = 'createLotTransfer'] = model.createIds;

function exchange(method: string, target: string, status: number, answer: string, body = ''): ProxyExchange {
  const json = { 'content-type': 'application/json' };
  return {
    method,
    target,
    request: { headers: { authorization: 'Bearer t0ken-abc', ...(body ? json : {}) }, body: Buffer.from(body), complete: true },
    answer: { status, headers: json, body: Buffer.from(answer), complete: true },
    durationMs: 1,
  };
}

describe('validating proxy: judge.ts applies the shared judgments', () => {
  it("compiles every body schema at start: judging an operation's first exchanges compiles nothing (no stall of the answers)", () => {
    // A copy of the contract: its compiled contracts are new, untouched by the other tests.
    const fresh = structuredClone(document);
    const judge = createJudge(fresh, 'spec');
    const { contracts } = judgeContexts(fresh).strict;
    const counts = () => [contracts.spec.compiledCount, contracts.strict.compiledCount];
    const before = counts();
    assert.ok(before.every((n) => n > 0));
    const orderPath = model.pathOf(model.orderInfo.operationId, { [model.order.numberParam]: ORDER });
    const problem = '{"type":"about:blank","title":"Not found","status":404}';
    const op = model.get(transfer);
    const created = JSON.stringify({ id: 1 });
    for (const seen of [
      exchange('GET', orderPath, 200, order),
      exchange('GET', orderPath, 404, problem),
      exchange('POST', op.path, op.successStatus, created, '{"fk_lot_id":1}'),
      exchange('POST', op.path, 400, problem, '{}'),
    ])
      for (const level of ['spec', 'strict'] as const) judge.judgeAt(seen, level);
    assert.deepEqual(counts(), before);
  });

  it('every entry of the list names a rule of judgments/rules.ts and a side and level', () => {
    assert.ok(JUDGMENTS.length > 10);
    for (const j of JUDGMENTS) assert.match(j.rule, /^(Spec|Profile|Issue)/, j.id);
  });

  it('an order answer describing another order: the violation of judgeExactOrder, as the proxy names it', () => {
    const judge = createJudge(document, 'spec');
    const other = order.replace(`"${ORDER}"`, '"ORD-OTHER"');
    const seen = exchange('GET', model.pathOf(model.orderInfo.operationId, { [model.order.numberParam]: ORDER }), 200, other);
    const [shared] = judgeExactOrder(
      { request: { method: 'GET', path: seen.target, headers: {} }, answer: { status: 200, headers: {}, text: other } },
      jc,
      ORDER,
    );
    const found = judge.judge(seen);
    assert.deepEqual(found, [
      {
        side: 'server',
        operation: 'getOrderInfo',
        rule: 'answer.exact-order',
        level: 'spec',
        in: 'body',
        pointer: shared?.pointer,
        reason: shared?.reason,
      },
    ]);
  });

  it('an answer parsed once is remembered per operation: the same answer again has the same verdict, another one its own', () => {
    const judge = createJudge(document, 'spec');
    const path = model.pathOf(model.orderInfo.operationId, { [model.order.numberParam]: ORDER });
    const right = exchange('GET', path, 200, order);
    const wrong = exchange('GET', path, 200, order.replace(`"${ORDER}"`, '"ORD-OTHER"'));
    const broken = exchange('GET', path, 200, order.slice(0, -2));
    assert.deepEqual(judge.judge(right), []);
    // The second time the remembered (and now frozen) parse is judged: the same verdict.
    assert.deepEqual(judge.judge(right), []);
    assert.deepEqual(
      judge.judge(wrong).map((v) => v.rule),
      ['answer.exact-order'],
      'another answer of the operation is parsed and judged on its own text',
    );
    assert.ok(
      judge.judge(broken).some((v) => /not JSON/.test(v.reason)),
      'a body that is not JSON after a remembered one',
    );
    assert.deepEqual(judge.judge(right), [], 'and the first answer again');
    assert.deepEqual(judge.judge(wrong).length, 1);
    assert.deepEqual(judge.judge(wrong).length, 1, 'judged from the remembered parse');
  });

  it('a create answer that drops a sent member and a default: judgeEcho and judgeDefaults, each member its own violation', () => {
    const judge = createJudge(document, 'strict');
    const members = model.create(transfer).members;
    const sent: Record<string, string | number | boolean> = {};
    for (const m of members.filter((x) => x.required && !x.readOnly)) sent[m.name] = m.type === 'string' ? 'S-1' : m.namesLot ? 2001 : 3;
    const bool = members.find((m) => m.type === 'boolean' && 'default' in m);
    const echoed = members.find((m) => m.required && !m.readOnly && m.type === 'string');
    assert.ok(bool && echoed, 'the contract has a boolean default and a required string');
    const answered = { ...sent, [echoed.name]: 'CHANGED', [bool.name]: !bool.default };
    for (const m of members.filter((x) => x.readOnly)) answered[m.name] = m.type === 'integer' ? 1 : '2026-11-22T03:00:00Z';
    const seen = exchange('POST', model.pathOf(transfer), 201, JSON.stringify(answered), JSON.stringify(sent));
    const je = {
      request: { method: 'POST', path: seen.target, headers: {} },
      answer: { status: 201, headers: {}, text: JSON.stringify(answered) },
    };
    const expected = [
      ...judgeEcho(je, jc, transfer, sent).map((v) => ['answer.echo', v.pointer, v.reason]),
      ...judgeDefaults(je, jc, transfer, sent, undefined).map((v) => ['answer.defaults', v.pointer, v.reason]),
    ];
    assert.deepEqual(expected.map(([, p]) => p).sort(), [`/${bool.name}`, `/${echoed.name}`].sort());
    const found = judge.judge(seen).filter((v) => v.rule === 'answer.echo' || v.rule === 'answer.defaults');
    assert.deepEqual(
      found.map((v) => [v.rule, v.pointer, v.reason]),
      expected,
    );
  });

  it("a client body with several problems: judgeRequestSchema's violations, one per pointer, on the client's side", () => {
    const judge = createJudge(document, 'strict');
    const body = JSON.stringify({ colour: 'red', amount: 'two' });
    const seen = exchange('POST', model.pathOf(transfer), 400, '{}', body);
    const shared = judgeRequestSchema(
      { request: { target: transfer, method: 'POST', path: seen.target, headers: {}, body } },
      jc,
      transfer,
    );
    const found = judge.judge(seen).filter((v) => v.rule === 'request.body-schema');
    assert.ok(shared.length >= 3, 'several pointers');
    assert.deepEqual(
      found.map((v) => [v.side, v.pointer, v.reason]),
      shared.map((v) => ['client', v.pointer, v.reason]),
    );
  });

  it(`a request body nesting deeper than ${MAX_BODY_DEPTH} levels is not parsed, so its body is not judged (as one over 1 MiB); at the limit it is`, () => {
    const judge = createJudge(document, 'strict');
    const bodyOf = (depth: number) =>
      JSON.stringify({ colour: 'red' }).replace('"red"', `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`);
    const clientBody = (depth: number) =>
      judge
        .judge(exchange('POST', model.pathOf(transfer), 400, '{}', bodyOf(depth)))
        .filter((v) => v.side === 'client' && v.in === 'body')
        .map((v) => v.rule);
    assert.ok(clientBody(MAX_BODY_DEPTH).includes('request.body-schema'), 'at the limit: parsed and judged');
    assert.deepEqual(clientBody(MAX_BODY_DEPTH + 1), []);
  });

  it('a charset other than UTF-8: the client at fault; the server is not blamed for accepting it, as it is for another media type', () => {
    const judge = createJudge(document, 'strict');
    const members = model.create(transfer).members.filter((m) => m.required && !m.readOnly);
    const body = JSON.stringify(Object.fromEntries(members.map((m) => [m.name, m.type === 'string' ? 'S-1' : m.namesLot ? 2001 : 3])));
    const sent = (type: string, status: number): ProxyExchange => {
      const seen = exchange('POST', model.pathOf(transfer), status, status === 201 ? body : '{}', body);
      return { ...seen, request: { ...seen.request, headers: { ...seen.request.headers, 'content-type': type } } };
    };
    const rules = (seen: ProxyExchange) => judge.judge(seen).map((v) => `${v.side} ${v.rule}`);
    for (const status of [201, 415]) {
      const latin1 = rules(sent('application/json; charset=iso-8859-1', status));
      assert.ok(latin1.includes('client request.media-type'), latin1.join());
      assert.ok(!latin1.includes('server answer.input-status'), `${status}: ${latin1.join()}`);
    }
    assert.ok(
      rules(sent('text/plain', 201)).includes('server answer.input-status'),
      "another media type answered 201 is the server's fault",
    );
    assert.ok(!rules(sent('application/json; charset=utf-8', 201)).includes('client request.media-type'));
  });

  it("an operation under an API key: the answer judged by the operation's own security, not by a bearer token", () => {
    const grown = grownContract();
    const judge = createJudge(grown, 'strict');
    const grownModel = judgeContexts(grown).strict.model;
    const op = grownModel.operations.find((o) => o.role === 'create' && schemesOf(o.security).every((s) => s.carrier.kind === 'apiKey'));
    const [scheme] = op === undefined ? [] : schemesOf(op.security);
    if (op === undefined || scheme?.carrier.kind !== 'apiKey' || scheme.carrier.in !== 'header')
      throw new Error('no create under a header API key');
    const keyHeader = scheme.carrier.name;
    const seen = (headers: Record<string, string>, status: number, answerHeaders: Record<string, string> = {}): string[] =>
      judge
        .judge({
          method: 'POST',
          target: op.path,
          request: { headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from('{}'), complete: true },
          answer: {
            status,
            headers: { 'content-type': 'application/problem+json', ...answerHeaders },
            body: Buffer.from('{}'),
            complete: true,
          },
          durationMs: 1,
        })
        .filter((v) => v.rule.startsWith('answer.auth') || v.rule === 'request.bearer')
        .map((v) => `${v.side} ${v.rule}`);
    assert.deepEqual(seen({ [keyHeader]: 'k-1' }, 201), [], 'a key sent and a 2xx: nobody at fault');
    assert.deepEqual(seen({ [keyHeader]: 'k-1' }, 401), [], 'a key refused with 401: no challenge needed for API keys alone');
    assert.deepEqual(seen({ authorization: 'Bearer t-1' }, 201), ['client request.bearer', 'server answer.auth-no-2xx']);
    assert.deepEqual(seen({}, 401), ['client request.bearer']);
  });
});
