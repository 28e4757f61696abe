/**
 * Loopback servers for the bench and the tests: an HTTP or HTTPS server listening on 127.0.0.1 at a
 * free port, its URL, and a close that ends open (keep-alive) connections first.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';

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

/** The first port of the range the kernel hands out to `listen(0)`; 32768 (Linux's default) when unknown. */
export async function ephemeralLow(rangeFile = '/proc/sys/net/ipv4/ip_local_port_range'): Promise<number> {
  const low = Number((await readFile(rangeFile, 'utf8').catch(() => '')).trim().split(/\s+/)[0]);
  return Number.isInteger(low) && low > 1024 && low <= 65535 ? low : 32768;
}

/** Resolves the error code of connecting to 127.0.0.1:`port` (undefined when something accepted). */
function connectOutcome(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * A loopback port nothing listens on, and that stays so while the tests run: one refusing connections
 * now, drawn below the range free ports (`listen(0)`, get-port) come from. A port closed after a
 * `listen(0)` would not do: a server started a moment later, in this process or a parallel one, may
 * be handed the same port, and "unreachable" then reaches it.
 */
export async function closedPort(): Promise<number> {
  const low = await ephemeralLow();
  const from = Math.max(1024, Math.floor(low / 2));
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if ((await connectOutcome(port)) === 'ECONNREFUSED') return port;
  }
  throw new Error(`no closed loopback port found between ${from} and ${low - 1} in 50 tries`);
}
