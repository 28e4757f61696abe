/**
 * Raw HTTP/1.1 over node:net, for requests node's http client refuses to send (bad methods, bad
 * percent-encoding, broken framing, random bytes) and for answers it would hide. One connection per
 * exchange; the answer is parsed by hand (status line, headers, Content-Length or chunked body).
 */
import { connect, type Socket } from 'node:net';

export interface RawExchangeOptions {
  host: string;
  port: number;
  /** The bytes to send; an array is sent in parts (each after the previous one was flushed). */
  data: Buffer | Buffer[];
  /** After sending: half-close (`end`, the default), keep the socket open (`keep`) or `destroy` it. */
  after?: 'end' | 'keep' | 'destroy';
  /** Stop sending the remaining parts as soon as an answer starts (a server may answer 413 early). */
  stopOnAnswer?: boolean;
  /** After the first part (the head), wait up to this long for an early answer before sending the rest. */
  waitForEarlyAnswerMs?: number;
  /** Give up after this many milliseconds. */
  timeoutMs: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawOutcome {
  /** The parsed answer, if a complete one arrived. */
  answer?: RawAnswer;
  /** Every byte received. */
  received: Buffer;
  /** How the exchange ended. */
  ended: 'answered' | 'closed' | 'reset' | 'timeout';
  /** A socket error seen on the way (EPIPE, ECONNRESET), if any. */
  error?: string;
}

/** Parses one HTTP/1.1 answer at the start of `data`; undefined while it is incomplete. */
export function parseAnswer(data: Buffer, closed: boolean, head = false): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1];
  if (status === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
  }
  const rest = data.subarray(end + 4);
  const code = Number(status);
  if (head || code === 204 || code === 304 || (code >= 100 && code < 200)) return { status: code, headers, body: Buffer.alloc(0) };
  const length = headers['content-length'];
  if (length !== undefined) {
    const size = Number(length);
    return rest.length >= size ? { status: code, headers, body: rest.subarray(0, size) } : undefined;
  }
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', offset);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(offset, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) return { status: code, headers, body: Buffer.concat(parts) };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
  }
  return closed ? { status: code, headers, body: rest } : undefined;
}

function flushed(socket: Socket, part: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) {
      resolve();
      return;
    }
    socket.write(part, () => resolve());
  });
}

function earlyAnswer(socket: Socket, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.off('data', done);
      socket.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    socket.once('data', done);
    socket.once('close', done);
  });
}

/** Sends bytes on a fresh connection and collects what comes back. Never rejects. */
export function rawExchange(options: RawExchangeOptions): Promise<RawOutcome> {
  const parts = Array.isArray(options.data) ? options.data : [options.data];
  const head = /^HEAD /.test((parts[0] ?? Buffer.alloc(0)).subarray(0, 5).toString('latin1'));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const socket = connect({ host: options.host, port: options.port });
    const finish = (ended: RawOutcome['ended']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const received = Buffer.concat(chunks);
      const answer = parseAnswer(received, true, head);
      resolve({
        ...(answer ? { answer } : {}),
        received,
        ended: answer && ended !== 'timeout' ? 'answered' : ended,
        ...(error ? { error } : {}),
      });
    };
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parseAnswer(Buffer.concat(chunks), false, head)) finish('answered');
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
      if (e.code === 'ECONNRESET') finish('reset');
    });
    socket.on('close', () => finish('closed'));
    socket.once('connect', () => {
      void (async () => {
        for (const [index, part] of parts.entries()) {
          if (socket.destroyed || (options.stopOnAnswer && chunks.length > 0)) break;
          await flushed(socket, part);
          if (index === 0 && options.waitForEarlyAnswerMs !== undefined) await earlyAnswer(socket, options.waitForEarlyAnswerMs);
        }
        if (socket.destroyed) return;
        if (options.after === 'destroy') finish('closed');
        else if (options.after !== 'keep') socket.end();
      })();
    });
  });
}
