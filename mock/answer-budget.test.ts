/**
 * Answer bytes held for clients that have not read them (`--max-answer-bytes-in-flight`): the budget
 * itself (free small answers, one session at most half, reserve and fit, release as bytes go out), and
 * over HTTP: listing pages streamed with backpressure, shorter pages or 503 `mock-busy` for readers
 * that never read, the other sessions untouched, everything given back when the readers leave.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { AnswerBudget } from './answer-budget.js';
import type { JsonObject } from '../contract/document.js';
import { listen, type RunningServer } from '../test/support/http.js';
import { handleAdmin, type AdminContext } from './admin.js';
import { FaultRules } from './fault-rules.js';
import { ProblemError } from './problems.js';
import { sendProblem } from './respond.js';
import type { MemoryStore } from './store/memory.js';
import { bundledContract, rawRequest, type BundledContract } from './testing.js';
import { until } from '../support/wait.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A stand-in for a response: only what a hold listens to ('close', `closed`). */
function response(): ServerResponse & { end(): void } {
  const stream = new PassThrough() as unknown as ServerResponse & { closed: boolean };
  return Object.assign(stream, {
    end() {
      stream.destroy();
    },
  });
}

/** A string member of the create's request that takes any text (padding goes there). */
function createModelString(bundled: BundledContract, id: Parameters<BundledContract['createOperation']>[0]): string {
  const member = bundled.model.create(id).members.find((m) => m.required && m.type === 'string' && !m.readOnly);
  if (!member) throw new Error(`${id}: no required string member to pad`);
  return member.name;
}

describe('mock/answer-budget: answers held for slow readers (--max-answer-bytes-in-flight)', () => {
  describe('the budget', () => {
    it('never charges an answer of at most 64 KiB; charges a larger one in full', () => {
      const budget = new AnswerBudget(1 * MiB);
      const small = budget.take('a', 64 * KiB, () => 'small');
      assert.equal(small.bytes, 0);
      assert.equal(budget.held, 0);
      const large = budget.take('a', 64 * KiB + 1, () => 'large');
      assert.equal(large.bytes, 64 * KiB + 1);
      assert.equal(budget.held, 64 * KiB + 1);
      large.release(large.bytes);
      assert.equal(budget.held, 0);
    });

    it('lets one session hold at most half; the other half stays for the other sessions', () => {
      const budget = new AnswerBudget(1 * MiB);
      assert.equal(budget.perSession, 512 * KiB);
      budget.take('greedy', 400 * KiB, () => 'first');
      assert.equal(budget.room('greedy'), 112 * KiB);
      assert.throws(
        () => budget.take('greedy', 200 * KiB, () => 'The listing page of x'),
        (error: ProblemError) => {
          assert.equal(error.kind.status, 503);
          assert.match(error.kind.type, /mock-busy$/);
          assert.equal(error.headers['Retry-After'], '1');
          assert.match(
            error.detail,
            /^The listing page of x \(204800 bytes\) cannot be answered now: the session "greedy" holds 409600 bytes/,
          );
          assert.match(error.detail, /one session holds at most half of --max-answer-bytes-in-flight \(524288 bytes\)/);
          return true;
        },
      );
      assert.equal(budget.room('polite'), 512 * KiB);
      budget.take('polite', 500 * KiB, () => 'polite');
      assert.equal(budget.room('third'), 1 * MiB - 900 * KiB, 'a third session gets what is left of the whole');
      assert.throws(
        () => budget.take('third', 200 * KiB, () => 'third'),
        /the mock holds 921600 bytes of answers .* --max-answer-bytes-in-flight is 1048576/,
      );
    });

    it('reserves what there is room for, never refusing; fit grows it if there is room, else leaves it', () => {
      const budget = new AnswerBudget(1 * MiB);
      const first = budget.reserve('s', 8 * MiB);
      assert.equal(first.bytes, 512 * KiB, 'the session half');
      const second = budget.reserve('s', 8 * MiB);
      assert.equal(second.bytes, 0, 'nothing left, and no refusal');
      assert.equal(second.fit(10 * KiB), true, 'a small page is free');
      assert.equal(second.fit(100 * KiB), false, 'a large one does not fit');
      assert.equal(second.bytes, 0);
      assert.equal(first.fit(300 * KiB), true, 'a page shorter than reserved');
      assert.equal(first.bytes, 300 * KiB);
      assert.equal(second.fit(100 * KiB), true, 'fits now');
      assert.equal(budget.held, 400 * KiB);
    });

    it('resizes to the exact size, past the budget if it must (the answer exists), and releases as bytes go out', () => {
      const budget = new AnswerBudget(256 * KiB);
      const hold = budget.take('s', 100 * KiB, () => 'create');
      hold.resize(130 * KiB);
      assert.equal(hold.bytes, 130 * KiB);
      assert.equal(budget.room('s'), 0, 'past its half: room 0, never negative');
      hold.resize(10 * KiB);
      assert.equal(hold.bytes, 0, 'a small answer is free');
      hold.resize(100 * KiB);
      hold.release(30 * KiB);
      hold.release(30 * KiB);
      assert.equal(hold.bytes, 40 * KiB);
      hold.release(1 * MiB);
      assert.equal(budget.held, 0, 'never below nothing');
    });

    it('gives everything back when its response closes, and takes nothing more after', async () => {
      const budget = new AnswerBudget(1 * MiB);
      const res = response();
      const hold = budget.take('s', 200 * KiB, () => 'x').until(res);
      assert.equal(budget.held, 200 * KiB);
      res.end();
      await until(() => budget.held === 0, { what: 'released on close', timeoutMs: 1000 });
      hold.resize(300 * KiB);
      assert.equal(hold.fit(300 * KiB), true);
      assert.equal(budget.held, 0, 'a closed answer holds nothing');
      const late = budget.reserve('s', 100 * KiB).until(res);
      assert.equal(late.bytes, 0, 'taken for a response already closed: given back at once');
      assert.equal(budget.held, 0);
    });
  });

  describe('over HTTP: listing pages for readers that never read (the /__mock listing on a memory store)', function () {
    this.timeout(60_000);
    const bundled = bundledContract();
    const [createId] = bundled.model.createIds;
    if (createId === undefined) throw new Error('the contract has no create');
    const op = bundled.createOperation(createId);
    const [lotId = 0] = bundled.fixtures.lots.keys();
    const lot = bundled.fixtures.lots.get(lotId)?.lot as unknown as JsonObject;
    const example = bundled.model.create(createId).requestExample as JsonObject;
    const padded = createModelString(bundled, createId);
    // 16 MiB of answers: one session holds at most 8 MiB (a listing page is up to 8 MiB).
    const budget = new AnswerBudget(16 * MiB);
    let store: MemoryStore;
    let server: RunningServer;
    const sockets: Socket[] = [];
    before(async () => {
      store = await bundled.memoryStore({ maxRecordedBytes: 256 * MiB, maxRecordsPerSession: 100 });
      const ctx: AdminContext = {
        store,
        orderNumbers: [],
        lots: [],
        resources: [op.resource],
        model: Buffer.from('{}'),
        answers: budget,
        faults: { rules: new FaultRules(2), operations: [] },
        tokens: 'any',
        log: () => undefined,
      };
      server = await listen((req, res) => {
        handleAdmin(ctx, req, res, (req.url ?? '').split('?')[0] ?? '').catch((error: unknown) =>
          error instanceof ProblemError ? sendProblem(res, error) : res.destroy(),
        );
      });
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      await server.close();
      await store.close();
    });

    /** Records the mock could have: `count` of about `bytes` bytes each in `session`. */
    const fill = async (session: string, count: number, bytes: number) => {
      for (let i = 0; i < count; i++) {
        const input = { ...example, [op.model.lotMember ?? '']: lotId, [padded]: `${session}-${i} ${'x'.repeat(bytes)}` };
        await store.create(session, op.plan(input, lot, new Date().toISOString()));
      }
    };

    /** A GET of the listing that reads the answer's first bytes (status, Content-Length) and then never reads again. */
    const slowReader = (session: string): Promise<{ status: string; length: number }> =>
      new Promise((resolve) => {
        const { port } = new URL(server.url);
        const socket = connect({ host: '127.0.0.1', port: Number(port) });
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.once('data', (data: Buffer) => {
          socket.pause();
          const text = data.toString('latin1');
          const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? '?';
          resolve({
            status: status === '200' ? '200' : `${status} ${/"type":"[^"]*\/([^"/]+)"/.exec(text)?.[1] ?? ''}`,
            length: Number(/\r\nContent-Length: (\d+)/i.exec(text)?.[1] ?? 0),
          });
        });
        socket.write(`GET /__mock/${op.resource} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Mock-Session: ${session}\r\n\r\n`);
      });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    const read = (session: string) => rawRequest(server.url, { path: `/__mock/${op.resource}`, headers: { 'X-Mock-Session': session } });

    it("holds at most the session's half for readers that never read: shorter pages, then 503 mock-busy; other sessions go on; all given back", async () => {
      await fill('slow', 10, 5 * MiB);
      await fill('other', 3, 900 * KiB);
      const answers: { status: string; length: number }[] = [];
      const held: number[] = [];
      for (let i = 0; i < 12; i++) {
        answers.push(await slowReader('slow'));
        await settle();
        held.push(budget.held);
        assert.ok(budget.held <= budget.perSession, `reader ${i + 1}: ${budget.held} bytes held, at most ${budget.perSession}`);
      }
      const statuses = answers.map((a) => a.status);
      assert.ok(
        statuses.every((s) => s === '200' || s === '503 mock-busy'),
        statuses.join(', '),
      );
      assert.equal(statuses[0], '200');
      assert.ok((held[0] ?? 0) > 0, 'the first reader holds what the connection did not take');
      assert.ok(statuses.includes('503 mock-busy'), `once the session's half cannot hold a record: ${statuses.join(', ')}`);

      // Another session's page is whole: the other half is its own.
      assert.equal(budget.room('other'), budget.perSession);
      const other = await read('other');
      assert.equal(other.status, 200);
      assert.equal((JSON.parse(other.body) as unknown[]).length, 3);

      for (const socket of sockets.splice(0)) socket.destroy();
      await until(() => budget.held === 0, { what: 'every hold given back once the readers left', timeoutMs: 5000 });
      const whole = await read('slow');
      assert.equal(whole.status, 200);
      assert.equal((JSON.parse(whole.body) as unknown[]).length, 1, 'a page of 8 MiB holds one record of 5 MiB');
    });

    it('cuts a page to the room its session has (Link leads on); a reader that reads gets it whole; HEAD sends the head only', async () => {
      await fill('pages', 20, 900 * KiB);
      const first = await slowReader('pages');
      await settle();
      const second = await slowReader('pages');
      assert.equal(first.status, '200');
      assert.equal(second.status, '200');
      assert.ok(second.length < first.length, `the second page (${second.length} bytes) is shorter than the first (${first.length})`);
      for (const socket of sockets.splice(0)) socket.destroy();
      await until(() => budget.held === 0, { what: 'given back', timeoutMs: 5000 });
      const page = await read('pages');
      assert.equal(page.status, 200);
      assert.equal(page.headers['content-length'], String(Buffer.byteLength(page.body)));
      const records = JSON.parse(page.body) as Record<string, string>[];
      assert.deepEqual(
        records.map((r) => (r[padded] ?? '').split(' ')[0]),
        Array.from({ length: 9 }, (_, i) => `pages-${i}`),
      );
      assert.match(String(page.headers['link']), new RegExp(`^</__mock/${op.resource}\\?limit=10000&after=\\d+>; rel="next"$`));
      const head = await rawRequest(server.url, { method: 'HEAD', path: `/__mock/${op.resource}`, headers: { 'X-Mock-Session': 'pages' } });
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], page.headers['content-length']);
    });
  });
});
