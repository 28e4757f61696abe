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

/**
 * An answer up to this size (the socket's default high-water mark: one write hands it to the kernel) has
 * its header set at once and its body written at the end of this turn of the event loop (`sendBody`).
 */
export const BATCHED_BODY_BYTES = 16 * 1024;

interface BatchedAnswer {
  res: ServerResponse;
  body: Buffer | string;
  /** Set by `whenUndelivered` before the body is written. */
  undelivered: (() => void) | undefined;
}

/** The answers of this turn whose bodies are still to be written, in the order they were sent. */
let batch: BatchedAnswer[] = [];

/**
 * Writes the bodies `sendBody` holds for the end of this turn, now. The server calls it when a client
 * closes its sending side: Node ends such a connection at once, and the answers it was owed must be
 * written before, as they were when they went out unbatched.
 */
export function writeBatch(): void {
  const due = batch;
  batch = [];
  for (const { res, body, undelivered } of due) {
    // Destroyed meanwhile (the client left, or an error after the answer ended the connection): not written.
    try {
      if (!res.destroyed && !res.writableEnded) res.end(body);
    } catch {
      // Out of any request's handler now, so no 500 can answer it: should the write throw, that
      // connection ends (and its create, if any, is logged undelivered) and the rest of the turn goes out.
      res.destroy();
    }
    if (undelivered) whenUndelivered(res, undelivered);
  }
}

/**
 * Sends a whole answer: its status, headers and body. The header is set at once (`headersSent` is true,
 * a second answer is refused, a header Node refuses throws here); a body of at most `BATCHED_BODY_BYTES`
 * is written at the end of this turn of the event loop, with the others sent in the same turn, in order.
 * Under load a turn handles the requests of many connections: their answers then leave together, and
 * the client side, woken once for all of them, sends its next requests together, so each request costs
 * fewer wake-ups of both processes. An idle mock's turn ends at once, so an answer waits for nothing.
 */
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
  if (length > BATCHED_BODY_BYTES) {
    // A string body goes out in one write with the header; a Buffer in a second one (writev).
    res.end(body);
    return;
  }
  if (batch.push({ res, body, undelivered: undefined }) === 1) setImmediate(writeBatch);
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
 * closed it before, or while, the answer was written. Free on the hot path: an answer written whole
 * (the usual case) adds no listener. Not for an answer sent through a `Delivery`, which says itself.
 */
export function whenUndelivered(res: ServerResponse, undelivered: () => void): void {
  // A damaged delivery (an injected fault) reports what became of the answer itself.
  if (res.writableFinished || deliveries.has(res)) return;
  // A body still to be written this turn: judged once it is (most likely the last one sent).
  for (let i = batch.length - 1; i >= 0; i--) {
    const entry = batch[i];
    if (entry?.res === res) {
      entry.undelivered = undelivered;
      return;
    }
  }
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
