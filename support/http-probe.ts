/** One-off HTTP requests on loopback (no keep-alive): a fresh connection each, so a probe never reuses a socket. */
import { request } from 'node:http';

/** A request: method, headers and an optional body. */
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
