/**
 * The suite's connections, as real clients use them: keep-alive connections kept in a pool and
 * reused (the most recently used idle one first, as browsers and HTTP libraries do), plus
 * connections leased for one sequence of requests (a credential case sent on the connection that has
 * just carried an authenticated request) or for one request only (a fresh connection). Each
 * connection is an undici `Client` (one socket at a time, no pipelining) whose connector records
 * every socket it makes, so a request knows whether it went out on a new connection or reused one
 * (`Connection.request`: `reused`).
 */
import type tls from 'node:tls';
import { buildConnector, Client, type Dispatcher } from 'undici';

/** How long an idle connection is kept (undici's default; a server's `Keep-Alive: timeout=N` hint shortens it). */
const KEEP_ALIVE_MS = 4000;

export interface ConnectionOptions {
  /** The origin (`http://host:port`), userinfo removed. */
  origin: string;
  /** With --ca: the bundled CAs and the given ones. */
  secureContext?: tls.SecureContext;
}

/** One keep-alive connection (an undici Client: at most one socket at a time, one request at a time). */
export class Connection {
  private readonly client: Client;
  /** Sockets this connection has made so far (a new one after the server or a time-out closed the last). */
  private made = 0;
  /** Told when this connection makes a socket for the request in flight. */
  private socketMade: (() => void) | undefined;
  /**
   * @param base the run's connector (one for all connections: TLS sessions are resumed across them)
   * @param counted the run's count of sockets made
   */
  constructor(origin: string, base: buildConnector.connector, counted: { sockets: number }) {
    this.client = new Client(origin, {
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // The suite bounds each request itself (--timeout, counted from the connection made).
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: (connectOptions, callback) => {
        base(connectOptions, (error, socket) => {
          if (error !== null) return callback(error, null);
          this.made += 1;
          counted.sockets += 1;
          socket.setNoDelay(true);
          this.socketMade?.();
          callback(null, socket);
        });
      },
    });
  }

  /**
   * Sends one request (one at a time on a connection). `connected` is called when a new socket is made
   * for it (the time-out counts from then); the answer says whether the request reused a socket that
   * had carried a request before (a kept-alive connection): no socket was made for it.
   */
  async request(options: Dispatcher.RequestOptions, connected: () => void): Promise<{ data: Dispatcher.ResponseData; reused: boolean }> {
    const before = this.made;
    this.socketMade = connected;
    try {
      const data = await this.client.request(options);
      return { data, reused: before > 0 && this.made === before };
    } catch (error) {
      throw new SendError(error, before > 0 && this.made === before);
    } finally {
      this.socketMade = undefined;
    }
  }

  /** Closes the socket at once (a request in flight fails). */
  async destroy(): Promise<void> {
    await this.client.destroy().catch(() => undefined);
  }
}

/** A request that got no answer, and whether it went out on a reused (kept-alive) socket. */
export class SendError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly reused: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SendError';
  }
}

/** The run's connections: a pool of kept-alive ones, and leased ones for sequences and single requests. */
export class Connections {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  /** Sockets opened by the run. */
  readonly counted = { sockets: 0 };
  private readonly connector: buildConnector.connector;
  constructor(private readonly options: ConnectionOptions) {
    this.connector = buildConnector({ ...(options.secureContext !== undefined ? { secureContext: options.secureContext } : {}) });
  }

  private make(): Connection {
    const connection = new Connection(this.options.origin, this.connector, this.counted);
    this.all.add(connection);
    return connection;
  }

  /** An idle pooled connection (the most recently used), or a new one; give it back with `release`. */
  take(): Connection {
    return this.idle.pop() ?? this.make();
  }

  release(connection: Connection): void {
    this.idle.push(connection);
  }

  /** A connection of its own (not pooled): closed by `discard`. */
  lease(): Connection {
    return this.make();
  }

  async discard(connection: Connection): Promise<void> {
    this.all.delete(connection);
    await connection.destroy();
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const all = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(all.map((c) => c.destroy()));
  }
}
