/**
 * Lingering close (RFC 9112 §9.6, tear-down). When an answer closes its connection (the client sent
 * `Connection: close`, or the mock's answer says it), Node sends the answer and closes both halves at
 * once. If the client is still sending (the rest of an upload the mock refused with 413, 401 or 503
 * before reading it), its next bytes reach a closed socket and the kernel answers them with a reset; the
 * client's next write then fails (EPIPE) and most clients drop the connection with the answer unread in
 * their buffers: they report a broken pipe, never the 413. Servers avoid it by closing in stages: the
 * answer, then a FIN (the sending half only), then reading and dropping what still comes until the client
 * closes its half, goes quiet, or a time limit passes. This module makes Node's close after an answer do
 * that, and `close` does it after an answer written as raw bytes (to what Node could not parse, a
 * connection past --max-connections, CONNECT). Requests parsed while a connection lingers are never
 * handled: the mock said it would answer no more.
 */
import type { Socket } from 'node:net';
import { ifQuiet } from '../util/idle-close.js';

/** How long a closing connection keeps reading what its client still sends. */
export interface LingerLimits {
  /** Closed at once when nothing came for this long. */
  idleMs: number;
  /** Closed at once after this long, however much still comes (a client that never stops sending). */
  totalMs: number;
}

/**
 * nginx's defaults (lingering_timeout 5 s, lingering_time 30 s). A client on a loaded machine can pause
 * for seconds between writes; closing on it then resets it and it drops the answer it had not read yet
 * (seen at 2 s: hundreds of 2,000 stalled uploads lost their 503 under load, `floods.test.ts`).
 */
export const LINGER_LIMITS: LingerLimits = { idleMs: 5_000, totalMs: 30_000 };

/** The connections of one server that answered their last and are draining (see the module's comment). */
export class Lingering {
  private readonly draining = new WeakSet<Socket>();

  constructor(private readonly limits: LingerLimits = LINGER_LIMITS) {}

  /** True once the mock closed `socket` after its last answer: a request parsed on it now must not be handled. */
  has(socket: Socket): boolean {
    return this.draining.has(socket);
  }

  /**
   * Makes the close Node does after an answer that ends `socket` (its `destroySoon`, called when the answer
   * is written) a lingering one. Call on each new connection.
   */
  watch(socket: Socket): void {
    socket.destroySoon = () => this.close(socket);
  }

  /** Ends `socket` after `last` (an answer written as raw bytes, when Node has no response for it), lingering. */
  close(socket: Socket, last?: string): void {
    if (socket.destroyed) return;
    // From now on no request of this connection is handled, whatever was already read of it.
    this.draining.add(socket);
    if (socket.writable) {
      if (last === undefined) socket.end();
      else socket.end(last);
    }
    const done = (): void => {
      socket.destroy();
    };
    /** Both halves are done once the answer is out. */
    const doneWhenWritten = (): void => {
      if (socket.writableFinished) done();
      else socket.once('finish', done);
    };
    // The client closed its half already: nothing more can come, so no reset can happen.
    if (socket.readableEnded) {
      doneWhenWritten();
      return;
    }
    // A socket no parser reads any more (a CONNECT request's) is read too: what comes is dropped.
    socket.resume();
    // Reading continues (Node's parser drops the rest of a body nobody reads); each byte restarts the idle
    // timer (Node restarts it as its parser reads, too: that parser reads the stream itself, past 'data').
    // Node's HTTP server listens for the same timeout and would destroy the socket at once: the decision is
    // this one's now.
    socket.removeAllListeners('timeout');
    // When the idle limit passes, bytes may already wait unread after a stall (util/idle-close.ts): the
    // connection closes only if none came, else the idle timer restarts and it lingers on.
    socket.on('timeout', () => ifQuiet(socket, done, () => socket.setTimeout(this.limits.idleMs)));
    socket.setTimeout(this.limits.idleMs);
    const cap = setTimeout(done, this.limits.totalMs);
    cap.unref();
    socket.once('close', () => clearTimeout(cap));
    // The client closed its half too.
    socket.once('end', doneWhenWritten);
  }
}
