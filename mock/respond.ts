/** Writing answers: JSON bodies, problem+json bodies, and pre-serialized bodies. */
import type { ServerResponse } from 'node:http';
import type { ProblemError } from './problems.js';

/**
 * A deliberately damaged delivery of an answer with a body (an injected fault of `faults.ts`: empty,
 * truncate, drip). It gets what `sendBody` would write: the status, every header, the body.
 */
export type Delivery = (res: ServerResponse, status: number, headers: Record<string, string | number>, body: Buffer) => void;

const deliveries = new WeakMap<ServerResponse, Delivery>();

/** Sends the answer of `res` (whatever `sendBody` is asked to send on it) through `delivery`. */
export function deliverThrough(res: ServerResponse, delivery: Delivery): void {
  deliveries.set(res, delivery);
}

export function sendBody(
  res: ServerResponse,
  status: number,
  contentType: string | undefined,
  body: Buffer | string,
  headers?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  // One writeHead with every header (CORS headers set earlier with setHeader are merged by Node).
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const all: Record<string, string | number> = headers === undefined ? {} : { ...headers };
  all['Content-Length'] = length;
  if (contentType !== undefined) all['Content-Type'] = contentType;
  const delivery = deliveries.get(res);
  if (delivery) return delivery(res, status, all, typeof body === 'string' ? Buffer.from(body) : body);
  res.writeHead(status, all);
  // A string body goes out in one write with the header; a Buffer in a second one (writev).
  res.end(body);
}

/**
 * Sends an answer made of `parts` (a listing page: its records and the JSON between them) with
 * backpressure: a part is written only once the connection took the ones before it ('drain'), and the
 * answer drops each part when it has written it, so a client that does not read holds in the mock only
 * what it has not been sent yet. `written(bytes)` is called as each part is handed to the connection
 * (the answer's budget gives back its share). `parts` is emptied as it goes.
 */
export function streamBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  parts: (Buffer | string)[],
  headers: Record<string, string>,
  written: (bytes: number) => void,
): void {
  if (res.headersSent || res.destroyed) return;
  let length = 0;
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': length });
  if (res.req.method === 'HEAD') {
    parts.length = 0;
    res.end();
    return;
  }
  let next = 0;
  const pump = (): void => {
    while (next < parts.length) {
      if (res.destroyed) {
        parts.length = 0;
        return;
      }
      const part = parts[next] ?? '';
      parts[next] = '';
      next += 1;
      const size = typeof part === 'string' ? Buffer.byteLength(part) : part.length;
      if (!res.write(part, () => written(size))) {
        res.once('drain', pump);
        return;
      }
    }
    parts.length = 0;
    res.end();
  };
  res.once('close', () => {
    res.off('drain', pump);
    parts.length = 0;
  });
  pump();
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  sendBody(res, status, 'application/json', JSON.stringify(value), headers);
}

export function sendProblem(res: ServerResponse, error: ProblemError): void {
  sendBody(res, error.kind.status, 'application/problem+json', JSON.stringify(error.body()), error.headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  res.end();
}

/**
 * Calls `undelivered` when the answer just sent (`sendBody`) did not reach the connection: the client
 * closed it before, or while, the answer was written. Free on the hot path: an answer written at once
 * (the usual case) adds no listener. Not for an answer sent through a `Delivery`, which says itself.
 */
export function whenUndelivered(res: ServerResponse, undelivered: () => void): void {
  // A damaged delivery (an injected fault) reports what became of the answer itself.
  if (res.writableFinished || deliveries.has(res)) return;
  if (res.destroyed || !res.writableEnded) {
    undelivered();
    return;
  }
  // Node emits 'finish' even when the connection broke under the answer (the pending writes are
  // called back when the socket is destroyed with its error): finished means finished on a sound socket.
  const socket = res.socket;
  let finished = false;
  res.once('finish', () => (finished = socket?.errored == null));
  res.once('close', () => {
    if (!finished) undelivered();
  });
}
