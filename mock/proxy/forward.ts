/**
 * Forwarding one request to the upstream server and its answer back, unchanged: the status, the
 * status message, the end-to-end headers (names, order and repeats as received) and the body, byte
 * for byte and streamed both ways: the request body goes upstream as it arrives, and each chunk of
 * the answer is written to the client as it arrives (with backpressure both ways). Only hop-by-hop
 * headers (RFC 9110 §7.6.1) are dropped, `Host` names the upstream, and the request target is the
 * one the caller rebuilt (`proxiedTarget`: origin-form, dot segments removed) below the upstream
 * URL's path, never the client's as sent. A copy of each body, up to `MAX_JUDGED_BYTES`, is kept for
 * the judgments, which run later (the caller queues the exchange once its answer was sent whole).
 *
 * The upstream hop is undici's `Pool` (keep-alive connections reused, one request at a time on each:
 * no pipelining to a server the proxy does not know), driven through its handler interface so that
 * the raw header lists pass through without being parsed into objects. When the upstream cannot be
 * reached the client gets a 502 problem+json (504 after `timeoutMs` without an answer); the proxy
 * keeps running.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { messageOf } from '../../util/errors.js';
import { problem, type ProblemError } from '../problems.js';
import { sendProblem } from '../respond.js';
import { Capture, SeenExchange } from './seen.js';

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
  // Node's server answers `100 Continue` to the client itself; the upstream gets the body without asking.
  'expect',
]);

/** The methods the upstream client sends; another one (WebDAV's, PURGE, ...) is answered 405 here. */
export const FORWARDED_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'TRACE',
] as const satisfies readonly Dispatcher.HttpMethod[];

function forwardedMethod(method: string | undefined): Dispatcher.HttpMethod | undefined {
  return FORWARDED_METHODS.find((m) => m === method);
}

/**
 * The names a `Connection` header value lists that are not hop-by-hop anyway, added to `named` (made
 * when the first such name comes: `keep-alive`, the usual value, makes none).
 */
function addConnectionNames(value: string, named: Set<string> | undefined): Set<string> | undefined {
  // The usual values, as clients and servers send them, name nothing else: not split.
  if (value === 'keep-alive' || value === 'close' || value === 'Keep-Alive' || value === 'Close') return named;
  for (const n of value.split(',')) {
    const name = n.trim().toLowerCase();
    if (name !== '' && !HOP_BY_HOP.has(name)) (named ??= new Set()).add(name);
  }
  return named;
}

/**
 * Raw headers (`[name, value, name, value, ...]`) without hop-by-hop ones (and those `Connection`
 * names), in one pass (a second one only when a `Connection` header names others); `body` is set when
 * they announce a request body (a non-zero Content-Length, or Transfer-Encoding).
 */
export function scanHeaders(raw: readonly string[]): { kept: string[]; body: boolean } {
  let named: Set<string> | undefined;
  let body = false;
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const value = raw[i + 1] ?? '';
    const lower = name.toLowerCase();
    if (lower === 'transfer-encoding' || (lower === 'content-length' && value !== '0')) body = true;
    if (lower === 'connection') named = addConnectionNames(value, named);
    if (!HOP_BY_HOP.has(lower)) kept.push(name, value);
  }
  if (named === undefined) return { kept, body };
  const connectionNamed = named;
  const filtered: string[] = [];
  for (let i = 0; i < kept.length; i += 2) {
    const name = kept[i] ?? '';
    if (!connectionNamed.has(name.toLowerCase())) filtered.push(name, kept[i + 1] ?? '');
  }
  return { kept: filtered, body };
}

/** Raw headers (`[name, value, name, value, ...]`) without hop-by-hop ones (and those `Connection` names). */
export function endToEnd(raw: readonly string[]): string[] {
  return scanHeaders(raw).kept;
}

/** undici's raw header list (Buffers) as strings, byte for byte (latin1, as Node's own parser reads them). */
function headerStrings(raw: readonly Buffer[]): string[] {
  const strings = new Array<string>(raw.length);
  for (let i = 0; i < raw.length; i++) strings[i] = raw[i]?.toString('latin1') ?? '';
  return strings;
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** undici refused the request itself (a header it will not send): the client's request, not the upstream. */
const REFUSED = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

export interface ForwarderOptions {
  upstream: URL;
  /** Most time to wait for a connection, for the upstream's answer headers, and between two chunks of its body. */
  timeoutMs: number;
  log: (line: string) => void;
  /** Upstream connections at most (requests beyond wait for one); default 256. */
  connections?: number;
}

export interface Forwarder {
  /**
   * Forwards to `target` (origin-form, below the upstream URL's path); calls `done` with the exchange
   * once the answer was delivered whole (not when it failed or the client left).
   */
  forward(req: IncomingMessage, res: ServerResponse, target: string, done: (seen: SeenExchange) => void): void;
  /** Closes the upstream connections (requests still under way fail). */
  close(): Promise<void>;
}

interface RelayContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  target: string;
  requestBody: Capture;
  /** The listener copying the request body's chunks into `requestBody` (when the request has a body). */
  copyBody?: ((chunk: Buffer) => void) | undefined;
  started: number;
  done: (seen: SeenExchange) => void;
  upstream: URL;
  timeoutMs: number;
  log: (line: string) => void;
}

/** What a relay holds while its exchange is under way: the client's request and answer, and the copies kept for judging. */
interface Live {
  x: RelayContext;
  answerHeaders: readonly string[];
  readonly answerBody: Capture;
  /** undici's, to resume the upstream socket once the client's has room again. */
  resume: (() => void) | undefined;
}

/**
 * One exchange on the upstream hop: the answer's head and each chunk written to the client as they
 * come. One listener on the client's answer (`close`, which follows `finish`) tells a whole answer
 * from a client that left; `drain` is listened to only once the client's socket was full.
 *
 * Once the client's answer closed, the relay lets go of everything it held (`live`). A relay lives as
 * long as its exchange, often long enough to be promoted to the old generation; from there, even once
 * unreachable, it keeps what it names alive through every young collection until the next full one.
 * Naming the request, the answer and the body copies, it had them all promoted: several times the
 * floor's garbage collection a request (docs/proxy-performance.md).
 */
export class Relay implements Dispatcher.DispatchHandlers {
  private live: Live | undefined;
  private abort: ((error?: Error) => void) | undefined;
  /** The client has the upstream's status line, or a problem of the proxy. */
  private answered = false;
  /** The client has the upstream's status line (not a problem of the proxy). */
  private relayed = false;
  /** The client left before its answer was whole. */
  private gone = false;
  private status = 0;
  private draining = false;

  constructor(x: RelayContext) {
    this.live = { x, answerHeaders: [], answerBody: new Capture(), resume: undefined };
    x.res.on('close', () => this.closed());
  }

  /** The client's answer ended: delivered whole (then judged), or the client left (the upstream exchange stops too). */
  private closed(): void {
    const live = this.live;
    if (live === undefined) return;
    this.live = undefined;
    const { res, req, method, target, requestBody, started, done } = live.x;
    if (!res.writableFinished) {
      this.gone = true;
      this.abort?.();
      this.abort = undefined;
      return;
    }
    this.abort = undefined;
    if (!this.relayed) return;
    // An upstream may answer before the request body is in (an early 413): then that body is not judged.
    done(
      new SeenExchange(
        method,
        target,
        req.rawHeaders,
        requestBody,
        req.complete,
        this.status,
        live.answerHeaders,
        live.answerBody,
        performance.now() - started,
      ),
    );
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.gone) {
      abort();
      return;
    }
    this.abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    // 1xx: Node's server answered the client's `Expect` itself; other interim answers are not relayed.
    if (status < 200) return true;
    const live = this.live;
    if (live === undefined) return false;
    const { res, req, target, log, upstream } = live.x;
    const raw = headerStrings(rawHeaders);
    try {
      res.writeHead(status, statusText, endToEnd(raw));
    } catch (error) {
      // Node refuses to send a header or status line undici parsed: a 502, not a crash.
      log(`proxy: ${req.method ?? '?'} ${target.slice(0, 200)}: the upstream's answer cannot be forwarded (${messageOf(error)})`);
      this.fail(
        live.x,
        problem(
          'upstreamUnreachable',
          `The proxied server ${upstream.origin} answered with a status line or headers that cannot be forwarded.`,
        ),
      );
      this.abort?.();
      return false;
    }
    this.answered = true;
    this.relayed = true;
    this.status = status;
    live.answerHeaders = raw;
    live.resume = resume;
    return true;
  }

  onData(chunk: Buffer): boolean {
    const live = this.live;
    if (live === undefined) return false;
    live.answerBody.add(chunk);
    const room = live.x.res.write(chunk);
    if (!room && !this.draining && live.resume !== undefined) {
      // undici pauses the upstream socket until `resume`: called when the client's socket has room again.
      this.draining = true;
      live.x.res.on('drain', live.resume);
    }
    return room;
  }

  onComplete(): void {
    const x = this.live?.x;
    if (x === undefined) return;
    // The request body has been read whole: its copy is complete, and without the listener Node's clean-up
    // of a request at the end of its answer (`_dump`, which removes every 'data' listener) takes its fast path.
    if (x.copyBody !== undefined && x.req.readableEnded) x.req.off('data', x.copyBody);
    x.res.end();
  }

  onError(error: Error): void {
    const live = this.live;
    if (live === undefined || this.gone || live.x.res.destroyed) return;
    const { res, req, target, upstream, timeoutMs, log } = live.x;
    // The upstream broke off mid-answer: the client must not take the cut body for a whole one.
    if (this.answered) {
      res.destroy();
      return;
    }
    const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
    if (REFUSED.has(code)) {
      this.fail(live.x, problem('badRequest', `The request cannot be forwarded: ${error.message}.`));
      return;
    }
    log(
      `proxy: ${req.method ?? '?'} ${target.slice(0, 200)}: the upstream cannot be reached (${`${upstream.origin} ${code} ${error.message}`.trim()})`,
    );
    this.fail(
      live.x,
      TIMEOUTS.has(code)
        ? problem(
            'upstreamTimeout',
            `The proxied server ${upstream.origin} did not answer within ${timeoutMs} ms; the proxy keeps running.`,
          )
        : problem(
            'upstreamUnreachable',
            `The proxied server ${upstream.origin} cannot be reached (${code || error.message}); check that it runs and the --proxy URL, then retry. The proxy keeps running.`,
          ),
    );
  }

  private fail({ res }: RelayContext, error: ProblemError): void {
    if (this.answered) return;
    this.answered = true;
    if (res.headersSent) res.destroy();
    else sendProblem(res, error);
  }
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { upstream, timeoutMs, log } = options;
  const pool = new Pool(upstream.origin, {
    connections: options.connections ?? 256,
    pipelining: 1,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const base = upstream.pathname.replace(/\/+$/, '');
  const host = upstream.host;

  return {
    forward(req, res, target, done) {
      const method = forwardedMethod(req.method);
      if (method === undefined) {
        sendProblem(
          res,
          problem(
            'methodNotAllowed',
            `The proxy forwards ${FORWARDED_METHODS.join(', ')}; ${(req.method ?? '').slice(0, 20)} is not forwarded.`,
            undefined,
            { Allow: FORWARDED_METHODS.join(', ') },
          ),
        );
        return;
      }
      const requestBody = new Capture();
      const { kept: headers, body } = scanHeaders(req.rawHeaders);
      let copyBody: ((chunk: Buffer) => void) | undefined;
      if (body) {
        // Held until undici writes it upstream (it resumes the stream then); every chunk is also kept for judging.
        req.pause();
        copyBody = (chunk: Buffer) => requestBody.add(chunk);
        req.on('data', copyBody);
      }
      headers.push('host', host);
      const relay = new Relay({
        req,
        res,
        method,
        target,
        requestBody,
        copyBody,
        started: performance.now(),
        done,
        upstream,
        timeoutMs,
        log,
      });
      pool.dispatch({ path: `${base}${target}`, method, headers, body: body ? req : null }, relay);
    },
    close() {
      return pool.destroy();
    },
  };
}
