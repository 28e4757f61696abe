/**
 * Session fault rules over HTTP (`/__mock/faults`): set, listed, used up by count, expired by time,
 * isolated per `X-Mock-Session`, never consumed or applied before security and validation, cleared
 * one by one or all at once; bad rules and bad requests refused with a clear problem.
 */
import assert from 'node:assert/strict';
import { RULE_LIMITS, type FaultRuleView as RuleView } from './fault-rules.js';
import type { MockServer } from './server.js';
import { AUTH, JSON_AUTH, ORDER_PATH, SAMPLES_PATH, startMock, TRANSFERS_PATH } from './testing.js';
import { until } from '../support/wait.js';

const ORDER = `${ORDER_PATH}ORD-2026-0001`;
const transfer = JSON.stringify({ fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1 });
const sample = JSON.stringify({ fk_lot_id: 2202, fk_user_id: 4 });

describe('mock /__mock/faults: session fault rules over HTTP', function () {
  this.timeout(30_000);
  let server: MockServer;
  before(async () => {
    server = await startMock({ maxSessions: 3 });
  });
  after(() => server.close());

  const session = (name: string) => ({ 'X-Mock-Session': name });
  const addRule = (name: string, rule: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...session(name), ...headers },
      body: JSON.stringify(rule),
    });
  const rulesOf = async (name: string): Promise<RuleView[]> => {
    const answer = await fetch(`${server.url}/__mock/faults`, { headers: session(name) });
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { rules: RuleView[] }).rules;
  };
  const createIn = (name: string, path = TRANSFERS_PATH, body = transfer, headers: Record<string, string> = JSON_AUTH) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { ...headers, ...session(name) }, body });
  const orderIn = (name: string) => fetch(`${server.url}${ORDER}`, { headers: { ...AUTH, ...session(name) } });
  const listed = async (name: string, resource: string) =>
    ((await (await fetch(`${server.url}/__mock/${resource}`, { headers: session(name) })).json()) as unknown[]).length;

  it('"the next three creates fail with 503": exactly three, marked with the rule, nothing recorded; then the real answer', async () => {
    const added = await addRule('three', { fault: 'status:503', operations: ['createLotTransfer', 'createTestSample'], count: 3 });
    assert.equal(added.status, 201);
    const rule = (await added.json()) as RuleView;
    assert.equal(added.headers.get('location'), `/__mock/faults/${rule.id}`);
    assert.deepEqual(
      { ...rule, expiresAt: '' },
      { id: rule.id, fault: 'status:503', operations: ['createLotTransfer', 'createTestSample'], remaining: 3, hits: 0, expiresAt: '' },
    );
    assert.ok(Date.parse(rule.expiresAt) > Date.now() + (RULE_LIMITS.defaultSeconds - 60) * 1000, 'ten minutes by default');

    assert.equal((await orderIn('three')).status, 200, 'order info is not named by the rule');
    const statuses: number[] = [];
    const markers: (string | null)[] = [];
    for (const path of [TRANSFERS_PATH, SAMPLES_PATH, TRANSFERS_PATH, SAMPLES_PATH, TRANSFERS_PATH]) {
      const answer = await createIn('three', path, path === TRANSFERS_PATH ? transfer : sample);
      statuses.push(answer.status);
      markers.push(answer.headers.get('x-mock-fault'));
      await answer.body?.cancel();
    }
    assert.deepEqual(statuses, [503, 503, 503, 201, 201]);
    assert.deepEqual(markers, [...Array<string>(3).fill(`status:503; rule=${rule.id}`), null, null]);
    assert.equal(await listed('three', 'lot-transfers'), 1);
    assert.equal(await listed('three', 'test-samples'), 1);
    assert.deepEqual(await rulesOf('three'), [], 'a used-up rule is gone');
  });

  it('keeps sessions apart: a rule of one session faults nobody else, and only it lists or removes it', async () => {
    const rule = (await (await addRule('alice', { fault: 'drop' })).json()) as RuleView;
    assert.equal((await orderIn('bob')).status, 200);
    assert.equal((await fetch(`${server.url}${ORDER}`, { headers: AUTH })).status, 200, 'nor the default session');
    assert.deepEqual(await rulesOf('bob'), []);
    const elsewhere = await fetch(`${server.url}/__mock/faults/${rule.id}`, { method: 'DELETE', headers: session('bob') });
    assert.equal(elsewhere.status, 404);
    assert.match(((await elsewhere.json()) as { detail: string }).detail, /^The session "bob" has no fault rule "\d+"/);
    await assert.rejects(orderIn('alice'), TypeError, 'dropped');
    assert.equal((await rulesOf('alice'))[0]?.hits, 1);
    assert.equal((await fetch(`${server.url}/__mock/faults`, { method: 'DELETE', headers: session('alice') })).status, 204);
    assert.equal((await orderIn('alice')).status, 200);
  });

  it('never applies or uses up a rule before security and validation', async () => {
    const rule = (await (await addRule('guarded', { fault: 'status:500', count: 1 })).json()) as RuleView;
    const noToken = await createIn('guarded', TRANSFERS_PATH, transfer, { 'Content-Type': 'application/json' });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.headers.get('x-mock-fault'), null);
    const orderNoToken = await fetch(`${server.url}${ORDER}`, { headers: session('guarded') });
    assert.equal(orderNoToken.status, 401);
    const invalid = await createIn('guarded', SAMPLES_PATH, '{}');
    assert.equal(invalid.status, 400);
    const wrongType = await createIn('guarded', SAMPLES_PATH, sample, { ...AUTH, 'Content-Type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    assert.deepEqual(
      (await rulesOf('guarded')).map((r) => [r.id, r.remaining, r.hits]),
      [[rule.id, 1, 0]],
      'refused requests did not use the rule',
    );
    const faulted = await orderIn('guarded');
    assert.equal(faulted.status, 500);
    assert.equal(((await faulted.json()) as { type: string }).type, 'https://goods.example/problems/injected-server-error');
  });

  it("a request's own Prefer decides: it never uses a session rule", async () => {
    const rule = (await (await addRule('prefers', { fault: 'status:502' })).json()) as RuleView;
    const own = await fetch(`${server.url}${ORDER}`, { headers: { ...AUTH, ...session('prefers'), Prefer: 'fault=status:504' } });
    assert.equal(own.status, 504);
    assert.equal(own.headers.get('x-mock-fault'), 'status:504; prefer');
    const code = await fetch(`${server.url}${ORDER}`, { headers: { ...AUTH, ...session('prefers'), Prefer: 'code=404' } });
    assert.equal(code.status, 404);
    assert.equal((await rulesOf('prefers'))[0]?.hits, 0);
    const ruled = await orderIn('prefers');
    assert.equal(ruled.status, 502);
    assert.equal(ruled.headers.get('x-mock-fault'), `status:502; rule=${rule.id}`);
    assert.equal((await fetch(`${server.url}/__mock/faults/${rule.id}`, { method: 'DELETE', headers: session('prefers') })).status, 204);
    assert.equal((await orderIn('prefers')).status, 200);
  });

  it('ends a rule after its time ("every order-info answer late", for one second)', async () => {
    await addRule('timed', { fault: 'delay:50', operations: ['getOrderInfo'], seconds: 1 });
    const added = Date.now();
    await until(async () => (await rulesOf('timed')).length === 0, { what: 'the rule to expire', timeoutMs: 10_000, intervalMs: 100 });
    assert.ok(Date.now() - added >= 900, 'not before its second');
    const after = await orderIn('timed');
    assert.equal(after.status, 200);
    assert.equal(after.headers.get('x-mock-fault'), null);
  });

  it('refuses bad rules (400 invalid-fault, with pointers), bad media types (415), past the bounds (429)', async () => {
    const bad = await addRule('bad', { fault: 'drip:1', operations: ['nope'], count: 0 });
    assert.equal(bad.status, 400);
    const problem = (await bad.json()) as { type: string; detail: string; errors: { pointer: string }[] };
    assert.equal(problem.type, 'https://goods.example/problems/invalid-fault');
    assert.deepEqual(
      problem.errors.map((e) => e.pointer),
      ['/fault', '/operations/0', '/count'],
    );
    assert.match(problem.detail, /^The fault rule has 3 problems: \/fault is not a fault: drip must be whole bytes per second from 10/);
    const notJson = await fetch(`${server.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { type: string }).type, 'https://goods.example/problems/invalid-body');
    const form = await fetch(`${server.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"fault":"drop"}',
    });
    assert.equal(form.status, 415, 'no plain HTML form can add a rule');
    const huge = await addRule('bad', { fault: 'drop', pad: 'x'.repeat(20_000) });
    assert.equal(huge.status, 413);
    const badSession = await addRule('a b', { fault: 'drop' });
    assert.equal(badSession.status, 400);
    assert.equal(((await badSession.json()) as { type: string }).type, 'https://goods.example/problems/invalid-session');
    const put = await fetch(`${server.url}/__mock/faults`, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, DELETE');
    assert.equal((await fetch(`${server.url}/__mock/faults/x`, { method: 'DELETE' })).status, 404);

    for (let i = 0; i < RULE_LIMITS.maxRulesPerSession; i++)
      assert.equal((await addRule('full', { fault: 'drop', operations: ['createTestSample'] })).status, 201);
    const past = await addRule('full', { fault: 'drop' });
    assert.equal(past.status, 429);
    assert.equal(((await past.json()) as { type: string }).type, 'https://goods.example/problems/fault-rules-full');
    assert.equal((await fetch(`${server.url}/__mock/faults`, { method: 'DELETE', headers: session('full') })).status, 204);
    assert.deepEqual(await rulesOf('full'), []);
  });

  it('lists the catalogue, the operations a rule may name and the bounds', async () => {
    const answer = (await (await fetch(`${server.url}/__mock/faults`)).json()) as {
      session: string;
      faults: { kind: string }[];
      operations: string[];
      limits: Record<string, number>;
    };
    assert.equal(answer.session, 'default');
    assert.deepEqual(
      answer.faults.map((f) => f.kind),
      ['status', 'delay', 'drop', 'reset', 'empty', 'truncate', 'drip'],
    );
    assert.deepEqual(answer.operations, ['getOrderInfo', 'createLotTransfer', 'createTestSample']);
    assert.equal(answer.limits['maxRulesPerSession'], RULE_LIMITS.maxRulesPerSession);
    const head = await fetch(`${server.url}/__mock/faults`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  it('needs the --admin-token to change rules when one is set, and refuses foreign pages', async () => {
    const guarded = await startMock({ adminToken: 'sesame' });
    try {
      const post = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/__mock/faults`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: '{"fault":"drop"}',
        });
      const refused = await post({});
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer realm="goods-mock-admin"/);
      assert.match(
        ((await refused.json()) as { detail: string }).detail,
        /^POST \/__mock\/faults needs "Authorization: Bearer <admin token>"/,
      );
      assert.equal((await fetch(`${guarded.url}/__mock/faults`, { method: 'DELETE' })).status, 401);
      assert.equal((await fetch(`${guarded.url}/__mock/faults`)).status, 200, 'reading needs no token');
      assert.equal((await post({ Authorization: 'Bearer sesame' })).status, 201);
      const foreign = await post({ Authorization: 'Bearer sesame', Origin: 'http://evil.test' });
      assert.equal(foreign.status, 403);
      const rules = (await (await fetch(`${guarded.url}/__mock/faults`)).json()) as { rules: unknown[] };
      assert.equal(rules.rules.length, 1);
    } finally {
      await guarded.close();
    }
  });

  it('bounds the sessions holding rules by --max-sessions (plus the default one)', async () => {
    const bounded = await startMock({ maxSessions: 1 });
    try {
      const add = (name: string) =>
        fetch(`${bounded.url}/__mock/faults`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Mock-Session': name },
          body: '{"fault":"empty"}',
        });
      assert.equal((await add('default')).status, 201);
      assert.equal((await add('one')).status, 201);
      const third = await add('two');
      assert.equal(third.status, 429);
      assert.match(((await third.json()) as { detail: string }).detail, /^2 sessions hold fault rules, the most/);
    } finally {
      await bounded.close();
    }
  });
});
