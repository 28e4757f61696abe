/** The proxy's exchange: the shared front stages' (`../../stages/exchange.ts`) and what the forward stage learns. */
import type { RequestExchange } from '../../stages/exchange.js';

export interface ProxyRequestExchange extends RequestExchange {
  /** The forward stage sent it upstream (the access log marks it). */
  forwarded: boolean;
}

/** The exchange of a request before any stage ran: a literal of one shape (no spread), built once per request. */
export function proxyRequestExchange(req: ProxyRequestExchange['req'], res: ProxyRequestExchange['res']): ProxyRequestExchange {
  return { req, res, target: undefined, host: undefined, pathname: '', method: req.method ?? 'GET', forwarded: false };
}
