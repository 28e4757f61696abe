/** Content codings: decoding gzip, deflate (zlib, raw read but reported), br; what Accept-Encoding accepts; the two judgments. */
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { acceptedOf, codingsOf, decodeContent, judgeCodingAsked, judgeCodingReadable } from './content-coding.js';
import type { JudgedExchange } from './exchange.js';

const TEXT = '{"order":{"orderNumber":"ORD-1"}}';
const LIMIT = 1024 * 1024;

function exchange(requestHeaders: Record<string, string>, contentEncoding?: string): JudgedExchange {
  return {
    request: { method: 'GET', path: '/x', headers: requestHeaders },
    answer: {
      status: 200,
      headers: { 'content-type': 'application/json', ...(contentEncoding !== undefined ? { 'content-encoding': contentEncoding } : {}) },
      text: TEXT,
    },
  };
}

describe('content codings', () => {
  it('decodes gzip, deflate (zlib), br and chains of them, last applied first', () => {
    const body = Buffer.from(TEXT);
    for (const [coding, bytes] of [
      ['gzip', gzipSync(body)],
      ['x-gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
      ['deflate, gzip', gzipSync(deflateSync(body))],
      ['identity', body],
      [undefined, body],
    ] as const) {
      const decoded = decodeContent(bytes, coding, LIMIT);
      assert.equal(decoded.error, undefined, String(coding));
      assert.equal(decoded.bytes?.toString('utf8'), TEXT, String(coding));
    }
  });

  it('a body that does not decode, an unknown coding, raw DEFLATE and a decompression bomb are reported with the reason', () => {
    const plain = decodeContent(Buffer.from(TEXT), 'gzip', LIMIT);
    assert.equal(plain.bytes, undefined);
    assert.match(plain.error ?? '', /does not decode as Content-Encoding "gzip" says/);
    assert.match(decodeContent(Buffer.from(TEXT), 'zstd', LIMIT).error ?? '', /"zstd", a coding the suite cannot undo/);
    const raw = decodeContent(deflateRawSync(Buffer.from(TEXT)), 'deflate', LIMIT);
    assert.equal(raw.bytes?.toString('utf8'), TEXT, 'read, as browsers do');
    assert.match(raw.error ?? '', /raw DEFLATE without the zlib header/);
    const bomb = decodeContent(gzipSync(Buffer.alloc(LIMIT * 2)), 'gzip', LIMIT);
    assert.match(bomb.error ?? '', /larger than the answer limit once decoded/);
  });

  it('reads Content-Encoding and Accept-Encoding (weights, q=0, *)', () => {
    assert.deepEqual(codingsOf(' GZIP , identity, br'), ['gzip', 'br']);
    for (const none of [undefined, '', 'identity', ' , ']) assert.deepEqual(codingsOf(none), [], String(none));
    assert.equal(acceptedOf(undefined), undefined);
    const accepted = acceptedOf('gzip;q=0.5, deflate;q=0, *');
    assert.ok(accepted?.codings.has('gzip'));
    assert.ok(accepted?.refused.has('deflate'));
    assert.equal(accepted?.any, true);
  });

  it('spec: a coding the request did not list, or a body that does not decode, is a violation; a listed coding that decodes is not', () => {
    const asked = { 'accept-encoding': 'gzip, deflate, br' };
    assert.deepEqual(judgeCodingReadable(exchange(asked, 'gzip'), undefined), []);
    assert.deepEqual(judgeCodingReadable(exchange(asked), undefined), []);
    assert.deepEqual(
      judgeCodingReadable(exchange({}, 'gzip'), undefined),
      [],
      'no Accept-Encoding: any coding is acceptable (RFC 9110 §12.5.3)',
    );
    const [unlisted] = judgeCodingReadable(exchange({ 'Accept-Encoding': 'deflate' }, 'gzip'), undefined);
    assert.equal(unlisted?.header, 'content-encoding');
    assert.match(unlisted?.reason ?? '', /gzip was not asked for/);
    assert.deepEqual(judgeCodingReadable(exchange({ 'accept-encoding': 'gzip;q=0, *' }, 'br'), undefined), []);
    assert.equal(judgeCodingReadable(exchange({ 'accept-encoding': 'gzip;q=0, *' }, 'gzip'), undefined).length, 1);
    const [broken] = judgeCodingReadable(exchange(asked, 'br'), 'the body does not decode');
    assert.equal(broken?.in, 'body');
    assert.equal(broken?.reason, 'the body does not decode');
  });

  it('strict: an answer to a request without Accept-Encoding has no coding', () => {
    assert.deepEqual(judgeCodingAsked(exchange({})), []);
    assert.deepEqual(judgeCodingAsked(exchange({}, 'identity')), []);
    assert.deepEqual(judgeCodingAsked(exchange({ 'accept-encoding': 'gzip' }, 'gzip')), []);
    const [v] = judgeCodingAsked(exchange({}, 'gzip'));
    assert.match(v?.reason ?? '', /did not ask for any coding/);
  });
});
