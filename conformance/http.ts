/**
 * The suite's HTTP client (undici), sending as real clients do. Requests go out on kept-alive
 * connections from a pool (`connections.ts`), on a connection leased for a sequence of requests
 * (`sequence`: a credential case right after an authenticated request on the same connection), or on
 * a fresh connection of their own (`fresh`). At most `--concurrency` requests are in flight (`Slots`):
 * a request waits for a free slot before it is sent, and its time-out starts only then.
 *
 * Each request is bounded in time (a hard timer of `--timeout`, counted from when the request goes out:
 * its connection made) and in size (the answer is cut off past 1 MiB). An answer with a
 * `Content-Encoding` is decoded (gzip, deflate, br; `judgments/content-coding.ts`); what does not
 * decode is kept as sent, with the reason. Every exchange is kept, in the order sent (for the checks
 * that look at all answers).
 *
 * What is never counted against the server:
 * - a kept-alive connection the server closed while idle: a request that fails on a reused connection
 *   before any answer began is sent again once on a new connection, as browsers do (`resent`);
 * - load: a request that times out is sent again once with the limit doubled, and only then counts
 *   (`retried`, and the reports say so);
 * - rate limits: an answer 429, or 503 with `Retry-After`, pauses the whole run for the time asked
 *   (`pace.ts`, bounded by `--deadline`) and the request is sent again; a request the server still
 *   refuses after MAX_WAITS waits is not run (reason `rate-limited`), never failed.
 *
 * After a request of an operation times out (its retry too), further requests of that operation are
 * not sent (they come back `notSent`, blocked by that time-out), so a server that never answers costs
 * one time-out and its retry per operation; a request of that operation already in flight then that
 * times out too is reported blocked by the first, not as a failure of its own. With a run deadline
 * (`--deadline`), requests are not sent past it, and a request the deadline cuts off is `notSent`
 * too: never a failure.
 */
import { ANSWER_LIMITS } from '../judgments/answer.js';
import { AnswerDepthScanner } from './answer-depth.js';
import { Readable } from 'node:stream';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { codeOf } from '../util/errors.js';
import { decodeContent } from '../judgments/content-coding.js';
import { Connections, SendError, type Connection } from './connections.js';
import { MAX_WAIT_MS, MAX_WAITS, Pace, rateLimit } from './pace.js';
import type { OperationGroup, SkipReason, TrafficCounts } from '../report/results.js';
import { Slots } from './slots.js';

/** Bytes read from one answer's body before the connection is cut: what the judgments parse at most. */
export const MAX_ANSWER_BYTES = ANSWER_LIMITS.maxLength;

export interface HttpRequest {
  operation: OperationGroup;
  method: string;
  /** Path (and query) below the base URL, already URL-encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with `Transfer-Encoding: chunked` instead of a `Content-Length`. */
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
  /** This request itself ran out of its --timeout (its retry with the limit doubled too). */
  timedOut: boolean;
  /**
   * The request was not sent, or cut off by the deadline, or timed out while in flight after another
   * request of its operation had timed out, or given up after the server kept asking to wait: what
   * blocked it.
   */
  notSent?: { reason: SkipReason; blockedBy: string };
  /** The connection the (last) attempt went out on: a new one, or a kept-alive one reused. */
  connection?: 'new' | 'reused';
  /** The request timed out once (after `afterMs`) and was sent again with the limit doubled (`limitMs`): what it got is the retry's. */
  retried?: { afterMs: number; limitMs: number };
  /** Sent again on a new connection after the kept-alive one it went out on failed before any answer began (closed by the server while idle). */
  resent?: boolean;
  /** How often the server asked to wait (429, or 503 with Retry-After) before this answer. */
  waits?: number;
  /** The request sent just before on the same kept-alive connection (an authenticated one, for a credential case), as shown. */
  after?: string;
  /** The requests sent just before on the same connection, for a reproduction that sends them first. */
  before?: HttpRequest[];
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

/** Where a request goes out: the pool of kept-alive connections, a fresh connection, or a leased one. */
type Via = { kind: 'pool' } | { kind: 'fresh' } | { kind: 'leased'; connection: Connection };

/** One attempt's outcome. */
interface Attempt {
  answer?: HttpAnswer;
  error?: unknown;
  timedOut: boolean;
  tooLarge: boolean;
  /** The answer nested deeper than the judgments parse: reading stopped. */
  tooDeep?: boolean;
  /** The limit was cut short by the deadline (and it is what ran out). */
  cutByDeadline: boolean;
  /** Went out on a kept-alive socket that had carried a request before. */
  reused: boolean;
  limitMs: number;
}

export class HttpClient {
  /** Every exchange, in the order the requests were handed to the client. */
  readonly history: Exchange[] = [];
  /** Per operation group: the request that timed out and the check that sent it. */
  readonly timedOut = new Map<OperationGroup, { request: string; by: string }>();
  /** One slot per request in flight. */
  readonly slots: Slots;
  /** The time before which nothing is sent (the server asked to wait), and the waits. */
  readonly pace = new Pace();
  private readonly connections: Connections;
  private readonly origin: string;
  /** The base URL's path, put before every request's path. */
  private readonly basePath: string;
  private resent = 0;
  private timeoutRetries = 0;
  private answeredOnRetry = 0;
  constructor(readonly options: HttpClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = `${base.protocol}//${base.host}`;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.connections = new Connections({
      origin: this.origin,
      // With --ca: Node's bundled CAs and the given ones (`ca` alone would replace the bundled ones), built once.
      ...(options.ca !== undefined ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, ...options.ca] }) } : {}),
    });
    this.slots = new Slots(options.concurrency ?? 1);
  }

  /** The counts of the run's traffic so far. */
  get traffic(): TrafficCounts {
    return {
      connections: this.connections.counted.sockets,
      resent: this.resent,
      timeoutRetries: this.timeoutRetries,
      answeredOnRetry: this.answeredOnRetry,
      waits: this.pace.waits,
      pausedMs: this.pace.pausedMs,
    };
  }

  /** Closes every connection (the run is over). */
  close(): Promise<void> {
    return this.connections.close();
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

  /** Sends a request on a kept-alive connection of the pool. */
  send(request: HttpRequest): Promise<Exchange> {
    return this.sendVia(request, { kind: 'pool' });
  }

  /** Sends a request on a new connection of its own, closed after it (as the first request of a new client). */
  fresh(request: HttpRequest): Promise<Exchange> {
    return this.sendVia(request, { kind: 'fresh' });
  }

  /**
   * Sends the requests `run` makes, one after another, on one connection of their own (kept alive
   * between them unless the server closes it), closed after: a request right after another on the same
   * connection, as a client that keeps its connection does. The sequence holds one slot throughout, so
   * no wait for a slot leaves the connection idle between its requests.
   */
  async sequence<T>(run: (send: (request: HttpRequest) => Promise<Exchange>) => Promise<T>): Promise<T> {
    const connection = this.connections.lease();
    const release = await this.slots.acquire();
    try {
      return await run((request) => this.sendVia(request, { kind: 'leased', connection }));
    } finally {
      release();
      await this.connections.discard(connection);
    }
  }

  private async sendVia(sent: HttpRequest, via: Via): Promise<Exchange> {
    // The client's own headers go under the request's, and are kept with it (reports show what was sent).
    const request = this.options.headers === undefined ? sent : { ...sent, headers: { ...this.options.headers, ...sent.headers } };
    const exchange: Exchange = { request, timedOut: false };
    this.history.push(exchange);
    // Blocked before waiting for a slot, or while waiting (a time-out, the deadline): not sent.
    if (this.notSent(exchange)) return exchange;
    // A leased connection's sequence holds its slot already.
    const release = via.kind === 'leased' ? undefined : await this.slots.acquire();
    const connection = via.kind === 'pool' ? this.connections.take() : via.kind === 'fresh' ? this.connections.lease() : via.connection;
    try {
      if (!this.notSent(exchange)) await this.transmit(exchange, connection);
    } finally {
      if (via.kind === 'pool') this.connections.release(connection);
      else if (via.kind === 'fresh') await this.connections.discard(connection);
      release?.();
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

  /** Sends until there is an outcome: resent once after a closed kept-alive connection, once after a time-out, again after each wait asked. */
  private async transmit(exchange: Exchange, connection: Connection): Promise<void> {
    const { request } = exchange;
    const { timeoutMs, deadline } = this.options;
    let waits = 0;
    for (;;) {
      if (this.pace.until > Date.now()) {
        if (deadline !== undefined && this.pace.until >= deadline) {
          this.cutByDeadline(exchange, `the server asked the run to wait (Retry-After) past the deadline`);
          return;
        }
        await this.pace.ready();
        if (this.notSent(exchange)) return;
      }
      let attempt = await this.attempt(request, connection, timeoutMs);
      // A kept-alive connection closed by the server while idle: no answer began, nothing was counted; send it again on a new one.
      if (attempt.error !== undefined && attempt.reused && !attempt.timedOut && !attempt.tooLarge) {
        exchange.resent = true;
        this.resent += 1;
        attempt = await this.attempt(request, connection, timeoutMs);
      }
      // Load: a time-out counts only after one retry with the limit doubled (unless another request of the operation already timed out twice).
      if (attempt.timedOut && !attempt.cutByDeadline && !this.timedOut.has(request.operation)) {
        exchange.retried = { afterMs: attempt.limitMs, limitMs: 2 * timeoutMs };
        this.timeoutRetries += 1;
        attempt = await this.attempt(request, connection, 2 * timeoutMs);
        if (attempt.answer) this.answeredOnRetry += 1;
      }
      exchange.connection = attempt.reused ? 'reused' : 'new';
      const answer = attempt.answer;
      const limit = answer ? rateLimit(answer.status, answer.headers, waits) : undefined;
      if (answer && limit !== undefined) {
        const asked = limit === 'give-up' ? undefined : limit;
        if (asked === undefined || waits >= MAX_WAITS || (deadline === undefined && asked > MAX_WAIT_MS)) {
          const why =
            asked === undefined || waits >= MAX_WAITS
              ? `the server answered ${answer.status} after ${waits} wait(s) (${answer.status === 429 ? 'Too Many Requests' : 'Service Unavailable'})`
              : `the server asked the run to wait ${Math.round(asked / 1000)} s (Retry-After), longer than a request waits without --deadline (${MAX_WAIT_MS / 1000} s)`;
          exchange.notSent = { reason: 'rate-limited', blockedBy: `the server's rate limit: ${why}` };
          exchange.error = `not answered: ${why}`;
          exchange.waits = waits;
          return;
        }
        if (deadline !== undefined && Date.now() + asked >= deadline) {
          this.cutByDeadline(exchange, `the server asked the run to wait ${Math.round(asked / 1000)} s (Retry-After), past the deadline`);
          exchange.waits = waits;
          return;
        }
        waits += 1;
        this.pace.hold(asked);
        continue;
      }
      if (waits > 0) exchange.waits = waits;
      this.finish(exchange, attempt);
      return;
    }
  }

  private cutByDeadline(exchange: Exchange, why: string): void {
    exchange.notSent = { reason: 'deadline', blockedBy: 'the deadline (--deadline)' };
    exchange.error = `cut off by the deadline: ${why}`;
  }

  /** Records an attempt's outcome on the exchange (and a time-out as blocking its operation). */
  private finish(exchange: Exchange, attempt: Attempt): void {
    const { request } = exchange;
    const { timeoutMs } = this.options;
    if (attempt.answer) {
      exchange.answer = attempt.answer;
      return;
    }
    if (attempt.timedOut && attempt.cutByDeadline) {
      exchange.notSent = { reason: 'deadline', blockedBy: 'the deadline (--deadline)' };
      exchange.error = `cut off by the deadline after ${attempt.limitMs} ms`;
      return;
    }
    const retry = exchange.retried;
    exchange.error = attempt.tooLarge
      ? `answer larger than 1 MiB (reading stopped after ${MAX_ANSWER_BYTES} bytes)`
      : attempt.tooDeep === true
        ? `the answer nests deeper than ${ANSWER_LIMITS.maxDepth} levels (reading stopped: the suite parses at most ${ANSWER_LIMITS.maxDepth})`
        : attempt.timedOut
          ? retry
            ? `no answer within ${retry.afterMs} ms, nor within ${retry.limitMs} ms when sent again (timed out twice; --timeout ${timeoutMs}, doubled for the retry)`
            : `no answer within ${timeoutMs} ms (timed out; --timeout ${timeoutMs})`
          : `no answer: ${describe(attempt.error)}${exchange.resent ? ' (sent again on a new connection after the kept-alive one failed: failed too)' : ''}`;
    const code = codeOf(attempt.error instanceof SendError ? attempt.error.cause : attempt.error);
    if (!attempt.timedOut && !attempt.tooLarge && attempt.tooDeep !== true && code !== undefined) exchange.errorCode = code;
    const earlier = this.timedOut.get(request.operation);
    if (attempt.timedOut && earlier) {
      // In flight when another request of its operation timed out: blocked by that one (one time-out per operation).
      exchange.notSent = { reason: 'timed-out-operation', blockedBy: `${earlier.by} (${earlier.request} timed out)` };
      exchange.error = `no answer within ${attempt.limitMs} ms either, after ${earlier.request} (${earlier.by}) timed out`;
      return;
    }
    exchange.timedOut = attempt.timedOut;
    if (attempt.timedOut)
      this.timedOut.set(request.operation, {
        request: `${request.method} ${request.path}`,
        by: this.options.sender?.() ?? 'an earlier check',
      });
  }

  /** One attempt of a request on a connection, bounded by `limitMs` (and the deadline) from its connection made. */
  private async attempt(request: HttpRequest, connection: Connection, limitMs: number): Promise<Attempt> {
    const deadline = this.options.deadline;
    const untilDeadline = deadline === undefined ? Infinity : deadline - Date.now();
    const cutByDeadline = untilDeadline < limitMs;
    const limit = Math.min(limitMs, untilDeadline);
    const controller = new AbortController();
    let timedOut = false;
    let tooLarge = false;
    let tooDeep = false;
    // The time-out counts from the connection made (from the attempt until then: a reused connection is
    // made already). When its timer fires, I/O already waiting is handled first (a connection made, an
    // answer arrived): a stall of the suite's own event loop (building the cases of many checks at once)
    // is not the server's time. Never past the deadline.
    let since = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const expire = (): void => {
      setImmediate(() => {
        if (controller.signal.aborted) return;
        const left = Math.min(limit - (performance.now() - since), deadline === undefined ? Infinity : deadline - Date.now());
        if (left > 0) {
          timer = setTimeout(expire, left);
          return;
        }
        timedOut = true;
        controller.abort(new Error(`timed out after ${limit} ms`));
      });
    };
    timer = setTimeout(expire, limit);
    const outcome = (fields: Partial<Attempt> & { reused: boolean }): Attempt => ({
      timedOut,
      tooLarge,
      cutByDeadline: cutByDeadline && timedOut,
      limitMs: limit,
      ...fields,
    });
    try {
      const body =
        request.body === undefined
          ? undefined
          : request.chunked === true
            ? Readable.from([request.body], { objectMode: false })
            : request.body;
      const options: Dispatcher.RequestOptions = {
        path: `${this.basePath}${request.path}`,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        signal: controller.signal,
        ...(body !== undefined ? { body } : {}),
      };
      const { data, reused } = await connection.request(options, () => (since = performance.now()));
      const chunks: Buffer[] = [];
      let received = 0;
      // The nesting is measured on the bytes as they arrive (an answer without a content coding): reading
      // stops past what the judgments parse (`answer-depth.ts`), before anything holds the whole answer.
      const coding = data.headers['content-encoding'];
      const depth = coding === undefined || coding === 'identity' ? new AnswerDepthScanner(ANSWER_LIMITS.maxDepth, true) : undefined;
      try {
        for await (const chunk of data.body) {
          const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
          received += bytes.length;
          if (received > MAX_ANSWER_BYTES) {
            tooLarge = true;
            controller.abort(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes: reading stopped`));
            break;
          }
          if (depth?.push(bytes) === true) {
            tooDeep = true;
            controller.abort(new Error(`the answer nests deeper than ${ANSWER_LIMITS.maxDepth} levels: reading stopped`));
            break;
          }
          chunks.push(bytes);
        }
      } catch (error) {
        // The body broke off (a time-out, a closed connection): no answer. An answer had begun: never sent again as a closed idle connection.
        return outcome({ error, reused: false });
      }
      if (tooLarge || tooDeep) {
        data.body.destroy();
        return outcome({ error: new Error(tooDeep ? 'answer too deep' : 'answer too large'), reused: false, tooDeep });
      }
      return outcome({ answer: toAnswer(data.statusCode, data.headers, Buffer.concat(chunks)), reused });
    } catch (error) {
      return outcome({ error, reused: error instanceof SendError && error.reused });
    } finally {
      clearTimeout(timer);
      // A reason made once: abort() without one builds a DOMException with its stack at every request.
      if (!controller.signal.aborted) controller.abort(ATTEMPT_OVER);
    }
  }
}

/** The reason an attempt's signal is aborted with once the attempt is over (what is still open of it is let go). */
const ATTEMPT_OVER = new Error('the attempt is over');

function describe(error: unknown): string {
  const cause = error instanceof SendError ? error.cause : error;
  if (cause instanceof Error) {
    const code = 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    const inner = cause.cause instanceof Error ? cause.cause.message : undefined;
    return `${cause.message}${inner !== undefined && inner !== cause.message ? `: ${inner}` : ''}${code !== undefined ? ` (${code})` : ''}`;
  }
  return String(cause);
}

function toAnswer(status: number, raw: Record<string, string | string[] | undefined>, buffer: Buffer): HttpAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
    else if (Array.isArray(value)) headers[name.toLowerCase()] = value.join(', ');
  }
  const decoded = decodeContent(buffer, headers['content-encoding'], MAX_ANSWER_BYTES);
  return {
    status,
    headers,
    text: (decoded.bytes ?? buffer).toString('utf8'),
    bytes: buffer.length,
    ...(decoded.error !== undefined ? { undecodable: decoded.error } : {}),
  };
}
