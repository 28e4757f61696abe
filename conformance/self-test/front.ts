/**
 * The front of the mock-based reference server: a small HTTP server that reads each request whole,
 * finds its operation (method and path template of the operations model), runs it through the
 * transformations of its faults (`overrides.ts`) and forwards what they make of it to the base server
 * (the in-process mock, one session per front), answering what comes back, transformed on the way.
 * Without faults it forwards every request and answer unchanged (framing aside: bodies are read
 * whole, and sent with a Content-Length, or chunked when they came chunked).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeIdleWhenQuiet } from '../../util/idle-close.js';
import { isObject, type JsonValue } from '../../contract/document.js';
import type { OperationModel, OperationsModel } from '../../contract/operations-model.js';

/** A request as the front read it. */
export interface FrontRequest {
  method: string;
  /** The path as sent (still encoded), without the query. */
  path: string;
  /** The query as sent, with its `?` (empty when there is none). */
  search: string;
  /** Lower-case names, as Node reads them (hop-by-hop ones included: the forwarder drops them). */
  headers: http.IncomingHttpHeaders;
  /** The body; undefined when none was sent. */
  body?: Buffer;
  /** The body came in chunked transfer coding (no Content-Length): it goes on the same way. */
  chunked: boolean;
}

/** An answer, read whole. */
export interface FrontAnswer {
  status: number;
  /** Lower-case names; framing headers are set again when it is sent. */
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** The operation a request names, and its path parameters (decoded). */
export interface Routed {
  op: OperationModel;
  params: Record<string, string>;
}

/** Sends a request on (to the next transformation, in the end to the base). */
export type Next = (request: FrontRequest) => Promise<FrontAnswer>;

/** One fault's transformation of every request of the front (most act on their own operation only). */
export type Transform = (request: FrontRequest, routed: Routed | undefined, next: Next) => Promise<FrontAnswer>;

/** Headers of one connection (RFC 9110 §7.6.1), and the framing the forwarder sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
]);

/** The operation of a method and path: the templates of the same method and length whose literal segments match, the most literal first. */
export function routerOf(model: OperationsModel): (method: string, path: string) => Routed | undefined {
  const templates = model.operations
    .map((op) => ({ op, segments: op.path.split('/') }))
    .sort((a, b) => literals(b.segments) - literals(a.segments));
  return (method, path) => {
    const segments = path.split('/');
    for (const { op, segments: template } of templates) {
      if (op.method !== method.toUpperCase() || template.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const matches = template.every((part, i) => {
        const sent = segments[i] ?? '';
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return part === sent;
        if (sent === '') return false;
        try {
          params[name] = decodeURIComponent(sent);
          return true;
        } catch {
          return false;
        }
      });
      if (matches) return { op, params };
    }
    return undefined;
  };
}

const literals = (segments: readonly string[]): number => segments.filter((s) => !s.startsWith('{')).length;

/** Forwards requests to `baseUrl` in the session `session` (every answer read whole). */
export function forwarder(baseUrl: string, session: string, agent: http.Agent): Next {
  const base = new URL(baseUrl);
  return (request) =>
    new Promise<FrontAnswer>((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      headers['x-mock-session'] = session;
      if (request.body !== undefined) {
        if (request.chunked) headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = request.body.length;
      }
      let settled = false;
      const req = http.request(
        { hostname: base.hostname, port: base.port, method: request.method, path: `${request.path}${request.search}`, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => {
            if (!settled) reject(error);
            settled = true;
          });
          res.on('end', () => {
            settled = true;
            resolve({ status: res.statusCode ?? 502, headers: { ...res.headers }, body: Buffer.concat(chunks) });
          });
        },
      );
      // The base may answer (413) and close before it has read the whole body: its answer counts.
      req.on('error', (error) => {
        if (!settled) reject(error);
        settled = true;
      });
      req.end(request.body);
    });
}

/** Answers `answer` on `res` (the framing set anew; HEAD keeps the base's Content-Length and sends no body). */
function send(req: http.IncomingMessage, res: http.ServerResponse, answer: FrontAnswer): void {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  if (req.method === 'HEAD') {
    const length = answer.headers['content-length'];
    if (length !== undefined) headers['content-length'] = length;
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  if (answer.status !== 204 && answer.status !== 304 && answer.status >= 200) headers['content-length'] = answer.body.length;
  res.writeHead(answer.status, headers);
  res.end(answer.status === 204 || answer.status === 304 ? undefined : answer.body);
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

/** Starts a front on a free loopback port: each request through `transforms` (the first outermost), then `base`. */
export async function startFront(
  route: (method: string, path: string) => Routed | undefined,
  transforms: readonly Transform[],
  base: Next,
): Promise<Front> {
  const through = (index: number): Next => {
    const transform = transforms[index];
    if (transform === undefined) return base;
    const next = through(index + 1);
    return (request) => transform(request, route(request.method, request.path), next);
  };
  const first = through(0);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      const at = url.indexOf('?');
      const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
      const request: FrontRequest = {
        method: req.method ?? 'GET',
        path: at < 0 ? url : url.slice(0, at),
        search: at < 0 ? '' : url.slice(at),
        headers: req.headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
        chunked: req.headers['content-length'] === undefined && /\bchunked\b/i.test(req.headers['transfer-encoding'] ?? ''),
      };
      first(request).then(
        (answer) => send(req, res, answer),
        (error: unknown) => {
          // The base could not be reached: the reference server itself is broken, said as such.
          const detail = `the self-test's reference front could not reach its base: ${error instanceof Error ? error.message : String(error)}`;
          send(req, res, problemAnswer(502, detail));
        },
      );
    });
  });
  // The suite's request that came just as a kept-alive connection's idle limit passed in a stall is answered, not reset.
  closeIdleWhenQuiet(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer. */
export function jsonAnswer(status: number, value: JsonValue, headers: http.OutgoingHttpHeaders = {}): FrontAnswer {
  return { status, headers: { ...headers, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

/** An answer without a body. */
export function emptyAnswer(status: number): FrontAnswer {
  return { status, headers: {}, body: Buffer.alloc(0) };
}

/** A problem+json answer. */
export function problemAnswer(status: number, detail: string): FrontAnswer {
  const body = { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail };
  return { status, headers: { 'content-type': 'application/problem+json' }, body: Buffer.from(JSON.stringify(body)) };
}

/** The JSON of a body (a request's or an answer's), or undefined when it is none. */
export function jsonOf(body: Buffer | undefined): JsonValue | undefined {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The request with another JSON body (sent with a Content-Length). */
export function withJsonBody(request: FrontRequest, value: JsonValue): FrontRequest {
  return { ...request, body: Buffer.from(JSON.stringify(value)), chunked: false };
}

/** The answer with another JSON body (its other headers kept). */
export function withAnswerJson(answer: FrontAnswer, value: JsonValue): FrontAnswer {
  return { ...answer, body: Buffer.from(JSON.stringify(value)) };
}

/** The request's path with its path parameters replaced (`values` by name, encoded), for the operation `routed` names. */
export function withParams(request: FrontRequest, routed: Routed, values: Record<string, string>): FrontRequest {
  const params = { ...routed.params, ...values };
  return { ...request, path: routed.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? '')) };
}

/** The request's query with the named parameters left out. */
export function withoutQuery(request: FrontRequest, names: readonly string[]): FrontRequest {
  const query = new URLSearchParams(request.search.slice(1));
  for (const name of names) query.delete(name);
  const text = query.toString();
  return { ...request, search: text === '' ? '' : `?${text}` };
}

/** The object of a body, or undefined. */
export function objectOf(body: Buffer | undefined): Record<string, JsonValue> | undefined {
  const value = jsonOf(body);
  return isObject(value) ? value : undefined;
}
