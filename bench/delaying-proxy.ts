/**
 * A slow server for the time-to-verdict table: answers what the mock answered, errors too, `delayMs` later.
 * A request is read whole first: an answer sent while the client still sends is lost to a connection reset.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { listenOn, type Loopback } from '../support/loopback.js';

export function startDelayingProxy(upstream: string, delayMs: number): Promise<Loopback> {
  const { hostname: host, port } = new URL(upstream);
  const later = (fn: () => void): unknown => (delayMs > 0 ? setTimeout(fn, delayMs) : fn());
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    let answered = false;
    const request = http.request({ host, port, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      answered = true;
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      // The mock may answer (413) and close before a large body is sent: an answer read whole stands.
      const send = () =>
        answer.complete ? res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks)) : res.destroy();
      answer.once('close', () => later(send));
    });
    request.on('error', () => {
      if (!answered) later(() => res.destroy());
    });
    request.end(body);
  };
  const server = http.createServer((req, res) => {
    buffer(req)
      .then((body) => forward(req, res, body))
      .catch(() => res.destroy());
  });
  return listenOn(server);
}
