/**
 * Operations of the contract that have no stateful handler are answered by `@stoplight/prism-http`
 * (its router, request validation and example-based mocker), so an operation added to the contract
 * is mocked with no new code. Prism is imported only when such an operation exists.
 */
import type { IncomingMessage } from 'node:http';
import type { OpenApiDocument } from '../contract/document.js';

export interface FallbackRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

export interface FallbackAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Fallback = (request: FallbackRequest) => Promise<FallbackAnswer>;

const silent = (): void => undefined;

/** A Prism-shaped logger that logs nothing (Prism's own log lines are not ours). */
function silentLogger(): unknown {
  const logger: Record<string, unknown> = {
    debug: silent,
    info: silent,
    warn: silent,
    error: silent,
    success: silent,
    trace: silent,
    fatal: silent,
  };
  logger['child'] = () => logger;
  return logger;
}

function serialize(body: unknown, contentType: string | undefined): string {
  if (body === undefined) return '';
  if (typeof body === 'string' && !(contentType ?? '').includes('json')) return body;
  return JSON.stringify(body);
}

/** Prism's package: an optional peer dependency (util/peer.ts), needed only when such an operation exists. */
export const PRISM_PACKAGE = '@stoplight/prism-http';

export async function createPrismFallback(doc: OpenApiDocument): Promise<Fallback> {
  const prism = await import('@stoplight/prism-http');
  const operations = await prism.getHttpOperationsFromSpec(structuredClone(doc));
  const instance = prism.createInstance(
    {
      mock: { dynamic: false },
      // The mock's security stage has already enforced the contract's security (every scheme, every alternative).
      checkSecurity: false,
      validateRequest: true,
      validateResponse: false,
      errors: false,
      upstreamProxy: undefined,
      isProxy: false,
    },
    { logger: silentLogger() },
  );
  return async (request) => {
    const result = await instance.request(
      {
        method: request.method.toLowerCase() as 'get',
        url: { path: request.path, query: request.query },
        headers: request.headers,
        body: request.body,
      },
      operations,
    )();
    if (result._tag === 'Left') {
      const problemJson = prism.ProblemJsonError.toProblemJson(result.left);
      return {
        status: problemJson.status || 500,
        headers: { 'Content-Type': 'application/problem+json' },
        body: JSON.stringify(problemJson),
      };
    }
    const output = result.right.output;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(output.headers ?? {})) headers[name] = String(value);
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    return { status: output.statusCode, headers, body: serialize(output.body, contentType) };
  };
}

/** The query of a request URL, as Prism expects it. */
export function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return query;
}

/** The headers of a request, flattened to strings. */
export function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}
