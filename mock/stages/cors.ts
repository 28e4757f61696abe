/**
 * The mock's CORS stage: the CORS headers on every answer to an allowed origin (`../cors.ts`), and
 * `OPTIONS` on a known path answered here (204 with `Allow`, the preflight headers when it is one).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyCors, isPreflight, preflightHeaders, type CorsPolicy } from '../cors.js';
import { ANSWERED, type Stage } from '../pipeline.js';
import { problem } from '../problems.js';
import { sendEmpty } from '../respond.js';
import { allowHeader } from '../router.js';
import { printable } from '../../util/printable.js';
import type { TargetedExchange } from './exchange.js';

/** OPTIONS on a known path: 204 with `Allow` (and the CORS preflight headers when it is a preflight); a 404 for an unknown one. */
export function answerOptions(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: string[] | undefined,
  pathname: string,
  extraHeaders: readonly string[],
): void {
  if (!allowed) throw problem('notFound', `There is no resource at ${printable(pathname)}.`);
  const headers = isPreflight(req) ? preflightHeaders(allowed, extraHeaders) : {};
  sendEmpty(res, 204, { ...headers, Allow: allowHeader(allowed) });
}

export interface CorsStageDeps {
  cors: CorsPolicy;
  /** The methods the contract allows on a path (upper case), or undefined for an unknown path. */
  allowed: (pathname: string) => string[] | undefined;
}

export function corsStage<X extends TargetedExchange>(deps: CorsStageDeps): Stage<X> {
  const { cors } = deps;
  return {
    name: 'CORS',
    run(x) {
      applyCors(x.req, x.res, cors);
      if (x.method !== 'OPTIONS') return x;
      answerOptions(x.req, x.res, deps.allowed(x.pathname), x.pathname, []);
      return ANSWERED;
    },
  };
}
