/**
 * Answers that wait for their client, against the mock's CLI in a child process with its default
 * limits (`floods.test.ts` measures the same way, through /proc):
 *
 * - 120 clients ask for a listing page of several MiB (`GET /__mock/lot-transfers` of a full session,
 *   no token needed) and never read it: the answers are streamed with backpressure and count against
 *   `--max-answer-bytes-in-flight`, so the peak resident memory stays under the documented ceiling
 *   (before: each page was copied whole for each reader, 1,182 MiB);
 * - 32 creates of 1 MiB answered with `Prefer: fault=drip:10` (about 29 hours each) stay open while
 *   another session's 1 MiB create is answered 201 (before: the dripping creates held the body budget
 *   until their answers were out, and every other create over 64 KiB got 503).
 *
 * Loop counts and waits are bounded; loopback only.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { treeMemory } from '../../support/proc-memory.js';
import { until } from '../../support/wait.js';
import { burst, tally } from './support/burst.js';
import { CREATE_PATHS, ONE_MIB, ORDER_PATH } from './support/corpus-types.js';
import { RSS_CEILING } from './support/ceiling.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';

const TOKEN = 'slow-answers-token';
const MiB = 1024 * 1024;

/** A valid lot transfer of exactly `size` bytes (its source scan code padded). */
function exactSizeTransfer(lot: number, size: number, tag: string): string {
  const head = `{"fk_lot_id":${lot},"target_scancode":"T","amount":1,"source_scancode":"${tag} `;
  return `${head}${'x'.repeat(size - head.length - 2)}"}`;
}

/** The counts of each value. */
function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Order info every 50 ms while `stop` is not called; answers the statuses it got. */
function normalClient(mock: MockProcess, order: string) {
  const statuses: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const answer = await fetch(`${mock.url}${ORDER_PATH}${encodeURIComponent(order)}`, {
          headers: { Authorization: `Bearer ${TOKEN}` },
          signal: AbortSignal.timeout(10_000),
        });
        await answer.arrayBuffer();
        statuses.push(String(answer.status));
      } catch (error) {
        statuses.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop(): Promise<string[]> {
      running = false;
      await loop;
      return statuses;
    },
  };
}

describe('hardening: answers that wait for their client (default limits, RSS ceiling 512 MiB)', function () {
  this.timeout(120_000);
  let mock: MockProcess;
  let lot: number;
  let order: string;
  beforeEach(async () => {
    mock = await startMockProcess(['--quiet']);
    const target = await discoverTarget(mock.url, TOKEN);
    lot = target.lotIds[0] ?? 0;
    order = target.orderNumbers[0] ?? '';
  });
  afterEach(() => mock.stop());

  it('120 readers of a full session listing (8 MiB pages) that never read: 200 or 503 mock-busy, memory under the ceiling', async () => {
    // A full session: 1 MiB transfers until --max-recorded-bytes (128 MiB) answers 507.
    const body = (i: number) => exactSizeTransfer(lot, ONE_MIB, `huge-${i}`);
    let created = 0;
    for (let full = false, i = 0; !full; i += 8) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          fetch(`${mock.url}${CREATE_PATHS['lot-transfers']}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', 'X-Mock-Session': 'huge' },
            body: body(i + k),
          }).then(async (answer) => {
            await answer.arrayBuffer();
            return answer.status;
          }),
        ),
      );
      created += answers.filter((status) => status === 201).length;
      full = answers.includes(507);
      assert.ok(
        answers.every((status) => status === 201 || status === 507),
        answers.join(', '),
      );
    }
    assert.ok(created >= 120, `${created} records of 1 MiB`);

    const normal = normalClient(mock, order);
    const sockets: Socket[] = [];
    try {
      // 120 connections ask for the first page (8 MiB) and never read: nothing listens for their data.
      await Promise.all(
        Array.from(
          { length: 120 },
          () =>
            new Promise<void>((resolve) => {
              const socket = connect({ host: mock.host, port: mock.port }, () => {
                socket.write('GET /__mock/lot-transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Mock-Session: huge\r\n\r\n');
                resolve();
              });
              socket.on('error', () => resolve());
              sockets.push(socket);
            }),
        ),
      );
      // The mock answers them all (a page each, or a 503); its memory then stays where it is while nobody reads.
      let last = 0;
      await until(
        () => {
          const rss = treeMemory(mock.child.pid ?? 0).rss;
          const steady = Math.abs(rss - last) < 4 * MiB;
          last = rss;
          return steady;
        },
        { what: 'the mock settled', timeoutMs: 20_000, intervalMs: 1000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const peak = treeMemory(mock.child.pid ?? 0).peakRss;
      const statuses = await normal.stop();
      // Now read each answer's status line, then close.
      const answers = await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<string>((resolve) => {
              let text = '';
              const done = (value: string) => {
                socket.destroy();
                resolve(value);
              };
              socket.on('data', (data: Buffer) => {
                text += data.toString('latin1', 0, Math.min(data.length, 2048));
                const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
                if (status === '200') done('200');
                else if (status && /"type":"[^"]*"/.test(text)) done(`${status} ${/"type":"[^"]*\/([^"/]+)"/.exec(text)?.[1] ?? ''}`);
              });
              socket.on('close', () => done(text === '' ? 'no answer' : `unreadable: ${text.slice(0, 40)}`));
              setTimeout(() => done('no answer within 10 s'), 10_000);
            }),
        ),
      );
      const byAnswer = count(answers);
      process.stdout.write(
        `      120 listing readers that never read (${created} records of 1 MiB): ${JSON.stringify(byAnswer)}, peak RSS ${(peak / MiB).toFixed(0)} MiB\n`,
      );
      for (const answer of Object.keys(byAnswer)) assert.match(answer, /^(200|503 mock-busy)$/, JSON.stringify(byAnswer));
      assert.ok((byAnswer['200'] ?? 0) >= 1, 'readers are served while the budget has room');
      assert.ok(peak < RSS_CEILING, `peak RSS ${(peak / MiB).toFixed(0)} MiB under ${RSS_CEILING / MiB} MiB`);
      assert.deepEqual(count(statuses), { 200: statuses.length }, 'order info answered 200 throughout');
      assert.ok(mock.alive());
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // Once they are gone, a reader gets the whole first page again.
    await until(
      async () => {
        const page = await fetch(`${mock.url}/__mock/lot-transfers`, { headers: { 'X-Mock-Session': 'huge' } });
        const records = (await page.json()) as unknown[];
        return page.status === 200 && records.length === 7;
      },
      { what: 'a whole page (7 records of 1 MiB) once the readers left', timeoutMs: 10_000, intervalMs: 200 },
    );
  });

  it("another session's 1 MiB create is answered 201 while 32 creates of 1 MiB drip their answers at 10 bytes/s", async () => {
    const sockets: Socket[] = [];
    try {
      // 32 dripping creates, each on its own connection: their 201 heads arrive, their bodies take about 29 hours.
      const heads = await Promise.all(
        Array.from(
          { length: 32 },
          (_, i) =>
            new Promise<string>((resolve) => {
              const body = exactSizeTransfer(lot, ONE_MIB, `drip-${i}`);
              const socket = connect({ host: mock.host, port: mock.port }, () => {
                socket.write(
                  `POST ${CREATE_PATHS['lot-transfers']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
                    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Mock-Session: dripper\r\n` +
                    `Prefer: fault=drip:10\r\n\r\n`,
                );
                socket.write(body);
              });
              sockets.push(socket);
              let text = '';
              socket.on('data', (data: Buffer) => {
                text += data.toString('latin1');
                const head = /^HTTP\/1\.1 (\d{3})[^]*?\r\nX-Mock-Fault: ([^\r]*)\r\n[^]*?\r\n\r\n/i.exec(text);
                if (head) resolve(`${head[1]} ${head[2]}`);
                else if (/^HTTP\/1\.1 \d{3}[^]*?\r\n\r\n/.test(text)) resolve(text.slice(0, 12));
              });
              socket.on('error', (error) => resolve(`error ${error.message}`));
              socket.on('close', () => resolve('closed'));
            }),
        ),
      );
      assert.deepEqual(count(heads), { '201 drip:10; prefer': 32 }, 'the 32 creates are answered, dripping');

      // Other sessions: 1 MiB creates (answered whole, 201), four at once, each on its own connection, and order info.
      const others = tally(
        await burst(mock.url, { count: 4, lot, token: TOKEN, tag: 'other', session: (i) => `other-${i}`, sampleBytes: ONE_MIB }),
      );
      assert.deepEqual(others, { 201: 4 }, 'other sessions: 1 MiB creates answered 201 while 32 drips are open');
      const info = await fetch(`${mock.url}${ORDER_PATH}${encodeURIComponent(order)}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(info.status, 200);
      await info.arrayBuffer();
      assert.ok(
        sockets.every((socket) => !socket.destroyed),
        'the 32 drips are still open',
      );
      const peak = treeMemory(mock.child.pid ?? 0).peakRss;
      process.stdout.write(
        `      32 dripping 1 MiB creates open: 4 other sessions' 1 MiB creates ${JSON.stringify(others)}, peak RSS ${(peak / MiB).toFixed(0)} MiB\n`,
      );
      assert.ok(peak < RSS_CEILING);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
