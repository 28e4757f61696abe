import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Capture, headerRecord } from './seen.js';
import { MAX_JUDGED_BYTES } from './exchange.js';

/** What Node's server makes of a request carrying `raw` (sent byte for byte): its `headers` and the `rawHeaders` it read. */
async function nodeReading(raw: readonly [string, string][]): Promise<{ headers: IncomingHttpHeaders; rawHeaders: string[] }> {
  let seen: { headers: IncomingHttpHeaders; rawHeaders: string[] } | undefined;
  const server = createServer((req, res) => {
    seen = { headers: req.headers, rawHeaders: req.rawHeaders };
    res.end();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  try {
    const { port } = server.address() as AddressInfo;
    const head = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${raw.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
    const answer = await new Promise<string>((done, fail) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(head));
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => done(text));
      socket.on('error', fail);
    });
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.ok(seen, 'the server saw the request');
    return seen;
  } finally {
    server.close();
  }
}

describe('mock/proxy/seen', () => {
  it('reads raw headers as Node reads them: names lower case, repeats joined or dropped', async () => {
    const raw: [string, string][] = [
      ['X-Trace', 'a'],
      ['x-trace', 'b'],
      ['X-TRACE', 'c'],
      ['Content-Type', 'application/json'],
      ['content-type', 'text/plain'],
      ['Cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['Authorization', 'Bearer one'],
      ['AUTHORIZATION', 'Bearer two'],
      ['Accept', 'text/html'],
      ['accept', 'application/json'],
    ];
    // Twice: the second time the names' lower case comes from what the first call remembered.
    for (let round = 0; round < 2; round++) {
      const node = await nodeReading(raw);
      assert.deepEqual({ ...headerRecord(node.rawHeaders) }, { ...node.headers });
      const record = headerRecord(raw.flat());
      assert.equal(record['x-trace'], 'a, b, c');
      assert.equal(record['content-type'], 'application/json');
      assert.equal(record['cookie'], 'a=1; b=2');
      assert.equal(record['authorization'], 'Bearer one');
      assert.equal(record['accept'], 'text/html, application/json');
    }
  });

  it('lowers names it does not remember (many distinct, or long ones) all the same', () => {
    const raw: string[] = [];
    for (let i = 0; i < 600; i++) raw.push(`X-Name-${i}`, String(i));
    raw.push(`X-${'Long'.repeat(40)}`, 'long');
    const record = headerRecord(raw);
    assert.equal(Object.keys(record).length, 601);
    assert.equal(record['x-name-599'], '599');
    assert.equal(record[`x-${'long'.repeat(40)}`], 'long');
    assert.ok(Object.keys(record).every((name) => name === name.toLowerCase()));
  });

  it('captures a body up to MAX_JUDGED_BYTES and says whether it is whole', () => {
    const capture = new Capture();
    capture.add(Buffer.alloc(MAX_JUDGED_BYTES - 1, 1));
    assert.equal(capture.complete, true);
    capture.add(Buffer.from([2, 3]));
    assert.equal(capture.complete, false);
    assert.equal(capture.size, MAX_JUDGED_BYTES);
    const bytes = capture.bytes();
    assert.equal(bytes.length, MAX_JUDGED_BYTES);
    assert.equal(bytes[bytes.length - 1], 2);
  });
});
