/**
 * A large body is held from its first byte until it has been parsed and checked (then what the create
 * holds counts against the answer budget, `answer-budget.test.ts`), and one whose declared length
 * cannot fit is refused before any of it is read.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { MockServer } from './server.js';
import { JSON_AUTH, rawRequest, SAMPLES_PATH, startMock } from './testing.js';

const KiB = 1024;

/** A valid test sample of exactly `bytes` bytes (padded notes). */
function sample(lot: number, bytes: number): string {
  const head = `{"fk_lot_id":${lot},"fk_user_id":1,"notes":"`;
  return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
}

/**
 * Sends only the head of a create declaring `length` body bytes, never its body; resolves with the
 * answer (a mock that waited to read the body would never answer).
 */
function headOnly(mock: MockServer, length: number): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: mock.host,
        port: mock.port,
        method: 'POST',
        path: SAMPLES_PATH,
        agent: false,
        headers: { ...JSON_AUTH, 'Content-Length': length },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String((JSON.parse(text) as { type?: string }).type) }));
      },
    );
    req.on('error', reject);
    // The head goes out now; the body never does.
    req.flushHeaders();
  });
}

/**
 * Sends a create of `body` all but its last byte (held by the mock while it waits for the rest);
 * `sent` resolves once those bytes left, `finish()` sends the last byte and resolves with the status.
 */
function partial(mock: MockServer, body: string): { sent: Promise<void>; finish(): Promise<number> } {
  let status!: (code: number) => void;
  const answered = new Promise<number>((resolve) => (status = resolve));
  const req = request(
    {
      host: mock.host,
      port: mock.port,
      method: 'POST',
      path: SAMPLES_PATH,
      agent: false,
      headers: { ...JSON_AUTH, 'Content-Length': Buffer.byteLength(body) },
    },
    (res) => {
      res.resume();
      status(res.statusCode ?? 0);
    },
  );
  req.on('error', () => status(0));
  const sent = new Promise<void>((resolve) => req.write(body.slice(0, -1), () => setTimeout(resolve, 200)));
  return {
    sent,
    finish() {
      req.end(body.slice(-1));
      return answered;
    },
  };
}

describe('mock/body-budget: bodies held while read, until parsed and checked (--max-body-bytes-in-flight)', function () {
  this.timeout(20_000);
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('refuses a declared length that cannot fit with 503 mock-busy before reading a byte of it', async () => {
    mock = await startMock({ maxBodyBytesInFlight: 100 * KiB });
    const answer = await headOnly(mock, 200 * KiB);
    assert.equal(answer.status, 503);
    assert.match(answer.type, /mock-busy$/);
  });

  it('holds a body while it is read, and gives it back once parsed and checked, before its answer (2 s of latency) goes out', async () => {
    const server = (mock = await startMock({ maxBodyBytesInFlight: 200 * KiB, latencyMs: 2000 }));
    const lot = server.lotIds[0] ?? 0;
    const body = sample(lot, 150 * KiB);
    const post = () => rawRequest(server.url, { method: 'POST', path: SAMPLES_PATH, headers: JSON_AUTH, body });
    const first = partial(server, body);
    await first.sent;
    const second = await post();
    assert.equal(second.status, 503, 'a second body does not fit while the first is being read');
    assert.match(second.body, /mock-busy/);
    const answered = first.finish();
    // The first body is complete, parsed and checked: it waits 2 s for its answer without holding the budget.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = post();
    assert.equal(await answered, 201);
    assert.equal((await third).status, 201, 'the parsed body gave its share back before its answer went out');
  });

  it('never charges a small body: creates of up to 64 KiB pass while a large body fills the budget', async () => {
    const server = (mock = await startMock({ maxBodyBytesInFlight: 100 * KiB }));
    const lot = server.lotIds[0] ?? 0;
    const url = server.url;
    const large = partial(server, sample(lot, 90 * KiB));
    await large.sent;
    // Sent together while the large one is held: the small one passes, a second large one does not.
    const [small, tooMany] = await Promise.all([
      rawRequest(url, { method: 'POST', path: SAMPLES_PATH, headers: JSON_AUTH, body: sample(lot, 64 * KiB) }),
      rawRequest(url, { method: 'POST', path: SAMPLES_PATH, headers: JSON_AUTH, body: sample(lot, 65 * KiB) }),
    ]);
    assert.equal(small.status, 201, small.body);
    assert.equal(tooMany.status, 503, 'a second large body does not fit');
    assert.equal(await large.finish(), 201);
  });

  it('charges a chunked body (no declared length) as it arrives and refuses it once it passes', async () => {
    const server = (mock = await startMock({ maxBodyBytesInFlight: 100 * KiB }));
    const lot = server.lotIds[0] ?? 0;
    /** Sends `body` chunked (no Content-Length), 16 KiB a chunk; resolves with the answer's status. */
    const chunked = (body: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            host: server.host,
            port: server.port,
            method: 'POST',
            path: SAMPLES_PATH,
            agent: false,
            headers: { ...JSON_AUTH, 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        for (let at = 0; at < body.length; at += 16 * KiB) req.write(body.slice(at, at + 16 * KiB));
        req.end();
      });
    assert.equal(await chunked(sample(lot, 200 * KiB)), 503);
    assert.equal(await chunked(sample(lot, 90 * KiB)), 201, 'the refused body released what it held');
  });
});
