/**
 * CORS, so a page on another origin can call every operation with an Authorization header:
 * `Access-Control-Allow-Origin` on every answer (errors included) for an allowed origin, and
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) answered 204.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Prefer, X-Mock-Session';
export const EXPOSED_HEADERS = 'WWW-Authenticate, Allow, Location, Content-Length, Retry-After, X-Mock-Fault, X-Mock-Session';

export interface CorsPolicy {
  /** Allowed origins; `*` allows any. */
  origins: readonly string[];
}

/** Sets the CORS headers of an answer to a request from `Origin` (nothing for a disallowed origin). */
export function applyCors(req: IncomingMessage, res: ServerResponse, policy: CorsPolicy): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (policy.origins.includes('*')) {
    res.setHeader('Access-Control-Allow-Origin', '*');
  } else if (policy.origins.includes(origin)) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
  } else {
    res.setHeader('Vary', 'Origin');
    return false;
  }
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  return true;
}

/** True for a CORS preflight request. */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

/** The headers of a preflight answer for a path that allows `methods`. */
export function preflightHeaders(methods: readonly string[], extraHeaders: readonly string[] = []): Record<string, string> {
  return {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': [
      ALLOWED_REQUEST_HEADERS,
      ...extraHeaders.map((h) => h.replace(/(^|-)\w/g, (c) => c.toUpperCase())),
    ].join(', '),
    'Access-Control-Max-Age': '600',
  };
}
