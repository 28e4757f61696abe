/**
 * The HTTP server around the mock's request path: safe defaults (loopback, header/request/keep-alive
 * timeouts, header size limit) and a problem+json answer even to requests Node cannot parse.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createMockApp, type ServedContent } from './app.js';
import { resolveConfig, type MockConfig } from './config.js';
import { Lingering } from './linger.js';
import { closeIdleWhenQuiet } from '../util/idle-close.js';
import type { ProxyConfig } from './proxy/config.js';
import { problemBody, PROBLEMS, type ProblemKind } from './problems.js';
import { writeBatch } from './respond.js';
import { codeOf, messageOf } from '../util/errors.js';

export interface MockServer extends ServedContent {
  /** Base URL, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  host: string;
  port: number;
  /** Stops listening, closes every connection and the state file. */
  close(): Promise<void>;
}

export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderSize: 16 * 1024,
  /**
   * Connections the kernel completes and queues while the mock has not accepted them yet (the OS caps it:
   * `net.core.somaxconn` on Linux). With Node's default (511), a burst of 2,000 connections overflowed the
   * queue thousands of times: handshakes dropped and retried a second or more later, and reset under load.
   */
  listenBacklog: 4096,
};

/** A raw problem+json answer for a request Node could not parse (no request or response object exists). */
function clientErrorAnswer(kind: ProblemKind, detail: string, headers = ''): string {
  const body = JSON.stringify(problemBody(kind, detail));
  return (
    `HTTP/1.1 ${kind.status} ${kind.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `${headers}Connection: close\r\n\r\n${body}`
  );
}

/**
 * Requests still being answered per connection, so that an unparsable pipelined request is answered
 * after the answers of the complete requests before it (HTTP/1.1 answers in order), not instead of
 * them. A request whose own body is unfinished gets no wait: the error is in that request. Cheap on
 * the hot path: no listener per request; answered entries are dropped when the next request comes.
 */
class PendingAnswers {
  private readonly pending = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }[]>();

  track(socket: Socket, req: IncomingMessage, res: ServerResponse): void {
    const list = this.pending.get(socket);
    if (!list) {
      this.pending.set(socket, [{ req, res }]);
      return;
    }
    // Answered entries are dropped from the front (answers mostly end in request order); an entry
    // answered out of order waits there until those before it are answered.
    let answered = 0;
    while (answered < list.length && list[answered]?.res.writableEnded) answered++;
    if (answered > 0) list.splice(0, answered);
    list.push({ req, res });
  }

  /** Runs `then` once every complete request already started on the socket is answered. */
  afterPending(socket: Socket, then: () => void): void {
    const open = (this.pending.get(socket) ?? []).filter((entry) => !entry.res.writableEnded);
    if (open.length === 0 || open.some((entry) => !entry.req.complete)) {
      then();
      return;
    }
    let left = open.length;
    const done = () => {
      left -= 1;
      if (left === 0) then();
    };
    for (const { res } of open) res.once('close', done);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: SERVER_LIMITS.listenBacklog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * What `createMockServer` starts: the mock's configuration, and with `proxy` (`--proxy URL`) the
 * validating proxy in place of the mock's own handlers. The proxy builds on the mock, so the mock's
 * own configuration does not know the proxy's.
 */
export interface ServerConfig extends MockConfig {
  /** `--proxy URL`: forward every API request to that server and judge each exchange (mock/proxy/). */
  proxy?: ProxyConfig;
}

/** Starts the mock. Rejects (with a message naming the file and what to fix) when it cannot start. */
export async function createMockServer(partial: Partial<ServerConfig> = {}): Promise<MockServer> {
  const { proxy, ...mockPartial } = partial;
  const config = resolveConfig(mockPartial);
  // The request's time limit also bounds how long a create waits for the shared store's answer (app.ts).
  config.requestTimeoutMs ??= SERVER_LIMITS.requestTimeoutMs;
  // `--proxy URL`: the validating proxy (mock/proxy/) in place of the mock's own handlers; loaded only then.
  const app = proxy ? await (await import('./proxy/app.js')).createProxyApp(config, proxy) : await createMockApp(config);
  const headersTimeout = config.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs;
  const keepAliveTimeout = config.keepAliveTimeoutMs ?? SERVER_LIMITS.keepAliveTimeoutMs;
  const pending = new PendingAnswers();
  // An answer that closes its connection is followed by a lingering close (linger.ts): the client still
  // sending reads the answer, and a request parsed after it never reaches the app. So are the 503
  // `mock-busy` past --max-connections (Node's HTTP parser is attached to every accepted socket before our
  // 'connection' listener runs, so a request sent on a refused connection is still parsed: a create
  // answered "busy" must not be recorded) and the answers to what Node cannot parse.
  const lingering = new Lingering();
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: config.requestTimeoutMs,
      // Node checks the header and request timeouts only this often (default 30 s).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
      maxHeaderSize: SERVER_LIMITS.maxHeaderSize,
      keepAliveTimeout,
      requireHostHeader: false,
    },
    (req, res) => {
      if (lingering.has(req.socket)) {
        req.resume();
        return;
      }
      pending.track(req.socket, req, res);
      app.handle(req, res);
    },
  );
  server.keepAliveTimeout = keepAliveTimeout;
  // A request that came on a kept-alive connection just as its idle limit passed in a stall is answered, not reset.
  closeIdleWhenQuiet(server);

  // Open connections (--max-connections): one past the limit gets a 503 problem and is closed, so
  // floods of idle or stalled connections cannot exhaust memory or file descriptors.
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= config.maxConnections) {
      socket.on('error', () => undefined);
      lingering.close(
        socket,
        clientErrorAnswer(
          PROBLEMS.busy,
          `The mock has ${config.maxConnections} connections open, its most (--max-connections); retry shortly, close idle connections, or raise the option.`,
          'Retry-After: 1\r\n',
        ),
      );
      return;
    }
    open++;
    socket.once('close', () => open--);
    lingering.watch(socket);
    // Before Node's own listener, which ends the connection when the client closed its sending side.
    socket.prependListener('end', writeBatch);
  });
  // A CONNECT request has its own event; without a listener Node drops the connection unanswered. It
  // is never forwarded, in proxy mode neither: the proxy forwards only to its --proxy URL.
  server.on('connect', (_req, socket: Socket) => {
    lingering.close(
      socket,
      clientErrorAnswer(
        PROBLEMS.badRequest,
        'CONNECT is not supported: neither the mock nor its --proxy mode is a forward proxy or a tunnel.',
      ),
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Answered and closing: what still arrives cannot be parsed either (the parser stopped at the first
    // error), and is dropped while the connection lingers.
    if (lingering.has(socket)) return;
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? clientErrorAnswer(PROBLEMS.headersTooLarge, `The request headers are larger than ${SERVER_LIMITS.maxHeaderSize} bytes.`)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? clientErrorAnswer(PROBLEMS.requestTimeout, 'The request was not received in time.')
          : clientErrorAnswer(PROBLEMS.badRequest, 'The request is not valid HTTP/1.1.');
    const send = () => {
      if (socket.writable) lingering.close(socket, answer);
      else socket.destroy();
    };
    // Answers of earlier complete pipelined requests on this connection go first, each with its own status.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') send();
    else pending.afterPending(socket, send);
  });
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await app.close();
    const code = codeOf(error) ?? '';
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use; choose another with --port (0 picks a free one)`
        : `cannot listen on ${config.host}:${config.port}: ${messageOf(error)}`,
      { cause: error },
    );
  }
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    orderNumbers: app.orderNumbers,
    lotIds: app.lotIds,
    prismOperations: app.prismOperations,
    ...(app.exampleRead !== undefined ? { exampleRead: app.exampleRead } : {}),
    resources: app.resources,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => app.close());
      return closing;
    },
  };
}
