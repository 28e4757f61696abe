/**
 * A slow server for the time-to-verdict table: a proxy in front of the mock that delays every answer
 * (errors too) by `delayMs`, after the mock answered. Runs in the bench process (node:http; the
 * request and the answer are read whole, the answer written after the delay).
 */
import http from 'node:http';
import { listenOn } from '../support/loopback.js';

export interface DelayingProxy {
  url: string;
  close(): Promise<void>;
}

export async function startDelayingProxy(upstream: string, delayMs: number): Promise<DelayingProxy> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const later = (fn: () => void): void => {
      if (delayMs > 0) setTimeout(fn, delayMs);
      else fn();
    };
    // The request is read whole before it is forwarded, so the answer never goes out while the client
    // still sends (a connection closed with unread data is reset, and the client loses the answer).
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => {
      let answered = false;
      const forward = http.request(
        // A connection of its own per request, as the suite opens.
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent: false },
        (answer) => {
          answered = true;
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          let done = false;
          // The mock may answer (413) and close before a large body is sent: an answer read whole stands.
          const finish = (): void => {
            if (done) return;
            done = true;
            if (!answer.complete) return later(() => res.destroy());
            later(() => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(chunks));
            });
          };
          answer.on('end', finish);
          answer.on('close', finish);
        },
      );
      forward.on('error', () => {
        if (!answered) later(() => res.destroy());
      });
      forward.end(Buffer.concat(body));
    });
  });
  const { url, close } = await listenOn(server);
  return { url, close };
}
