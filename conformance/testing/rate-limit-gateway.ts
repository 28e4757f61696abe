/**
 * A rate-limiting gateway for the tests: in front of a server, it forwards at most `limit` requests in
 * any window of `windowMs` and answers the others 429 with `Retry-After` and a problem+json body, as
 * API gateways do (the specification says of rate limits: not shown). It counts what it refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RateLimitOptions {
  /** Requests forwarded per window (default 10). */
  limit?: number;
  /** The window, ms (default 1000: `limit` requests a second). */
  windowMs?: number;
  /** The `Retry-After` value, seconds (default 1). */
  retryAfter?: number;
  /** Answer 503 instead of 429. */
  status?: 429 | 503;
}

export interface RateLimitGateway {
  /** `http://127.0.0.1:port`. */
  url: string;
  close(): Promise<void>;
  /** Requests answered 429 (or 503) by the gateway itself, and requests forwarded. */
  readonly refused: number;
  readonly forwarded: number;
}

export async function startRateLimitGateway(upstream: string, options: RateLimitOptions = {}): Promise<RateLimitGateway> {
  const limit = options.limit ?? 10;
  const windowMs = options.windowMs ?? 1000;
  const status = options.status ?? 429;
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  /** When each forwarded request of the current window arrived. */
  const recent: number[] = [];
  let refused = 0;
  let forwarded = 0;
  const server = http.createServer((req, res) => {
    const now = performance.now();
    while (recent.length > 0 && now - (recent[0] ?? 0) >= windowMs) recent.shift();
    if (recent.length >= limit) {
      refused += 1;
      req.resume();
      const body = JSON.stringify({
        type: 'https://gateway.example/problems/rate-limited',
        title: status === 429 ? 'Too Many Requests' : 'Service Unavailable',
        status,
        detail: `more than ${limit} requests in ${windowMs} ms`,
      });
      res.writeHead(status, {
        'content-type': 'application/problem+json',
        'retry-after': String(options.retryAfter ?? 1),
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    recent.push(now);
    forwarded += 1;
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
