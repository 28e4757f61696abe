/**
 * mock/steps.ts: the per-operation steps after routing and security, `validate` then `handle` (and
 * `prefer`), run on a real loopback server as the pipeline runs them, with requests of exact headers
 * and bodies: the order-info answer, and a create's refusals (400 session, 415, 413, 400 JSON and
 * schema with `errors[].pointer`, 422 lot, 503 budget) and its 201. Member names come from the
 * bundled contract's operations model.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { JsonObject } from '../contract/document.js';
import { listen, type RunningServer } from '../test/support/http.js';
import { AnswerBudget } from './answer-budget.js';
import { BodyBudget } from './body-budget.js';
import { MAX_BODY_DEPTH } from './body.js';
import { orderBodies, orderInfo, type CreateContext } from './handlers.js';
import { ProblemError, PROBLEMS, type ProblemBody } from './problems.js';
import { sendProblem } from './respond.js';
import { createSteps, orderInfoSteps, type OperationSteps } from './steps.js';
import type { Store } from './store/types.js';
import type { MemoryStore } from './store/memory.js';
import { bundledContract, rawRequest, type RawAnswer } from './testing.js';
import { until } from '../support/wait.js';

const bundled = bundledContract();
const { model, fixtures } = bundled;
const [createId] = model.createIds;
if (createId === undefined) throw new Error('the contract has no create');
const createModel = model.create(createId);
const op = bundled.createOperation(createId);
const [firstLot = 0] = fixtures.lots.keys();
const unknownLot = Math.max(...fixtures.lots.keys()) + 1000;
const VALID = JSON.stringify({ ...(createModel.requestExample as JsonObject), [op.model.lotMember ?? '']: firstLot });
const LIMIT = 4096;

function problemOf(answer: RawAnswer, status: number, kind: { type: string }): ProblemBody {
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers['content-type'], 'application/problem+json');
  const body = JSON.parse(answer.body) as ProblemBody;
  assert.equal(body.type, kind.type);
  assert.equal(body.status, status);
  return body;
}

describe('mock/steps', () => {
  let server: RunningServer;
  /** The steps the server runs next, with the route's parameters. */
  let steps: OperationSteps = orderInfoSteps(new Map(), 'number');
  let params: Record<string, string> = {};
  before(async () => {
    server = await listen((req, res) => {
      Promise.resolve()
        .then(() => steps.validate(req, params, res))
        .then((input) => steps.handle(input, res))
        .catch((error: unknown) => {
          if (error instanceof ProblemError) sendProblem(res, error);
          else res.destroy();
        });
    });
  });
  after(() => server.close());

  describe('orderInfoSteps', () => {
    const bodies = orderBodies(fixtures);
    const param = model.order.numberParam;
    const info = orderInfoSteps(bodies, param);

    it("validates at once: the input is the route's number parameter ('' without one)", () => {
      assert.equal(info.validate({} as never, { [param]: 'X-1' }, {} as never), 'X-1');
      assert.equal(info.validate({} as never, {}, {} as never), '');
    });

    it("answers 200 with the order's pre-serialized body, byte for byte", async () => {
      for (const number of fixtures.orders.keys()) {
        steps = info;
        params = { [param]: number };
        const answer = await rawRequest(server.url, { path: '/order' });
        assert.equal(answer.status, 200);
        assert.equal(answer.headers['content-type'], 'application/json');
        const expected = orderInfo(bodies, number);
        assert.equal(answer.headers['content-length'], String(expected.length));
        assert.equal(answer.body, expected.toString('utf8'));
      }
    });

    it('answers an unknown number 404 order-not-found', async () => {
      steps = info;
      params = { [param]: 'NO-SUCH-ORDER' };
      const body = problemOf(await rawRequest(server.url, { path: '/order' }), 404, PROBLEMS.orderNotFound);
      assert.match(body.detail, /^No order has the number "NO-SUCH-ORDER"/);
    });

    it('prefers a 404 naming the number asked for; leaves other codes to the contract example', () => {
      assert.throws(
        () => info.prefer?.('ORD-X', '404'),
        (error: unknown) =>
          error instanceof ProblemError &&
          error.kind === PROBLEMS.orderNotFound &&
          error.detail === 'No order has the number "ORD-X" (answered 404 because of Prefer: code=404).',
      );
      assert.equal(info.prefer?.('ORD-X', '400'), undefined);
      assert.equal(info.prefer?.('ORD-X', '500'), undefined);
    });
  });

  describe(`createSteps (${createId})`, () => {
    const budgets = (bodies = new BodyBudget(1 << 20), answers = new AnswerBudget(1 << 20)) => ({ bodies, answers });
    let store: MemoryStore;
    const lines: string[] = [];
    let ctx: CreateContext;
    const post = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
      rawRequest(server.url, { method: 'POST', path: '/create', headers, body });
    before(async () => {
      store = await bundled.memoryStore();
      ctx = { store, lots: fixtures.lots, log: (line) => lines.push(line) };
    });
    after(() => store.close());
    beforeEach(async () => {
      await store.reset('default');
      steps = createSteps(ctx, op, LIMIT, budgets());
      params = {};
    });

    it('answers a valid body with the contract status and the record as application/json', async () => {
      const answer = await post(VALID);
      assert.equal(answer.status, op.status);
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.equal(answer.headers['content-length'], String(Buffer.byteLength(answer.body)));
      const record = JSON.parse(answer.body) as JsonObject;
      for (const [name, value] of Object.entries(JSON.parse(VALID) as JsonObject)) assert.deepEqual(record[name], value, name);
      const page = await store.list('default', op.resource, { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.deepEqual(
        page.records.map((r) => r.toString()),
        [answer.body],
      );
    });

    it('records in the session X-Mock-Session names; accepts application/json; charset=utf-8', async () => {
      const answer = await post(VALID, { 'Content-Type': 'application/json; charset=utf-8', 'X-Mock-Session': 'steps-a' });
      assert.equal(answer.status, op.status);
      const page = await store.list('steps-a', op.resource, { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.equal(page.records.length, 1);
      assert.equal(page.records[0]?.toString(), answer.body);
    });

    it('400 invalid-session for a bad X-Mock-Session, before the media type is looked at', async () => {
      const body = problemOf(await post(VALID, { 'Content-Type': 'text/plain', 'X-Mock-Session': 'a b' }), 400, PROBLEMS.invalidSession);
      assert.match(body.detail, /X-Mock-Session/);
    });

    it('415 unsupported-media-type for no Content-Type, another type, or another charset', async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [{}, /has no Content-Type/],
        [{ 'Content-Type': 'text/plain' }, /must be "application\/json", not "text\/plain"/],
        [{ 'Content-Type': 'application/json; charset=latin1' }, /charset .* must be utf-8, not "latin1"/],
        [{ 'Content-Type': 'application/json;;;=' }, /is malformed/],
      ];
      for (const [headers, detail] of cases) {
        const body = problemOf(await post(VALID, headers), 415, PROBLEMS.unsupportedMediaType);
        assert.match(body.detail, detail, JSON.stringify(headers));
      }
    });

    it('413 payload-too-large for a body over the limit', async () => {
      const big = JSON.stringify({ ...(JSON.parse(VALID) as JsonObject), pad: 'x'.repeat(LIMIT) });
      const body = problemOf(await post(big), 413, PROBLEMS.payloadTooLarge);
      assert.equal(body.detail, `The request body is larger than ${LIMIT} bytes.`);
    });

    it('400 invalid-body for a body that is not JSON, or empty, with pointer ""', async () => {
      for (const [text, detail] of [
        ['{"a":', 'is not valid JSON'],
        ['', 'is empty'],
      ]) {
        const body = problemOf(await post(text ?? ''), 400, PROBLEMS.malformedJson);
        assert.deepEqual(body.errors, [{ pointer: '', detail }]);
      }
    });

    it(`400 invalid-body for a body nested deeper than ${MAX_BODY_DEPTH} levels, unparsed, with pointer ""; at the limit it is checked as usual`, async () => {
      // One member holding arrays nested `depth - 1` deep inside the body object: the body nests `depth` levels.
      const nested = (depth: number) => `${VALID.slice(0, -1)},"deep":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      const deep = problemOf(await post(nested(MAX_BODY_DEPTH + 1)), 400, PROBLEMS.invalidBody);
      assert.deepEqual(deep.errors, [{ pointer: '', detail: `nests deeper than ${MAX_BODY_DEPTH} levels` }]);
      assert.match(deep.detail, new RegExp(`send a body nested at most ${MAX_BODY_DEPTH} levels`));
      const atLimit = problemOf(await post(nested(MAX_BODY_DEPTH)), 400, PROBLEMS.invalidBody);
      assert.deepEqual(
        atLimit.errors?.map((e) => e.pointer),
        ['/deep'],
        'parsed and refused by the schema: an unknown member',
      );
    });

    it('400 invalid-body for a number beyond a double (1e400 parses to Infinity): the detail says so, not "must be of type number"', async () => {
      const numeric = createModel.members.filter((m) => m.type === 'number' || m.type === 'integer').map((m) => m.name);
      assert.ok(numeric.length > 0, 'the create has a number member');
      const sent = JSON.stringify({ ...(JSON.parse(VALID) as JsonObject), ...Object.fromEntries(numeric.map((name) => [name, 'HUGE'])) });
      const body = problemOf(await post(sent.replaceAll('"HUGE"', '-1e400')), 400, PROBLEMS.invalidBody);
      for (const name of numeric)
        assert.ok(
          body.errors?.some(
            (e) => e.pointer === `/${name}` && /^is a number beyond the range of a 64-bit float \(it reads as -Infinity\)/.test(e.detail),
          ),
          JSON.stringify(body.errors),
        );
    });

    it('400 invalid-body naming each wrong member in errors[].pointer', async () => {
      const wrong = createModel.members.filter((m) => m.required && m.type === 'string').map((m) => m.name);
      const sent = { ...(JSON.parse(VALID) as JsonObject), ...Object.fromEntries(wrong.map((name) => [name, 12])) };
      const body = problemOf(await post(JSON.stringify(sent)), 400, PROBLEMS.invalidBody);
      assert.ok(wrong.length > 0);
      assert.deepEqual(body.errors?.map((e) => e.pointer).sort(), wrong.map((name) => `/${name}`).sort());
    });

    it('422 unknown-lot for a lot no fixture has, pointing at the lot member', async () => {
      const sent = { ...(JSON.parse(VALID) as JsonObject), [op.model.lotMember ?? '']: unknownLot };
      const body = problemOf(await post(JSON.stringify(sent)), 422, PROBLEMS.unknownLot);
      assert.deepEqual(body.errors, [{ pointer: `/${op.model.lotMember}`, detail: `no lot has the id ${unknownLot}` }]);
      const page = await store.list('default', op.resource, { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.equal(page.records.length, 0, 'nothing recorded');
    });

    it('503 mock-busy (Retry-After, Connection: close) when the body budget cannot hold the body', async () => {
      steps = createSteps(ctx, op, LIMIT, budgets(new BodyBudget(64, 16)));
      const answer = await post(VALID);
      const body = problemOf(answer, 503, PROBLEMS.busy);
      assert.match(body.detail, /holds 64 bytes of request bodies at once/);
      assert.equal(answer.headers['retry-after'], '1');
      assert.equal(answer.headers['connection'], 'close');
    });

    it("gives the body's share back once it is parsed and checked; the create's input and answer count against its session's answer budget", async () => {
      // Bodies and answers count from 512 bytes on; a store that waits shows what is held while the create is decided.
      const bodies = new BodyBudget(16 * 1024, 512);
      const answers = new AnswerBudget(16 * 1024, 512);
      let created!: () => void;
      const createCalled = new Promise<void>((resolve) => (created = resolve));
      let go!: () => void;
      const gate = new Promise<void>((resolve) => (go = resolve));
      const slow: Store = Object.create(store) as Store;
      slow.create = (session, plan) => {
        created();
        return gate.then(() => store.create(session, plan));
      };
      steps = createSteps({ ...ctx, store: slow }, op, LIMIT, budgets(bodies, answers));
      const long = createModel.members.find((m) => m.required && m.type === 'string')?.name ?? '';
      const sent = JSON.stringify({ ...(JSON.parse(VALID) as JsonObject), [long]: 'x'.repeat(2000) });
      const answer = post(sent, { 'Content-Type': 'application/json', 'X-Mock-Session': 'held' });
      await createCalled;
      assert.equal(bodies.held, 0, 'the body budget holds nothing once the body is parsed and checked');
      assert.equal(answers.held, Buffer.byteLength(sent), "the create's share: its body's size");
      assert.equal(answers.room('held'), 8 * 1024 - Buffer.byteLength(sent), "within its session's half");
      assert.equal(answers.room('other'), 8 * 1024, 'another session keeps its half');
      go();
      const done = await answer;
      assert.equal(done.status, op.status);
      await until(() => answers.held === 0, { what: 'the answer hold released', timeoutMs: 2000 });
    });

    it("503 mock-busy when the session's answers cannot hold a large create: nothing recorded, another session served", async () => {
      const answers = new AnswerBudget(8 * 1024, 512);
      // The session holds its half (4 KiB) already: a slow reader's answer, say.
      const slowReader = answers.take('full', 4 * 1024, () => 'a slow answer');
      steps = createSteps(ctx, op, LIMIT, budgets(new BodyBudget(1 << 20, 512), answers));
      const long = createModel.members.find((m) => m.required && m.type === 'string')?.name ?? '';
      const sent = JSON.stringify({ ...(JSON.parse(VALID) as JsonObject), [long]: 'x'.repeat(1500) });
      const refused = await post(sent, { 'Content-Type': 'application/json', 'X-Mock-Session': 'full' });
      const body = problemOf(refused, 503, PROBLEMS.busy);
      assert.match(body.detail, /session "full" holds 4096 bytes of answers its clients have not read yet/);
      assert.match(body.detail, /--max-answer-bytes-in-flight/);
      assert.equal(refused.headers['retry-after'], '1');
      const page = await store.list('full', op.resource, { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.equal(page.records.length, 0, 'nothing recorded');
      assert.equal((await post(sent, { 'Content-Type': 'application/json', 'X-Mock-Session': 'other' })).status, op.status);
      slowReader.release(4 * 1024);
      assert.equal((await post(sent, { 'Content-Type': 'application/json', 'X-Mock-Session': 'full' })).status, op.status);
    });

    it('logs a create recorded whose answer could not be sent; the record stays', async () => {
      let created!: () => void;
      const createCalled = new Promise<void>((resolve) => (created = resolve));
      let gone!: () => void;
      const clientGone = new Promise<void>((resolve) => (gone = resolve));
      const slow: Store = Object.create(store) as Store;
      slow.create = (session, plan) => {
        created();
        return clientGone.then(() => store.create(session, plan));
      };
      let logged!: (line: string) => void;
      const line = new Promise<string>((resolve) => (logged = resolve));
      steps = createSteps({ store: slow, lots: fixtures.lots, log: logged }, op, LIMIT, budgets());
      // A long member makes the record longer than the 300 characters the line shows of it.
      const long = createModel.members.find((m) => m.required && m.type === 'string')?.name ?? '';
      const sent = JSON.stringify({ ...(JSON.parse(VALID) as JsonObject), [long]: 'x'.repeat(400) });
      const { port } = new URL(server.url);
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      socket.on('error', () => undefined);
      socket.write(
        `POST /create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(sent)}\r\n\r\n${sent}`,
      );
      await createCalled;
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      gone();
      const text = await line;
      assert.match(
        text,
        new RegExp(
          `^create recorded but its ${op.status} answer could not be sent \\(the client closed the connection\\): ${op.resource} in session "default" \\{`,
        ),
      );
      const shown = /in session "default" (.*); it stays recorded \(GET \/__mock\/([^)]+)\)$/.exec(text);
      assert.equal(shown?.[2], op.resource);
      assert.equal(shown[1]?.length, 303, 'the first 300 characters of the record, then "..."');
      assert.ok(shown[1]?.endsWith('...'));
      const page = await store.list('default', op.resource, { after: 0, limit: 10, maxBytes: 1 << 20 });
      assert.equal(page.records.length, 1);
    });
  });
});
