/**
 * Safe defaults of the mock's CLI: loopback unless --host, 1 MiB body limit (413), 16 KiB
 * header limit (431), every kind of problem answered without internals, and POST /__mock/reset
 * protected by --admin-token.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { PROBLEMS } from '../../mock/problems.js';
import { BOOKS_CONTRACT, contractFile, grownContract } from '../../support/grown-contracts.js';
import { leakIn } from './support/answers.js';
import { exactSizeSample } from './support/corpus-bodies.js';
import { CREATE_PATHS, ONE_MIB, ORDER_PATH } from './support/corpus-types.js';
import { requestBytes, type HeaderList } from './support/http-bytes.js';
import { startMockProcess, type MockProcess } from './support/mock-process.js';
import { rawExchange, type RawOutcome } from './support/raw-http.js';
import { discoverTarget, listings } from './support/run-corpus.js';

const TOKEN = 'safe-token';
const ADMIN = 'admin-secret';
const AUTH: [string, string] = ['Authorization', `Bearer ${TOKEN}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];

function send(
  mock: MockProcess,
  data: Buffer | Buffer[],
  extra: { stopOnAnswer?: boolean; waitForEarlyAnswerMs?: number } = {},
): Promise<RawOutcome> {
  return rawExchange({ host: mock.host, port: mock.port, data, after: 'keep', timeoutMs: 10_000, ...extra });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('hardening: safe defaults of the mock CLI', function () {
  this.timeout(60_000);
  let mock: MockProcess;
  let lot: number;
  before(async () => {
    mock = await startMockProcess(['--quiet', '--admin-token', ADMIN, '--max-sessions', '1']);
    lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
  });
  after(() => mock.stop());

  it('listens on 127.0.0.1 without --host, and is not reachable on the other interfaces', async function () {
    assert.equal(mock.host, '127.0.0.1');
    assert.ok(await canConnect('127.0.0.1', mock.port));
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
      .map((a) => a?.address ?? '');
    if (others.length === 0) this.skip(); // no non-loopback interface on this machine to try
    for (const address of others) assert.equal(await canConnect(address, mock.port), false, `not reachable on ${address}`);
  });

  it('accepts a body of exactly 1 MiB and answers 413 problem past it, declared or chunked', async () => {
    const exact = await send(
      mock,
      requestBytes({
        method: 'POST',
        target: CREATE_PATHS['test-samples'],
        headers: [AUTH, JSON_TYPE],
        body: exactSizeSample(lot, ONE_MIB),
      }),
    );
    assert.equal(exact.answer?.status, 201);
    const over = exactSizeSample(lot, ONE_MIB + 1);
    const declared = await send(
      mock,
      [
        requestBytes({ method: 'POST', target: CREATE_PATHS['test-samples'], headers: [AUTH, JSON_TYPE], contentLength: over.length }),
        Buffer.from(over),
      ],
      {
        stopOnAnswer: true,
        waitForEarlyAnswerMs: 5000,
      },
    );
    const head = requestBytes({
      method: 'POST',
      target: CREATE_PATHS['test-samples'],
      headers: [AUTH, JSON_TYPE, ['Transfer-Encoding', 'chunked']],
      contentLength: null,
    });
    const chunks: Buffer[] = [head];
    for (let i = 0; i < over.length; i += 65536) {
      const part = over.slice(i, i + 65536);
      chunks.push(Buffer.from(`${part.length.toString(16)}\r\n${part}\r\n`));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    const chunked = await send(mock, chunks, { stopOnAnswer: true });
    for (const outcome of [declared, chunked]) {
      assert.equal(outcome.answer?.status, 413);
      assert.equal(outcome.answer.headers['content-type'], 'application/problem+json');
    }
    assert.ok(mock.alive());
  });

  it('answers 431 problem to headers over 16 KiB, and survives 1 MiB of headers', async () => {
    const order = `${ORDER_PATH}${encodeURIComponent('ORD-2026-0001')}`;
    const over = await send(mock, requestBytes({ method: 'GET', target: order, headers: [AUTH, ['X-Big', 'x'.repeat(17 * 1024)]] }));
    assert.equal(over.answer?.status, 431);
    assert.equal(over.answer.headers['content-type'], 'application/problem+json');
    const headers: HeaderList = Array.from({ length: 1024 }, (_, i) => [`X-H${i}`, 'y'.repeat(1000)]);
    const huge = requestBytes({ method: 'GET', target: order, headers: [AUTH, ...headers] });
    const parts: Buffer[] = [];
    for (let i = 0; i < huge.length; i += 65536) parts.push(huge.subarray(i, i + 65536));
    const flood = await send(mock, parts, { stopOnAnswer: true });
    // 431, or the connection closed while the client was still sending (Node has no lingering close).
    if (flood.answer) assert.equal(flood.answer.status, 431);
    else assert.ok(['closed', 'reset'].includes(flood.ended), flood.ended);
    assert.ok(mock.alive());
    assert.equal((await fetch(`${mock.url}/__mock/health`)).status, 200, 'still serving');
  });

  it('answers every kind of problem in the catalogue as problem+json without internals', async () => {
    const order = (n: string) => `${ORDER_PATH}${encodeURIComponent(n)}`;
    const body = JSON.stringify({ fk_lot_id: lot, fk_user_id: 1 });
    const post = (headers: HeaderList, text = body) =>
      requestBytes({ method: 'POST', target: CREATE_PATHS['test-samples'], headers, body: text });
    const requests: [string, Buffer | Buffer[]][] = [
      ['invalid body', post([AUTH, JSON_TYPE], '{"fk_lot_id":"x"}')],
      ['malformed JSON', post([AUTH, JSON_TYPE], '{')],
      ['invalid path', Buffer.from('OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')],
      ['invalid session', post([AUTH, JSON_TYPE, ['X-Mock-Session', 'a b']])],
      ['invalid Prefer', requestBytes({ method: 'GET', target: order('ORD-2026-0001'), headers: [AUTH, ['Prefer', 'code=599']] })],
      ['unauthorized', requestBytes({ method: 'GET', target: order('ORD-2026-0001') })],
      ['not found', requestBytes({ method: 'GET', target: '/no/such/path', headers: [AUTH] })],
      ['order not found', requestBytes({ method: 'GET', target: order('NO-SUCH-ORDER'), headers: [AUTH] })],
      ['method not allowed', requestBytes({ method: 'DELETE', target: CREATE_PATHS['test-samples'], headers: [AUTH] })],
      [
        'payload too large',
        requestBytes({ method: 'POST', target: CREATE_PATHS['test-samples'], headers: [AUTH, JSON_TYPE], contentLength: 2 * ONE_MIB }),
      ],
      ['unsupported media type', post([AUTH, ['Content-Type', 'text/plain']])],
      ['unknown lot', post([AUTH, JSON_TYPE], '{"fk_lot_id":987654321,"fk_user_id":1}')],
      ['session one of one', post([AUTH, JSON_TYPE, ['X-Mock-Session', 'first']])],
      ['too many sessions', post([AUTH, JSON_TYPE, ['X-Mock-Session', 'second']])],
      ['not HTTP', Buffer.from([0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a])],
      ['headers too large', requestBytes({ method: 'GET', target: '/', headers: [['X-Big', 'z'.repeat(20_000)]] })],
      ['invalid query', requestBytes({ method: 'GET', target: '/__mock/lot-transfers?limit=many' })],
      ['foreign origin', requestBytes({ method: 'GET', target: '/__mock/health', headers: [['Origin', 'http://evil.test']] })],
      ['reset not confirmed', requestBytes({ method: 'POST', target: '/__mock/reset', headers: [['Authorization', `Bearer ${ADMIN}`]] })],
      ['misdirected request', Buffer.from('GET /__mock/health HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n')],
      // Injected faults (docs/faults.md): a fault the catalogue refuses, each injected server error, a session's most rules.
      ['invalid fault', requestBytes({ method: 'GET', target: order('ORD-2026-0001'), headers: [AUTH, ['Prefer', 'fault=teapot']] })],
      ...['500', '502', '503', '504'].map((status): [string, Buffer] => [
        `injected ${status}`,
        requestBytes({ method: 'GET', target: order('ORD-2026-0001'), headers: [AUTH, ['Prefer', `fault=status:${status}`]] }),
      ]),
      ...Array.from({ length: 21 }, (_, n): [string, Buffer] => [
        n < 20 ? 'a fault rule' : 'fault rules full',
        requestBytes({
          method: 'POST',
          target: '/__mock/faults',
          headers: [['Authorization', `Bearer ${ADMIN}`], JSON_TYPE, ['X-Mock-Session', 'faults']],
          body: '{"fault":"drop","operations":["createTestSample"]}',
        }),
      ]),
      [
        'fault rules cleared',
        requestBytes({
          method: 'DELETE',
          target: '/__mock/faults',
          headers: [
            ['Authorization', `Bearer ${ADMIN}`],
            ['X-Mock-Session', 'faults'],
          ],
        }),
      ],
    ];
    const seen = new Set<string>();
    /** Sends one request: it is answered, leaks nothing, and an error is a problem+json whose type is noted. */
    const check = async (label: string, target: MockProcess, data: Buffer | Buffer[]): Promise<void> => {
      const outcome = await send(target, data);
      assert.ok(outcome.answer, `${label}: answered`);
      const text = outcome.answer.body.toString('utf8');
      assert.equal(leakIn(text), undefined, `${label}: ${text}`);
      if (outcome.answer.status < 400) return;
      assert.equal(outcome.answer.headers['content-type'], 'application/problem+json', label);
      seen.add(String((JSON.parse(text) as Record<string, unknown>)['type']));
    };
    for (const [label, data] of requests) await check(label, mock, data);
    // The resource limits (records, bytes in flight) and the shared store, each on a mock set up to reach it.
    const storeDown = await startMockProcess(['--quiet', '--store', 'redis://127.0.0.1:1/0']);
    const small = await startMockProcess([
      '--quiet',
      '--max-records-per-session',
      '1',
      '--max-recorded-bytes',
      '1024',
      '--max-body-bytes-in-flight',
      '1024',
    ]);
    try {
      const limitRequests: [string, MockProcess, Buffer][] = [
        ['store unavailable', storeDown, post([AUTH, JSON_TYPE])],
        ['first record of a session', small, post([AUTH, JSON_TYPE, ['X-Mock-Session', 'a']])],
        ['session full', small, post([AUTH, JSON_TYPE, ['X-Mock-Session', 'a']])],
        [
          'mock full',
          small,
          post([AUTH, JSON_TYPE, ['X-Mock-Session', 'b']], JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes: 'n'.repeat(900) })),
        ],
        ['busy', small, post([AUTH, JSON_TYPE], JSON.stringify({ fk_lot_id: lot, fk_user_id: 1, notes: 'n'.repeat(70_000) }))],
      ];
      for (const [label, target, data] of limitRequests) await check(label, target, data);
    } finally {
      await Promise.all([storeDown.stop(), small.stop()]);
    }
    if (existsSync('/dev/full')) {
      const full = await startMockProcess(['--quiet', '--state-file', '/dev/full']);
      try {
        const outcome = await rawExchange({
          host: full.host,
          port: full.port,
          data: post([AUTH, JSON_TYPE]),
          after: 'keep',
          timeoutMs: 10_000,
        });
        assert.equal(leakIn(outcome.answer?.body.toString() ?? ''), undefined);
        seen.add(String((JSON.parse(outcome.answer?.body.toString() ?? '{}') as Record<string, unknown>)['type']));
      } finally {
        await full.stop();
      }
    }
    // The problems of record operations, on a mock of a grown contract (reads, changes, an action) and of
    // the books API (a key the client sends).
    const grown = await startMockProcess(['--quiet', '--contract', contractFile(grownContract(), 'grown')]);
    const books = await startMockProcess(['--quiet', '--contract', BOOKS_CONTRACT]);
    try {
      const transfers = '/goodsReception/rest/v1/lot-transfers';
      const grownLot = (await discoverTarget(grown.url, TOKEN)).lotIds[0] ?? 0;
      const created = await fetch(`${grown.url}${transfers}/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ fk_lot_id: grownLot, source_scancode: 'S', target_scancode: 'T', amount: 1 }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const { id } = (await created.json()) as { id: number };
      const complete = requestBytes({ method: 'POST', target: `${transfers}/${id}/complete`, headers: [AUTH] });
      assert.equal((await send(grown, complete)).answer?.status, 200, 'the first completion');
      const book = JSON.stringify({ isbn: '9780306406157', title: 'T', author: 'A' });
      const basic: [string, string] = ['Authorization', `Basic ${Buffer.from(`reader:${TOKEN}`).toString('base64')}`];
      const addBook = requestBytes({ method: 'POST', target: '/books', headers: [basic, JSON_TYPE], body: book });
      assert.equal((await send(books, addBook)).answer?.status, 201, 'the first book');
      const recordRequests: [string, MockProcess, Buffer][] = [
        ['record not found', grown, requestBytes({ method: 'GET', target: `${transfers}/987654`, headers: [AUTH] })],
        [
          'invalid parameter',
          grown,
          requestBytes({ method: 'GET', target: '/goodsReception/rest/v1/test-samples?fk_lot_id=many', headers: [AUTH] }),
        ],
        ['state conflict', grown, complete],
        ['duplicate key', books, addBook],
      ];
      for (const [label, target, data] of recordRequests) await check(label, target, data);
    } finally {
      await Promise.all([grown.stop(), books.stop()]);
    }
    const reachable = Object.entries(PROBLEMS)
      // requestTimeout (408) takes the 10 s header timeout: test/hardening/concurrency.test.ts answers it.
      .filter(([name]) => name !== 'internal' && name !== 'requestTimeout' && (name !== 'notDurable' || existsSync('/dev/full')))
      // The --proxy mode's problems (upstream unreachable / timed out) are shown by mock/proxy/proxy.test.ts.
      .filter(([name]) => name !== 'upstreamUnreachable' && name !== 'upstreamTimeout')
      // bodyIncomplete goes to a client that has closed its connection: mock/body.test.ts shows it.
      .filter(([name]) => name !== 'bodyIncomplete')
      // storeOutcomeUnknown needs a Redis that stops answering (SIGSTOP): test/hardening/store-outcome.test.ts shows it.
      .filter(([name]) => name !== 'storeOutcomeUnknown')
      .map(([, kind]) => kind.type);
    for (const type of reachable) assert.ok(seen.has(type), `a ${type} problem was answered`);
  });

  it('protects POST /__mock/reset with --admin-token (401 without it, 204 with it); the listings stay readable', async () => {
    const create = await fetch(`${mock.url}${CREATE_PATHS['lot-transfers']}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fk_lot_id: lot, source_scancode: 'S', target_scancode: 'T', amount: 1 }),
    });
    assert.equal(create.status, 201);
    const before = await listings(mock.url);
    assert.ok(before['lot-transfers'].length > 0);
    for (const headers of [
      {},
      { Authorization: `Bearer ${TOKEN}` },
      { Authorization: `Bearer ${ADMIN}x` },
      { Authorization: `Basic ${ADMIN}` },
    ] as Record<string, string>[]) {
      const refused = await fetch(`${mock.url}/__mock/reset`, { method: 'POST', headers });
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer /);
      assert.deepEqual(await listings(mock.url), before, 'a refused reset changes nothing');
    }
    const reset = await fetch(`${mock.url}/__mock/reset`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}`, 'X-Mock-Reset': '1' },
    });
    assert.equal(reset.status, 204);
    assert.deepEqual(await listings(mock.url), { 'lot-transfers': [], 'test-samples': [] });
  });

  it('without --admin-token, /__mock/reset is open (the documented default for local use)', async () => {
    const open = await startMockProcess(['--quiet']);
    try {
      assert.equal((await fetch(`${open.url}/__mock/reset`, { method: 'POST', headers: { 'X-Mock-Reset': '1' } })).status, 204);
    } finally {
      await open.stop();
    }
  });
});
