/** One-off HTTP requests on loopback (no keep-alive), and polling until a server answers. */
import { request } from 'node:http';
import { messageOf } from '../contract/errors.js';

/** A request of the bench: method, headers and an optional body. */
export interface ProbeRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** An answer: status and body text. */
export interface ProbeAnswer {
  status: number;
  body: string;
}

/** Sends one request (fresh connection) and reads the whole answer. */
export function send(url: string, req: ProbeRequest, timeoutMs = 5000): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: req.method, headers: req.headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/**
 * Repeats `req` every `intervalMs` until it is answered with `expectStatus`; answers the time in ms
 * from `startedAt` (a `performance.now()` value) to that answer. Rejects after `timeoutMs`, or as soon
 * as `gaveUp()` says so (e.g. the server process exited).
 */
export async function waitUntilAnswered(
  url: string,
  req: ProbeRequest,
  options: { expectStatus: number; startedAt: number; timeoutMs?: number; intervalMs?: number; gaveUp?: () => string | undefined },
): Promise<number> {
  const { expectStatus, startedAt, timeoutMs = 20000, intervalMs = 5 } = options;
  let last = 'no answer yet';
  while (performance.now() - startedAt < timeoutMs) {
    const reason = options.gaveUp?.();
    if (reason !== undefined) throw new Error(`${url}: ${reason} (last attempt: ${last})`);
    try {
      const answer = await send(url, req, 2000);
      if (answer.status === expectStatus) return performance.now() - startedAt;
      last = `status ${answer.status}: ${answer.body.slice(0, 200)}`;
    } catch (error) {
      last = messageOf(error);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${url} did not answer ${expectStatus} within ${timeoutMs} ms (last attempt: ${last})`);
}
