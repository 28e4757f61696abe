/**
 * mock/framing.ts (`checkFraming`): the framing RFC 9112 forbids and Node's parser lets through,
 * refused with a 400 `bad-request` problem. Each case sends exact bytes to a real loopback server
 * whose handler runs only `checkFraming` (Node's own Host check off, as in the mock's server), so
 * what is checked is what Node hands the mock.
 */
import assert from 'node:assert/strict';
import { rawExchange, type RawAnswer } from '../test/hardening/support/raw-http.js';
import { createServer } from 'node:http';
import { listenOn, type Loopback } from '../support/loopback.js';
import { checkFraming } from './framing.js';
import { ProblemError, PROBLEMS } from './problems.js';
import { sendBody, sendProblem } from './respond.js';

const BAD_REQUEST = PROBLEMS.badRequest.type;

describe('mock/framing: checkFraming', () => {
  let server: Loopback;
  let port = 0;
  before(async () => {
    server = await listenOn(
      createServer({ requireHostHeader: false }, (req, res) => {
        try {
          checkFraming(req);
          sendBody(res, 200, 'text/plain', `passed HTTP/${req.httpVersion}`);
        } catch (error) {
          assert.ok(error instanceof ProblemError);
          sendProblem(res, error);
        }
      }),
    );
    port = server.port;
  });
  after(() => server.close());

  async function send(text: string): Promise<RawAnswer & { detail: string; type: string }> {
    const outcome = await rawExchange({ host: '127.0.0.1', port, data: Buffer.from(text, 'latin1'), timeoutMs: 5000 });
    assert.ok(outcome.answer, `an answer to ${JSON.stringify(text)}: ${outcome.ended} ${outcome.received.toString('latin1')}`);
    const { answer } = outcome;
    if (answer.status !== 400) return { ...answer, detail: '', type: '' };
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    const body = JSON.parse(answer.body.toString('utf8')) as { type: string; status: number; detail: string; title: string };
    assert.equal(body.status, 400);
    assert.equal(body.title, PROBLEMS.badRequest.title);
    return { ...answer, detail: body.detail, type: body.type };
  }

  describe('lets through', () => {
    it('an HTTP/1.1 request with one Host line', async () => {
      const answer = await send('GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      assert.equal(answer.status, 200);
      assert.equal(answer.body.toString(), 'passed HTTP/1.1');
    });

    it('an HTTP/1.0 request without Host', async () => {
      const answer = await send('GET /x HTTP/1.0\r\n\r\n');
      assert.equal(answer.status, 200);
      assert.equal(answer.body.toString(), 'passed HTTP/1.0');
    });

    it('chunked on HTTP/1.1', async () => {
      const answer = await send(
        'POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1\r\na\r\n0\r\n\r\n',
      );
      assert.equal(answer.status, 200);
    });
  });

  describe('refuses with 400 bad-request', () => {
    it('a request line without a version (HTTP/0.9), closing the connection', async () => {
      const answer = await send('GET /x\r\n\r\n');
      assert.equal(answer.status, 400);
      assert.equal(answer.type, BAD_REQUEST);
      assert.equal(answer.detail, 'The request line has no HTTP version (an HTTP/0.9 request); send "METHOD /path HTTP/1.1".');
      assert.equal(answer.headers['connection'], 'close');
    });

    it('a major version other than 1 (HTTP/2.0 on an HTTP/1 connection), closing the connection', async () => {
      const answer = await send('GET /x HTTP/2.0\r\nHost: h\r\n\r\n');
      assert.equal(answer.status, 400);
      assert.equal(answer.type, BAD_REQUEST);
      assert.equal(answer.detail, 'HTTP/2.0 is not spoken on an HTTP/1 connection; send HTTP/1.1.');
      assert.equal(answer.headers['connection'], 'close');
    });

    it('an HTTP/1.1 request without Host (the connection stays usable)', async () => {
      const answer = await send('GET /x HTTP/1.1\r\n\r\n');
      assert.equal(answer.status, 400);
      assert.equal(answer.type, BAD_REQUEST);
      assert.match(answer.detail, /^An HTTP\/1\.1 request needs a Host header \(RFC 9112 §3\.2\)/);
      assert.equal(answer.headers['connection'], 'keep-alive', 'no Connection: close for a Host problem');
    });

    it('two Host lines on HTTP/1.1, whatever their case', async () => {
      for (const text of [
        'GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: other\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.1\r\nhost: a\r\nHOST: a\r\nConnection: close\r\n\r\n',
      ]) {
        const answer = await send(text);
        assert.equal(answer.status, 400, text);
        assert.equal(answer.type, BAD_REQUEST);
        assert.equal(answer.detail, 'The request has 2 Host header lines; send exactly one (RFC 9112 §3.2).');
      }
    });

    it('three Host lines, and two on HTTP/1.0 too', async () => {
      assert.match(
        (await send('GET /x HTTP/1.1\r\nHost: a\r\nHost: a\r\nHost: a\r\nConnection: close\r\n\r\n')).detail,
        /^The request has 3 Host/,
      );
      const old = await send('GET /x HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n');
      assert.equal(old.status, 400);
      assert.match(old.detail, /^The request has 2 Host header lines/);
    });

    it('Transfer-Encoding on HTTP/1.0, closing the connection', async () => {
      const answer = await send('POST /x HTTP/1.0\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
      assert.equal(answer.status, 400);
      assert.equal(answer.type, BAD_REQUEST);
      assert.match(answer.detail, /^An HTTP\/1\.0 request cannot use Transfer-Encoding \(RFC 9112 §6\.1: faulty framing\)/);
      assert.equal(answer.headers['connection'], 'close');
    });
  });
});
