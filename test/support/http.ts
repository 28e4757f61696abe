/** Small helpers for tests that start local HTTP servers on loopback. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Loopback servers live in `support/loopback.ts` (shared with the bench); the browser, client and proxy tests import them from here. */
export { listen, type Loopback as RunningServer } from '../../support/loopback.js';

/** Reads a request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
