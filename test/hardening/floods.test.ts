/**
 * The floods that used to exhaust the mock's memory, against the CLI in a child
 * process with its default limits. Its resident memory (VmHWM, the peak, from /proc) stays under a
 * stated ceiling, every answer is a 2xx or a documented problem (never 500), and a normal client is
 * answered throughout. Loop counts and durations are bounded; loopback only.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { treeMemory } from '../../support/proc-memory.js';
import { burst, reconcile, tally } from './support/burst.js';
import { RSS_CEILING } from './support/ceiling.js';
import { exactSizeSample } from './support/corpus-bodies.js';
import { CREATE_PATHS, ONE_MIB, ORDER_PATH } from './support/corpus-types.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';
import { until } from '../../support/wait.js';

const TOKEN = 'flood-token';
const MiB = 1024 * 1024;

/**
 * A kept-alive connection the mock closes as its keep-alive time-out ends (Node's, on a machine so loaded
 * that the client's next request came seconds late) fails the request sent on it at that moment with no
 * answer ("other side closed", or "read ECONNRESET" when the request was already in the mock's socket): the
 * race every HTTP/1.1 client has (RFC 9112 §9.3.1). The mock had read none of that request, so it is sent
 * again once, as browsers and undici's retry handler do for an idempotent one; an answer, or a second
 * failure, counts.
 */
function sentAgainOnce(send: () => Promise<Response>): Promise<Response> {
  return send().catch((error: unknown) => {
    if (error instanceof Error && error.cause instanceof Error && /other side closed|ECONNRESET/.test(error.cause.message)) return send();
    throw error;
  });
}

/**
 * How long the normal client waits for an answer. On a 2-core host running other test files beside
 * this one, the flood starves this process too (a clean clone's run once made 4 requests in the whole
 * flood, the last one cut off at 10 s); the answer must come, and `slowestMs` shows how late it came.
 */
const NORMAL_PATIENCE_MS = 30_000;

/** The 503 of a connection past --max-connections (the mock full of flooding connections). */
const AT_CONNECTION_LIMIT = /connections open, its most \(--max-connections\)/;

/**
 * A normal client: order info (and with `createLot`, a small create) every 50 ms while a flood runs;
 * answers the statuses it got. It keeps its connection, but a stall of this process past the mock's
 * 5-s keep-alive limit loses it, and a new connection while the flood holds every one the mock allows
 * is refused (503 with Retry-After, by design): the client then waits as told and sends again, as a
 * client should, and counts it (`atLimit`).
 */
function normalClient(mock: MockProcess, createLot?: number) {
  const statuses: (number | string)[] = [];
  let atLimit = 0;
  let slowestMs = 0;
  let running = true;
  /**
   * Sends until answered other than a refusal at the connection limit (a network error on a reused
   * connection: once more), then records the status (a 503 with its detail) and how long it all took.
   */
  const ask = async (send: () => Promise<Response>): Promise<void> => {
    const sent = performance.now();
    for (;;) {
      const answer = await sentAgainOnce(send);
      const text = await answer.text();
      if (answer.status === 503 && running && AT_CONNECTION_LIMIT.test(text)) {
        atLimit++;
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? '1') * 1000));
        continue;
      }
      slowestMs = Math.max(slowestMs, performance.now() - sent);
      statuses.push(answer.status === 503 ? `503 ${text.slice(0, 200)}` : answer.status);
      return;
    }
  };
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const headers = { Authorization: `Bearer ${TOKEN}` };
        await ask(() => fetch(`${mock.url}${ORDER_PATH}ORD-2026-0001`, { headers, signal: AbortSignal.timeout(NORMAL_PATIENCE_MS) }));
        if (createLot !== undefined) {
          await ask(() =>
            fetch(`${mock.url}${CREATE_PATHS['lot-transfers']}`, {
              method: 'POST',
              headers: { ...headers, 'Content-Type': 'application/json', 'X-Mock-Session': 'normal' },
              body: JSON.stringify({ fk_lot_id: createLot, source_scancode: 'N', target_scancode: 'T', amount: 1 }),
              signal: AbortSignal.timeout(NORMAL_PATIENCE_MS),
            }),
          );
        }
      } catch (error) {
        statuses.push(error instanceof Error && error.cause instanceof Error ? `${String(error)}: ${error.cause.message}` : String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (Date.now() - started))));
    }
  })();
  return {
    async stop(): Promise<{ statuses: (number | string)[]; atLimit: number; slowestMs: number }> {
      running = false;
      await loop;
      return { statuses, atLimit, slowestMs };
    },
  };
}

/**
 * POSTs `body`. A request that fails with no answer on a reused kept-alive connection (ECONNRESET, EPIPE: the
 * mock closed it as its keep-alive time-out ended, before it read a byte of this request) is sent again once, as
 * Node's documentation of `reusedSocket` advises; a failure after an answer began, any other, or a second one rejects.
 */
function post(agent: Agent, mock: MockProcess, body: string, session: string, retried = false): Promise<{ status: number; type?: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: mock.host,
        port: mock.port,
        method: 'POST',
        path: CREATE_PATHS['test-samples'],
        agent,
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Mock-Session': session,
        },
      },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text.length < 4096 ? (text += chunk) : undefined));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve(status === 201 ? { status } : { status, type: String((JSON.parse(text) as { type?: string }).type) });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      const race = req.reusedSocket && !answered && !retried && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      if (race) post(agent, mock, body, session, true).then(resolve, reject);
      else reject(error);
    });
    req.end(body);
  });
}

function count<T>(values: T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

describe('hardening: floods against the default limits (RSS ceiling 512 MiB)', function () {
  this.timeout(90_000);
  let mock: MockProcess;
  let lot: number;
  beforeEach(async () => {
    mock = await startMockProcess(['--quiet']);
    lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
  });
  afterEach(() => mock.stop());

  const peak = () => treeMemory(mock.child.pid ?? 0).peakRss;

  it('valid 1 MiB creates across 100 sessions: 201 until 128 MiB are recorded, then 507 mock-full; memory bounded', async () => {
    const normal = normalClient(mock);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const body = exactSizeSample(lot, ONE_MIB);
    const answers: { status: number; type?: string }[] = [];
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 300) {
            const i = next++;
            answers.push(await post(agent, mock, body, `flood-${i % 99}`));
          }
        }),
      );
    } finally {
      agent.destroy();
    }
    const { statuses, atLimit } = await normal.stop();
    assert.equal(atLimit, 0, 'this flood leaves room for another connection: never refused at the limit');
    const byStatus = count(answers.map((a) => `${a.status} ${a.type ?? ''}`.trim()));
    const created = answers.filter((a) => a.status === 201).length;
    assert.deepEqual(Object.keys(byStatus).sort(), ['201', '507 https://goods.example/problems/mock-full'], JSON.stringify(byStatus));
    assert.ok(created >= 120 && created <= 128, `${created} creates of 1 MiB fit in 128 MiB`);
    assert.deepEqual(count(statuses), { 200: statuses.length }, 'the normal client was answered 200 throughout');
    const rss = peak();
    assert.ok(rss < RSS_CEILING, `peak RSS ${(rss / MiB).toFixed(0)} MiB under ${RSS_CEILING / MiB} MiB`);
    process.stdout.write(`      flood of 1 MiB creates: ${JSON.stringify(byStatus)}, peak RSS ${(rss / MiB).toFixed(0)} MiB\n`);
    assert.ok(mock.alive());
  });

  it('2,000 connections stalling just under 1 MiB into their body: 503 mock-busy past the limits; memory bounded', async () => {
    const normal = normalClient(mock, lot);
    const sockets: Socket[] = [];
    const answers: string[] = [];
    /**
     * The connections that ended without an answer (refused by the kernel's accept backlog, or reset), each as
     * how it ended: the socket error's code, or "closed", and whether it had connected (a failure says why).
     */
    const unanswered: string[] = [];
    const chunk = Buffer.alloc(ONE_MIB - 1024, 0x20);
    const head = (n: number) =>
      `POST ${CREATE_PATHS['test-samples']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${ONE_MIB}\r\nX-Mock-Session: stall-${n % 50}\r\n\r\n`;
    const timers: NodeJS.Timeout[] = [];
    try {
      const settled = Promise.all(
        Array.from(
          { length: 2000 },
          (_, n) =>
            new Promise<void>((resolve) => {
              const socket = connect({ host: mock.host, port: mock.port });
              sockets.push(socket);
              let text = '';
              let answered = false;
              socket.on('data', (data: Buffer) => {
                text += data.toString('latin1');
                const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
                if (status && text.includes('\r\n\r\n') && !answered) {
                  answered = true;
                  answers.push(`${status} ${/"type":"([^"]+)"/.exec(text)?.[1] ?? ''}`);
                  resolve();
                }
              });
              const ended = (error?: NodeJS.ErrnoException): void => {
                if (!answered)
                  unanswered.push(
                    `${socket.connecting ? 'before connecting' : 'connected'}: ${error ? (error.code ?? error.message) : 'closed'}`,
                  );
                answered = true;
                resolve();
              };
              socket.on('error', ended);
              socket.on('close', () => ended());
              socket.once('connect', () => {
                socket.write(head(n));
                socket.write(chunk);
                // Stalled: never sends the last KiB. Settled once answered or closed; a connection that holds
                // the in-flight budget is never answered, so it settles after 15 s (a loaded machine may
                // take seconds to answer all 2,000).
                timers.push(setTimeout(resolve, 15_000));
              });
            }),
        ),
      );
      // Done waiting once at most the in-flight budget's worth of connections is still unanswered (polled), or
      // once every connection settled (15 s at most): no fixed wait for the ones that hold the budget.
      await Promise.race([
        settled,
        until(() => 2000 - answers.length - unanswered.length <= 100, { what: 'the flood answered', timeoutMs: 16_000 }).catch(
          () => settled,
        ),
      ]);
      // A second to see late answers too (each must still be a 503) and the memory after the flood.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const rss = peak();
      const { statuses, atLimit, slowestMs } = await normal.stop();
      const byAnswer = count(answers);
      // Still open and unanswered: the connections whose bodies hold the in-flight budget (32 MiB of ~1 MiB bodies).
      const open = 2000 - answers.length - unanswered.length;
      process.stdout.write(
        `      stalled bodies: ${JSON.stringify(byAnswer)}, ${open} holding the budget, ${unanswered.length} ended unanswered ${JSON.stringify(count(unanswered))}, peak RSS ${(rss / MiB).toFixed(0)} MiB; the normal client refused at the connection limit ${atLimit} time(s), its slowest answer ${Math.round(slowestMs)} ms\n`,
      );
      for (const answer of Object.keys(byAnswer)) assert.match(answer, /^503 https:\/\/goods\.example\/problems\/mock-busy$/);
      assert.ok(open <= 100, `${open} connections hold bodies: at most the in-flight budget's worth`);
      assert.ok(
        (byAnswer['503 https://goods.example/problems/mock-busy'] ?? 0) >= 1500,
        `past the limits, answered 503 (unanswered: ${JSON.stringify(count(unanswered))})`,
      );
      assert.ok(rss < RSS_CEILING, `peak RSS ${(rss / MiB).toFixed(0)} MiB under ${RSS_CEILING / MiB} MiB`);
      assert.ok(statuses.length > 0);
      const normalCounts = count(statuses);
      assert.ok((normalCounts['201'] ?? 0) > 0, JSON.stringify(normalCounts));
      assert.equal(
        (normalCounts['200'] ?? 0) + (normalCounts['201'] ?? 0),
        statuses.length,
        `the normal client: ${JSON.stringify(normalCounts)}`,
      );
      assert.ok(mock.alive());
    } finally {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
    }
  });

  /**
   * 1,000 valid 1 MiB creates opened at once, one connection each. A body is held
   * from its first byte until answered; one whose declared length cannot fit is refused before it is
   * read. Only the 201s are listed (nothing refused is recorded) and the peak stays under the ceiling.
   */
  const burstOf1MiB = async (label: string, allowed: RegExp, full: boolean): Promise<Record<string, number>> => {
    const normal = normalClient(mock);
    const answers = await burst(mock.url, {
      count: 1000,
      lot,
      token: TOKEN,
      tag: label,
      session: (i) => `burst-${i % 50}`,
      sampleBytes: ONE_MIB,
      timeoutMs: 60_000,
    });
    const rss = peak();
    const { statuses, atLimit } = await normal.stop();
    assert.equal(atLimit, 0, 'this flood leaves room for another connection: never refused at the limit');
    const counts = tally(answers);
    process.stdout.write(`      ${label}: ${JSON.stringify(counts)}, peak RSS ${(rss / MiB).toFixed(0)} MiB\n`);
    for (const key of Object.keys(counts)) assert.match(key, allowed, JSON.stringify(counts));
    const unanswered = answers.filter((a) => a.status === 0).length;
    assert.ok(unanswered <= 10, `${unanswered} creates got no answer (a connection reset now and then, not more)`);
    const result = await reconcile(mock.url, answers);
    const created = answers.filter((a) => a.status === 201).length;
    assert.deepEqual(result.refusedButListed, [], 'no refused create is listed');
    assert.deepEqual(result.lost, [], 'every 201 is listed');
    assert.deepEqual(result.duplicateIds, [], 'ids unique');
    assert.equal(result.listed, created + result.unansweredButListed.length, `${created} answered 201, ${result.listed} listed`);
    if (full) assert.equal(created, 0, 'a full mock records nothing');
    assert.ok(rss < RSS_CEILING, `peak RSS ${(rss / MiB).toFixed(0)} MiB under ${RSS_CEILING / MiB} MiB`);
    assert.deepEqual(count(statuses), { 200: statuses.length }, 'the normal client was answered 200 throughout');
    assert.ok(mock.alive());
    return counts;
  };

  it('1,000 valid 1 MiB creates opened at once: 201, 503 mock-busy or 507 mock-full; only the 201s listed; memory bounded', async () => {
    const counts = await burstOf1MiB('burst-fresh', /^(201|503 mock-busy|507 mock-full|no answer .*)$/, false);
    assert.ok((counts['201'] ?? 0) > 0 && (counts['503 mock-busy'] ?? 0) > 0, 'some created, some refused as busy');
  });

  it('the same burst against a full mock: 503 mock-busy or 507 mock-full, nothing recorded; memory bounded', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const body = exactSizeSample(lot, ONE_MIB);
    try {
      for (let full = false; !full;) {
        const answers = await Promise.all(Array.from({ length: 8 }, () => post(agent, mock, body, 'fill')));
        full = answers.some((a) => a.status === 507);
      }
    } finally {
      agent.destroy();
    }
    await burstOf1MiB('burst-full', /^(503 mock-busy|507 mock-full|no answer .*)$/, true);
  });

  it("a huge session's listing pages (≤ 8 MiB a page, Link rel=next) instead of failing; memory bounded", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const body = exactSizeSample(lot, ONE_MIB);
    let created = 0;
    try {
      for (let full = false; !full;) {
        const answers = await Promise.all(Array.from({ length: 8 }, () => post(agent, mock, body, 'huge')));
        created += answers.filter((a) => a.status === 201).length;
        full = answers.some((a) => a.status === 507);
      }
    } finally {
      agent.destroy();
    }
    const normal = normalClient(mock);
    let next: string | undefined = '/__mock/test-samples';
    let listed = 0;
    let pages = 0;
    while (next !== undefined) {
      const response: Response = await fetch(`${mock.url}${next}`, { headers: { 'X-Mock-Session': 'huge' } });
      assert.equal(response.status, 200);
      const text = await response.text();
      assert.ok(text.length <= 9 * MiB + 1024, `a page of ${text.length} bytes`);
      listed += (JSON.parse(text) as unknown[]).length;
      pages++;
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    }
    const { statuses, atLimit } = await normal.stop();
    assert.equal(atLimit, 0, 'this flood leaves room for another connection: never refused at the limit');
    const rss = peak();
    process.stdout.write(`      huge session: ${created} records of 1 MiB in ${pages} pages, peak RSS ${(rss / MiB).toFixed(0)} MiB\n`);
    assert.equal(listed, created, 'every record listed once over the pages');
    assert.ok(pages >= 14, `${pages} pages`);
    assert.deepEqual(count(statuses), { 200: statuses.length });
    assert.ok(rss < RSS_CEILING, `peak RSS ${(rss / MiB).toFixed(0)} MiB under ${RSS_CEILING / MiB} MiB`);
  });
});
