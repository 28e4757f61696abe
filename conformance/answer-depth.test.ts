import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { AnswerDepthScanner } from './answer-depth.js';

/** Feeds `bytes` to a scanner in pieces of `piece` bytes; true when it stopped the answer. */
function tooDeep(bytes: Buffer, maxDepth: number, piece = bytes.length): boolean {
  const scanner = new AnswerDepthScanner(maxDepth);
  for (let at = 0; at < bytes.length; at += piece) if (scanner.push(bytes.subarray(at, at + piece))) return true;
  return false;
}

const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const plain = (body: string | Buffer, headers = ''): Buffer =>
  Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${headers}\r\n`), Buffer.from(body)]);
function chunked(parts: string[], extension = ''): Buffer {
  const chunks = parts.map((part) => `${Buffer.byteLength(part).toString(16)}${extension}\r\n${part}\r\n`).join('');
  return plain(`${chunks}0\r\n\r\n`, 'Transfer-Encoding: chunked\r\n');
}

describe('the depth of an answer, scanned as it arrives (conformance/answer-depth.ts)', () => {
  it('stops an answer whose JSON nests deeper than the limit (900,000 levels), whatever the pieces it arrives in', () => {
    for (const piece of [1, 7, 4096, Infinity]) {
      assert.equal(tooDeep(plain(nested(900_000)), 128, piece), true, `pieces of ${piece}`);
      assert.equal(tooDeep(plain(nested(128)), 128, piece), false, `exactly the limit, pieces of ${piece}`);
    }
  });

  it('does not count brackets in strings, the head, or sibling values', () => {
    const body = JSON.stringify({ a: '[[[[[[[[', b: ['\\"[[[[[', { c: '{{{{' }], d: [[], [], []] });
    for (const piece of [1, 2, 3, 5, Infinity]) {
      assert.equal(tooDeep(plain(body, `Link: ${'['.repeat(50)}\r\n`), 3, piece), false, `pieces of ${piece}`);
      assert.equal(tooDeep(plain(body), 2, piece), true, `pieces of ${piece}`);
      // An escaped quote, or an escaped backslash before the closing quote, split anywhere.
      assert.equal(tooDeep(plain(JSON.stringify(['a\\', 'b"[[[[[[', '\\"{{{{'])), 1, piece), false, `escapes, pieces of ${piece}`);
    }
  });

  it('reads a chunked body chunk by chunk, its size lines and extensions (quotes too) skipped', () => {
    assert.equal(tooDeep(chunked([nested(100), nested(100)], ';x="[[[["'), 100, 3), false);
    assert.equal(tooDeep(chunked(['['.repeat(60), '['.repeat(60), ']'.repeat(120)], ';q="'), 100, 5), true);
  });

  it('skips 1xx interim heads, and leaves a body with a content coding alone (the client cannot parse it)', () => {
    const interim = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n');
    assert.equal(tooDeep(Buffer.concat([interim, plain(nested(200))]), 128, 9), true);
    assert.equal(tooDeep(plain(gzipSync(nested(200)), 'Content-Encoding: gzip\r\n'), 128), false);
    assert.equal(tooDeep(plain(nested(200), 'Content-Encoding: identity\r\n'), 128), true);
  });
});
