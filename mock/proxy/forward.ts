/**
 * Forwarding one request to the upstream server and its answer back, unchanged: the status, the
 * status message, the end-to-end headers (names, order and repeats as received) and the body, byte
 * for byte and streamed both ways. Only hop-by-hop headers (RFC 9110 §7.6.1) are dropped, `Host`
 * names the upstream, and the request target is the one the caller rebuilt (`proxiedTarget`:
 * origin-form, dot segments removed) below the upstream URL's path, never the client's as sent. A
 * copy of each body, up to `MAX_JUDGED_BYTES`, is kept for the judgments.
 * When the upstream cannot be reached the client gets a 502 problem+json (504 after `timeoutMs`
 * without an answer); the proxy keeps running.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { problem, type ProblemError } from '../problems.js';
import { sendProblem } from '../respond.js';
import { MAX_JUDGED_BYTES, type ProxyExchange } from './exchange.js';
import { messageOf } from '../../contract/errors.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Raw headers (`[name, value, name, value, ...]`) without hop-by-hop ones (and those `Connection` names). */
function endToEnd(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] ?? '').toLowerCase() === 'connection') for (const n of (raw[i + 1] ?? '').split(',')) named.add(n.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) kept.push(raw[i] ?? '', raw[i + 1] ?? '');
  }
  return kept;
}

/** Lower-case names, repeated headers joined with ", " (as the judgments read them). */
function flat(headers: http.IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) result[name] = Array.isArray(value) ? value.join(', ') : value;
  return result;
}

class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  complete = true;
  add(chunk: Buffer): void {
    if (this.size + chunk.length > MAX_JUDGED_BYTES) {
      this.complete = false;
      const room = MAX_JUDGED_BYTES - this.size;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = MAX_JUDGED_BYTES;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export interface ForwarderOptions {
  upstream: URL;
  /** Most time to wait for the upstream's answer headers (then 504). */
  timeoutMs: number;
  log: (line: string) => void;
}

export interface Forwarder {
  /**
   * Forwards to `target` (origin-form, below the upstream URL's path); calls `done` with the exchange
   * once the answer was delivered whole (not when it failed or the client left).
   */
  forward(req: IncomingMessage, res: ServerResponse, target: string, done: (exchange: ProxyExchange) => void): void;
  close(): void;
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { upstream } = options;
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 256 }) : new http.Agent({ keepAlive: true, maxSockets: 256 });
  const base = upstream.pathname.replace(/\/+$/, '');
  const send = secure ? https.request : http.request;

  return {
    forward(req, res, target, done) {
      const started = performance.now();
      const requestCapture = new Capture();
      let answered = false;
      const fail = (error: ProblemError): void => {
        if (answered) return;
        answered = true;
        if (res.headersSent) res.destroy();
        else sendProblem(res, error);
      };
      const headers = endToEnd(req.rawHeaders);
      headers.push('Host', upstream.host);
      const upstreamReq = send({
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
        port: upstream.port || (secure ? 443 : 80),
        method: req.method ?? 'GET',
        path: `${base}${target}`,
        headers,
        agent,
        setHost: false,
      });
      upstreamReq.setTimeout(options.timeoutMs, () => {
        upstreamReq.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
      upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
        if (answered || res.destroyed) return;
        const what = `${upstream.origin} ${error.code ?? ''} ${error.message}`.trim();
        options.log(`proxy: ${req.method ?? '?'} ${target.slice(0, 200)}: the upstream cannot be reached (${what})`);
        fail(
          error.code === 'ETIMEDOUT'
            ? problem(
                'upstreamTimeout',
                `The proxied server ${upstream.origin} did not answer within ${options.timeoutMs} ms; the proxy keeps running.`,
              )
            : problem(
                'upstreamUnreachable',
                `The proxied server ${upstream.origin} cannot be reached (${error.code ?? error.message}); check that it runs and the --proxy URL, then retry. The proxy keeps running.`,
              ),
        );
      });
      upstreamReq.on('response', (upstreamRes) => {
        const answerCapture = new Capture();
        try {
          res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEnd(upstreamRes.rawHeaders));
        } catch (error) {
          // Node refuses to send a header or status line it parsed (it never should): a 502, not a crash.
          upstreamRes.destroy();
          options.log(
            `proxy: ${req.method ?? '?'} ${target.slice(0, 200)}: the upstream's answer cannot be forwarded (${messageOf(error)})`,
          );
          fail(
            problem(
              'upstreamUnreachable',
              `The proxied server ${upstream.origin} answered with a status line or headers that cannot be forwarded.`,
            ),
          );
          return;
        }
        answered = true;
        upstreamRes.on('data', (chunk: Buffer) => answerCapture.add(chunk));
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
        // The upstream broke off mid-answer: the client must not take the cut body for a whole one.
        upstreamRes.on('close', () => {
          if (!upstreamRes.complete) res.destroy();
        });
        res.on('finish', () => {
          if (!upstreamRes.complete) return;
          done({
            method: req.method ?? 'GET',
            target,
            // An upstream may answer before the request body is in (an early 413): then the body is not judged.
            request: { headers: flat(req.headers), body: requestCapture.bytes(), complete: requestCapture.complete && req.complete },
            answer: {
              status: upstreamRes.statusCode ?? 0,
              headers: flat(upstreamRes.headers),
              body: answerCapture.bytes(),
              complete: answerCapture.complete,
            },
            durationMs: performance.now() - started,
          });
        });
      });
      // The client left: stop the upstream exchange too.
      res.on('close', () => {
        if (!res.writableFinished) upstreamReq.destroy();
      });
      req.on('data', (chunk: Buffer) => requestCapture.add(chunk));
      req.pipe(upstreamReq);
    },
    close() {
      agent.destroy();
    },
  };
}
