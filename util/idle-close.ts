/**
 * Closing an idle connection only when it is quiet. The event loop runs its due timers before it reads
 * its sockets, so after a stall (a busy or descheduled process) an idle limit passes with bytes already
 * waiting; closing then resets the connection, and the client loses what it sent (a request on a
 * kept-alive connection, a create too) and the answer it was owed.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** For an idle limit that just passed: runs `quiet` when no byte came on `socket` by the event loop's next read of its sockets, else `busy`. */
export function ifQuiet(socket: Socket, quiet: () => void, busy: () => void): void {
  const read = socket.bytesRead;
  setImmediate(() => {
    if (socket.destroyed) return;
    if (socket.bytesRead === read) quiet();
    else busy();
  });
}

/**
 * A kept-alive connection of `server` idle past its `keepAliveTimeout` is closed only if no request came
 * meanwhile. Node destroys it at once when nothing listens for the server's `timeout` event; a request
 * that came is read and answered instead (Node's parser lifts the idle limit as it reads, and sets it
 * again after the answer).
 */
export function closeIdleWhenQuiet(server: Server): void {
  server.on('timeout', (socket: Socket) =>
    ifQuiet(
      socket,
      () => socket.destroy(),
      () => undefined,
    ),
  );
}
