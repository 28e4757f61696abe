/**
 * Loopback servers for the bench and the tests: an HTTP or HTTPS server listening on 127.0.0.1 at a
 * free port, its URL, and a close that ends open (keep-alive) connections first.
 */
import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A listening loopback server. */
export interface Loopback {
  /** `http://127.0.0.1:port` (`https://` for a TLS server; no trailing slash). */
  url: string;
  port: number;
  /** Ends every open connection, then closes the server (rejects if it was not listening). */
  close: () => Promise<void>;
}

/**
 * Has `server` listen on 127.0.0.1 at `port` (default 0: a free one); rejects with the listen error
 * (a port in use, say).
 */
export async function listenOn(server: HttpServer | HttpsServer, port = 0): Promise<Loopback> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error): void => reject(error);
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const scheme = server instanceof HttpsServer ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Starts `handler` on a node:http server at a free port of 127.0.0.1. */
export function listen(handler: RequestListener): Promise<Loopback> {
  return listenOn(createServer(handler));
}
