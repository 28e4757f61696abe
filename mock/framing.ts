/**
 * HTTP/1.1 message framing that Node's parser lets through but RFC 9112 forbids, refused with a 400
 * `bad-request` problem before anything else reads the request (the mock and the proxy alike, so a
 * proxied server never gets such a request):
 *
 * - a request line without a version, which Node's parser reads as HTTP/0.9, or with a major version
 *   other than 1 (§2.3: the version is part of every HTTP/1.1 request line);
 * - an HTTP/1.1 request without `Host`, and any request with more than one `Host` line (§3.2: "A
 *   server MUST respond with a 400"); an HTTP/1.0 request may go without;
 * - `Transfer-Encoding` on HTTP/1.0 (§6.1: the framing is faulty), answered with `Connection: close`,
 *   as the rest of the connection cannot be trusted.
 *
 * Cheap on the hot path: two numbers compared and one pass over the raw header names.
 */
import type { IncomingMessage } from 'node:http';
import { problem } from './problems.js';

/** The number of `Host` lines of a request (`req.headers.host` keeps only the first). */
function hostLines(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length === 4 && name.toLowerCase() === 'host') count += 1;
  }
  return count;
}

/** Throws a 400 problem when the request's framing breaks RFC 9112 (see the file comment). */
export function checkFraming(req: IncomingMessage): void {
  if (req.httpVersionMajor !== 1) {
    throw problem(
      'badRequest',
      req.httpVersionMajor === 0
        ? 'The request line has no HTTP version (an HTTP/0.9 request); send "METHOD /path HTTP/1.1".'
        : `HTTP/${req.httpVersion} is not spoken on an HTTP/1 connection; send HTTP/1.1.`,
      undefined,
      { Connection: 'close' },
    );
  }
  const hosts = hostLines(req.rawHeaders);
  if (hosts > 1) throw problem('badRequest', `The request has ${hosts} Host header lines; send exactly one (RFC 9112 §3.2).`);
  if (hosts === 0 && req.httpVersionMinor >= 1) {
    throw problem('badRequest', 'An HTTP/1.1 request needs a Host header (RFC 9112 §3.2); send "Host: 127.0.0.1:PORT".');
  }
  if (req.httpVersionMinor === 0 && req.headers['transfer-encoding'] !== undefined) {
    throw problem(
      'badRequest',
      'An HTTP/1.0 request cannot use Transfer-Encoding (RFC 9112 §6.1: faulty framing); send Content-Length, or use HTTP/1.1. The connection is closed.',
      undefined,
      { Connection: 'close' },
    );
  }
}
