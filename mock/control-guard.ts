/**
 * Browser safety of the mock's controls (`/__mock`): a page on another origin may neither read nor
 * change them. A request with an `Origin` is accepted only from the mock's own origin (the dashboard)
 * or an origin listed with `--cors-origin` (never through `*`), else 403; CORS headers are given
 * only to those origins. `POST /__mock/reset` also needs the `X-Mock-Reset` header, which no page
 * can send to another origin without a CORS preflight the mock refuses (an HTML form cannot send it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EXPOSED_HEADERS } from './cors.js';
import { problem } from './problems.js';

export const RESET_HEADER = 'x-mock-reset';

export interface ControlPolicy {
  /** Origins allowed besides the mock's own (the explicit `--cors-origin` values; `*` is not one). */
  origins: readonly string[];
}

export function controlPolicy(corsOrigins: readonly string[]): ControlPolicy {
  return { origins: corsOrigins.filter((origin) => origin !== '*') };
}

/** True when `origin` (absent for same-origin GETs and non-browser clients) may use `/__mock`. */
export function controlOriginAllowed(policy: ControlPolicy, origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`) return true;
  return policy.origins.includes(origin);
}

/** Refuses (403) a `/__mock` request from a foreign origin; sets the CORS headers for an allowed one. */
export function guardControl(policy: ControlPolicy, req: IncomingMessage, res: ServerResponse, host: string | undefined): void {
  const origin = req.headers.origin;
  if (!controlOriginAllowed(policy, origin, host)) {
    res.setHeader('Vary', 'Origin');
    throw problem(
      'foreignOrigin',
      `The page at ${(origin ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 100)} may not use /__mock; only the mock's own pages and the origins of --cors-origin may.`,
    );
  }
  if (origin === undefined) return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}

/** Refuses (403) a reset without the `X-Mock-Reset` header. */
export function checkResetConfirmed(req: IncomingMessage): void {
  const value = req.headers[RESET_HEADER];
  if (typeof value === 'string' && value.trim() !== '') return;
  throw problem(
    'resetNotConfirmed',
    'POST /__mock/reset needs the header "X-Mock-Reset: 1" (so that no web page can reset the mock with a plain form).',
  );
}

/**
 * Refuses (401) a change of the mock's state without the `--admin-token` (when one is set); `what`
 * names the request (`POST /__mock/reset`).
 */
export function checkAdminToken(req: IncomingMessage, adminToken: string | undefined, what: string): void {
  if (adminToken === undefined || req.headers.authorization === `Bearer ${adminToken}`) return;
  throw problem('unauthorized', `${what} needs "Authorization: Bearer <admin token>" (the --admin-token of this mock).`, undefined, {
    'WWW-Authenticate': 'Bearer realm="goods-mock-admin"',
  });
}
