/**
 * The suite's HTTP client: pactum sends every request; a connection hook bounds each request in
 * time (a hard deadline, not an idle timer) and in size (the answer is cut off past 1 MiB). Every
 * exchange is kept (for the checks that look at all answers). After a request of an operation
 * times out, further requests of that operation are not sent: they fail at once, so a server that
 * never answers one operation cannot stretch the run past its deadline.
 */
import net from 'node:net';
import tls from 'node:tls';
import pactum from 'pactum';
import type { OperationId } from './operations.js';

pactum.settings.setLogLevel('SILENT');

/** Bytes read from one answer (headers and body) before the connection is cut. */
export const MAX_ANSWER_BYTES = 1024 * 1024 + 64 * 1024;

/** Operations, plus `server` for requests that belong to none (an unknown path). */
export type Target = OperationId | 'server';

export interface HttpRequest {
  target: Target;
  method: string;
  /** Path (and query) below the base URL, already URL-encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  bytes: number;
}

export interface Exchange {
  request: HttpRequest;
  answer?: HttpAnswer;
  /** Why there is no answer (time-out, closed connection, answer too large, not sent). */
  error?: string;
  timedOut: boolean;
}

export interface HttpClientOptions {
  baseUrl: string;
  timeoutMs: number;
  /** Epoch ms after which no request is sent any more. */
  deadline: number;
}

export class HttpClient {
  readonly history: Exchange[] = [];
  readonly timedOut = new Map<Target, string>();
  constructor(readonly options: HttpClientOptions) {}

  async send(request: HttpRequest): Promise<Exchange> {
    const exchange: Exchange = { request, timedOut: false };
    const earlier = this.timedOut.get(request.target);
    const remaining = this.options.deadline - Date.now();
    if (earlier !== undefined) {
      exchange.error = `not sent: ${request.target} timed out earlier (${earlier})`;
      exchange.timedOut = true;
    } else if (remaining <= 0) {
      exchange.error = 'not sent: the run deadline has passed';
      exchange.timedOut = true;
    } else {
      await this.transmit(exchange, Math.min(this.options.timeoutMs, remaining));
    }
    this.history.push(exchange);
    return exchange;
  }

  private async transmit(exchange: Exchange, timeoutMs: number): Promise<void> {
    const { request } = exchange;
    const url = `${this.options.baseUrl}${request.path}`;
    const secure = url.startsWith('https:');
    let timedOut = false;
    let tooLarge = false;
    const createConnection = (opts: net.NetConnectOpts & tls.ConnectionOptions): net.Socket => {
      const socket = secure ? tls.connect({ ...opts, servername: (opts as { host?: string }).host }) : net.createConnection(opts);
      let received = 0;
      const timer = setTimeout(() => {
        timedOut = true;
        socket.destroy(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_ANSWER_BYTES) {
          tooLarge = true;
          socket.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes: reading stopped`));
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
        .withRequestTimeout(timeoutMs + 1000)
        .withCore({ createConnection } as never);
      if (request.body !== undefined) spec = spec.withBody(request.body);
      const response: unknown = await spec.toss();
      exchange.answer = toAnswer(response);
    } catch (error) {
      exchange.error = tooLarge
        ? `answer larger than 1 MiB (reading stopped after ${MAX_ANSWER_BYTES} bytes)`
        : timedOut
          ? `no answer within ${timeoutMs} ms (timed out)`
          : `no answer: ${describe(error)}`;
      exchange.timedOut = timedOut;
      if (timedOut) this.timedOut.set(request.target, `${request.method} ${request.path}`);
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.message}${'code' in error && typeof error.code === 'string' ? ` (${error.code})` : ''}`;
  return String(error);
}

function toAnswer(response: unknown): HttpAnswer {
  if (typeof response !== 'object' || response === null) throw new Error('the HTTP client returned no response');
  const r = response as { statusCode?: unknown; headers?: unknown; buffer?: unknown };
  if (typeof r.statusCode !== 'number') throw new Error('the HTTP client returned no status');
  const headers: Record<string, string> = {};
  if (typeof r.headers === 'object' && r.headers !== null) {
    for (const [name, value] of Object.entries(r.headers as Record<string, unknown>)) {
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
      else if (Array.isArray(value)) headers[name.toLowerCase()] = value.map(String).join(', ');
    }
  }
  const buffer = Buffer.isBuffer(r.buffer) ? r.buffer : Buffer.alloc(0);
  return { status: r.statusCode, headers, text: buffer.toString('utf8'), bytes: buffer.length };
}
