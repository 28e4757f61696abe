/**
 * The HTTP server around the mock's request path: safe defaults (loopback, header/request/keep-alive
 * timeouts, header size limit) and a problem+json answer even to requests Node cannot parse.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createMockApp } from './app.js';
import { resolveConfig, type MockConfig } from './config.js';

export interface MockServer {
  /** Base URL, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  host: string;
  port: number;
  /** The fixture order numbers served. */
  orderNumbers: string[];
  /** The ids of the fixture lots (valid `fk_lot_id` values). */
  lotIds: number[];
  /** Operations answered by Prism because they have no stateful handler. */
  prismOperations: string[];
  /** Stops listening, closes every connection and the state file. */
  close(): Promise<void>;
}

export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderSize: 16 * 1024,
};

function clientErrorAnswer(status: number, title: string, detail: string, type = 'bad-request'): string {
  const body = JSON.stringify({ type: `https://goods.example/problems/${type}`, title, status, detail });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Starts the mock. Rejects (with a message naming the file and what to fix) when it cannot start. */
export async function createMockServer(partial: Partial<MockConfig> = {}): Promise<MockServer> {
  const config = resolveConfig(partial);
  // `--proxy URL`: the validating proxy (mock/proxy/) in place of the mock's own handlers; loaded only then.
  const app = config.proxy ? await (await import('./proxy/app.js')).createProxyApp(config, config.proxy) : await createMockApp(config);
  const headersTimeout = config.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs;
  const keepAliveTimeout = config.keepAliveTimeoutMs ?? SERVER_LIMITS.keepAliveTimeoutMs;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: config.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs,
      // Node checks the header and request timeouts only this often (default 30 s).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
      maxHeaderSize: SERVER_LIMITS.maxHeaderSize,
      keepAliveTimeout,
      requireHostHeader: false,
    },
    (req, res) => app.handle(req, res),
  );
  server.keepAliveTimeout = keepAliveTimeout;
  // Open connections (--max-connections): one past the limit gets a 503 problem and is closed, so
  // floods of idle or stalled connections cannot exhaust memory or file descriptors.
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= config.maxConnections) {
      socket.on('error', () => undefined);
      socket.end(
        clientErrorAnswer(
          503,
          'Service Unavailable',
          `The mock has ${config.maxConnections} connections open, its most (--max-connections); retry shortly, close idle connections, or raise the option.`,
          'mock-busy',
        ),
      );
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
  // A CONNECT request has its own event; without a listener Node drops the connection unanswered.
  server.on('connect', (_req, socket: Socket) => {
    socket.end(clientErrorAnswer(400, 'Bad Request', 'CONNECT is not supported: this mock is not a proxy.'));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const answer =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? clientErrorAnswer(
            431,
            'Request Header Fields Too Large',
            `The request headers are larger than ${SERVER_LIMITS.maxHeaderSize} bytes.`,
          )
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? clientErrorAnswer(408, 'Request Timeout', 'The request was not received in time.')
          : clientErrorAnswer(400, 'Bad Request', 'The request is not valid HTTP/1.1.');
    socket.end(answer);
  });
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use; choose another with --port (0 picks a free one)`
        : `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
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
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => app.close());
      return closing;
    },
  };
}
