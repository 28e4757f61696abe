/**
 * The suite's HTTP client: pactum sends every request; a connection hook (pactum's `withCore`, the
 * `http.request` options) bounds each request in time (a hard timer of `--timeout`, never shortened,
 * counted from when the request goes out: its connection made) and in size (the answer is cut off
 * past 1 MiB, or as soon as its JSON nests deeper than the judgments parse: `answer-depth.ts`). At most `--concurrency` requests are in flight (`Slots`): a request waits for a free
 * slot before it is sent, and its time-out starts only then. An answer with a `Content-Encoding` is decoded
 * (gzip, deflate, br; `judgments/content-coding.ts`); what does not decode is kept as sent, with the
 * reason. Every exchange is kept, in the order sent (for the checks that look at all answers). After a
 * request of an operation times out, further requests of that operation are not sent (they come back
 * `notSent`, blocked by that time-out), so a server that never answers costs one time-out per
 * operation; a request of that operation already in flight then that times out too is reported
 * blocked by the first, not as a failure of its own. With a run deadline (`--deadline`), requests
 * are not sent past it, and a request the deadline cuts off is `notSent` too: never a failure.
 */
import type { ClientRequestArgs } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type Pactum from 'pactum';
import { codeOf } from '../util/errors.js';
import type { OperationId } from '../contract/operations-model.js';
import { ANSWER_LIMITS } from '../judgments/answer.js';
import { AnswerDepthScanner } from './answer-depth.js';
import { decodeContent } from '../judgments/content-coding.js';
import type { SkipReason } from './report/results.js';
import { Slots } from './slots.js';

/** pactum, an optional peer dependency (util/peer.ts), loaded when the first request is sent. */
let pactumLoaded: Promise<typeof Pactum> | undefined;
function loadPactum(): Promise<typeof Pactum> {
  pactumLoaded ??= import('pactum').then(({ default: pactum }) => {
    pactum.settings.setLogLevel('SILENT');
    return pactum;
  });
  return pactumLoaded;
}

/** Bytes read from one answer (headers and body) before the connection is cut: what the judgments parse at most. */
export const MAX_ANSWER_BYTES = ANSWER_LIMITS.maxLength;

/**
 * The group a check and a request belong to: an operation, or `server` for requests that belong to
 * none (an unknown path). A time-out blocks the rest of its group. (The server under test is the
 * run's target, `--base-url`.)
 */
export type OperationGroup = OperationId | 'server';

export interface HttpRequest {
  operation: OperationGroup;
  method: string;
  /** Path (and query) below the base URL, already URL-encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with `Transfer-Encoding: chunked` and no `Content-Length` (RFC 9112 §7.1). */
  chunked?: boolean;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as text, its content codings undone (as sent when they cannot be). */
  text: string;
  /** Bytes of the body as received (before decoding). */
  bytes: number;
  /** Why the body does not decode as its `Content-Encoding` says; absent when it does or has none. */
  undecodable?: string;
}

export interface Exchange {
  request: HttpRequest;
  answer?: HttpAnswer;
  /** Why there is no answer (time-out, closed connection, answer too large, not sent). */
  error?: string;
  /** The Node code of the error that left the request without an answer (`ECONNRESET`, `DEPTH_ZERO_SELF_SIGNED_CERT`...). */
  errorCode?: string;
  /** This request itself ran out of its --timeout. */
  timedOut: boolean;
  /**
   * The request was not sent, or cut off by the deadline, or timed out while in flight after another
   * request of its operation had timed out: what blocked it.
   */
  notSent?: { reason: SkipReason; blockedBy: string };
}

export interface HttpClientOptions {
  baseUrl: string;
  timeoutMs: number;
  /** Epoch ms after which no request is sent any more (`--deadline`); absent: no bound. */
  deadline?: number;
  /** Who sends (a check id), for the `blockedBy` of later requests after a time-out. */
  sender?: () => string;
  /**
   * Certificates (PEM) trusted for https:// besides Node's bundled CAs (`--ca FILE`). The certificate
   * is always verified: there is no switch that turns verification off.
   */
  ca?: readonly string[];
  /** Most requests in flight at once (default 1). */
  concurrency?: number;
  /** Headers sent with every request (lower-case names), under the request's own. */
  headers?: Readonly<Record<string, string>>;
}

export class HttpClient {
  /** Every exchange, in the order the requests were handed to the client. */
  readonly history: Exchange[] = [];
  /** Per operation group: the request that timed out and the check that sent it. */
  readonly timedOut = new Map<OperationGroup, { request: string; by: string }>();
  /** With --ca: Node's bundled CAs and the given ones (`ca` alone would replace the bundled ones), built once. */
  private readonly secureContext: tls.SecureContext | undefined;
  /** One slot per request in flight. */
  readonly slots: Slots;
  constructor(readonly options: HttpClientOptions) {
    this.secureContext = options.ca === undefined ? undefined : tls.createSecureContext({ ca: [...tls.rootCertificates, ...options.ca] });
    this.slots = new Slots(options.concurrency ?? 1);
  }

  /** What blocks requests of a target, if anything (an earlier time-out of it, or the deadline). */
  blocked(operation: OperationGroup, sender?: string): { reason: SkipReason; blockedBy: string } | undefined {
    const earlier = this.timedOut.get(operation);
    if (earlier && earlier.by !== sender)
      return { reason: 'timed-out-operation', blockedBy: `${earlier.by} (${earlier.request} timed out)` };
    // Requests that belong to no operation: blocked once the server answered nothing and something timed out.
    if (operation === 'server' && this.timedOut.size > 0 && !this.history.some((e) => e.answer)) {
      const first = [...this.timedOut.values()][0];
      if (first)
        return { reason: 'timed-out-operation', blockedBy: `${first.by} (${first.request} timed out; the server answered no request)` };
    }
    if (this.options.deadline !== undefined && Date.now() >= this.options.deadline)
      return { reason: 'deadline', blockedBy: 'the deadline (--deadline)' };
    return undefined;
  }

  async send(sent: HttpRequest): Promise<Exchange> {
    // The client's own headers go under the request's, and are kept with it (reports show what was sent).
    const request = this.options.headers === undefined ? sent : { ...sent, headers: { ...this.options.headers, ...sent.headers } };
    const exchange: Exchange = { request, timedOut: false };
    this.history.push(exchange);
    // Blocked before waiting for a slot, or while waiting (a time-out, the deadline): not sent.
    if (this.notSent(exchange)) return exchange;
    const release = await this.slots.acquire();
    try {
      if (!this.notSent(exchange)) await this.transmit(exchange);
    } finally {
      release();
    }
    return exchange;
  }

  /** Marks the exchange not sent when its operation is blocked now. */
  private notSent(exchange: Exchange): boolean {
    const blocked = this.blocked(exchange.request.operation);
    if (!blocked) return false;
    exchange.notSent = blocked;
    exchange.error = `not sent: blocked by ${blocked.blockedBy}`;
    return true;
  }

  private async transmit(exchange: Exchange): Promise<void> {
    const { request } = exchange;
    const pactum = await loadPactum();
    const url = `${this.options.baseUrl}${request.path}`;
    const secure = url.startsWith('https:');
    const timeoutMs = this.options.timeoutMs;
    const deadline = this.options.deadline;
    const untilDeadline = deadline === undefined ? Infinity : deadline - Date.now();
    const cutByDeadline = untilDeadline < timeoutMs;
    const limit = Math.min(timeoutMs, untilDeadline);
    const secureContext = this.secureContext;
    let timedOut = false;
    let tooLarge = false;
    let tooDeep = false;
    const createConnection = (options: ClientRequestArgs): Duplex => {
      const host = options.hostname ?? options.host ?? undefined;
      const port = Number(options.port);
      const socket = secure
        ? tls.connect({
            host: host ?? undefined,
            port,
            ...(host && net.isIP(host) === 0 ? { servername: host } : {}),
            ...(secureContext !== undefined ? { secureContext } : {}),
          })
        : net.createConnection({ host: host ?? undefined, port });
      let received = 0;
      const depth = new AnswerDepthScanner(ANSWER_LIMITS.maxDepth);
      // The time-out counts from the connection made (from the attempt until then). When its timer
      // fires, I/O already waiting is handled first (a connection made, an answer arrived): a stall
      // of the suite's own event loop (building the cases of many checks at once) is not the
      // server's time. Never past the deadline.
      let since = performance.now();
      socket.once('connect', () => (since = performance.now()));
      const expire = (): void => {
        setImmediate(() => {
          if (socket.destroyed) return;
          const left = Math.min(limit - (performance.now() - since), deadline === undefined ? Infinity : deadline - Date.now());
          if (left > 0) {
            timer = setTimeout(expire, left);
            return;
          }
          timedOut = true;
          socket.destroy(new Error(`timed out after ${limit} ms`));
        });
      };
      let timer = setTimeout(expire, limit);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_ANSWER_BYTES) {
          tooLarge = true;
          socket.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes: reading stopped`));
        } else if (!tooDeep && depth.push(chunk)) {
          // Stopped before the client parses it (it parses every body): see answer-depth.ts.
          tooDeep = true;
          socket.destroy(new Error(`the answer nests deeper than ${ANSWER_LIMITS.maxDepth} levels: reading stopped`));
        }
      });
      socket.on('close', () => clearTimeout(timer));
      return socket;
    };
    try {
      let spec = pactum
        .spec()
        .withMethod(request.method)
        .withPath(url)
        .withHeaders(request.headers)
        .withRequestTimeout(limit + 1000)
        // A chunked body: the request's own headers with Transfer-Encoding and without the
        // Content-Length the client adds from the body (its `core` options are http.request's, headers too).
        .withCore({
          createConnection,
          ...(request.chunked === true ? { headers: { ...request.headers, 'transfer-encoding': 'chunked' } } : {}),
        });
      if (request.body !== undefined) spec = spec.withBody(request.body);
      const response: unknown = await spec.toss();
      exchange.answer = toAnswer(response);
    } catch (error) {
      if (timedOut && cutByDeadline) {
        exchange.notSent = { reason: 'deadline', blockedBy: 'the deadline (--deadline)' };
        exchange.error = `cut off by the deadline after ${limit} ms`;
        return;
      }
      exchange.error = tooLarge
        ? `answer larger than 1 MiB (reading stopped after ${MAX_ANSWER_BYTES} bytes)`
        : tooDeep
          ? `the answer nests deeper than ${ANSWER_LIMITS.maxDepth} levels (reading stopped: the suite parses at most ${ANSWER_LIMITS.maxDepth})`
          : timedOut
            ? `no answer within ${timeoutMs} ms (timed out; --timeout ${timeoutMs})`
            : `no answer: ${describe(error)}`;
      const code = codeOf(error);
      if (!timedOut && !tooLarge && !tooDeep && code !== undefined) exchange.errorCode = code;
      const earlier = this.timedOut.get(request.operation);
      if (timedOut && earlier) {
        // In flight when another request of its operation timed out: blocked by that one (one time-out per operation).
        exchange.notSent = { reason: 'timed-out-operation', blockedBy: `${earlier.by} (${earlier.request} timed out)` };
        exchange.error = `no answer within ${timeoutMs} ms either, after ${earlier.request} (${earlier.by}) timed out`;
        return;
      }
      exchange.timedOut = timedOut;
      if (timedOut)
        this.timedOut.set(request.operation, {
          request: `${request.method} ${request.path}`,
          by: this.options.sender?.() ?? 'an earlier check',
        });
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.message}${'code' in error && typeof error.code === 'string' ? ` (${error.code})` : ''}`;
  return String(error);
}

function toAnswer(response: unknown): HttpAnswer {
  if (typeof response !== 'object' || response === null || !('statusCode' in response) || typeof response.statusCode !== 'number')
    throw new Error('the HTTP client returned no status');
  const headers: Record<string, string> = {};
  const raw = 'headers' in response && typeof response.headers === 'object' && response.headers !== null ? response.headers : {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
    else if (Array.isArray(value)) headers[name.toLowerCase()] = value.map(String).join(', ');
  }
  const buffer = 'buffer' in response && Buffer.isBuffer(response.buffer) ? response.buffer : Buffer.alloc(0);
  const decoded = decodeContent(buffer, headers['content-encoding'], MAX_ANSWER_BYTES);
  return {
    status: response.statusCode,
    headers,
    text: (decoded.bytes ?? buffer).toString('utf8'),
    bytes: buffer.length,
    ...(decoded.error !== undefined ? { undecodable: decoded.error } : {}),
  };
}
