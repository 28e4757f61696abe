/**
 * The request target (RFC 9112 §3.2): origin-form (`/path?query`) as sent by clients, and
 * absolute-form (`http://host:port/path?query`), which a server must accept. Answers the path and,
 * for absolute-form, the authority that then stands for the Host header.
 */
import { problem } from './problems.js';

export interface Target {
  /** The path as sent (not decoded), always starting with "/". */
  pathname: string;
  /** `?query` or "". */
  search: string;
  /** The authority of an absolute-form target (`host:port`), else undefined. */
  authority?: string;
}

const ABSOLUTE = /^https?:\/\/([^/?#]*)([^?#]*)(\?[^#]*)?/i;

/** Splits `req.url`. Throws a 400 problem for a target that is neither origin-form nor absolute-form. */
export function parseTarget(url: string): Target {
  if (url.startsWith('/')) {
    const query = url.indexOf('?');
    return query < 0 ? { pathname: url, search: '' } : { pathname: url.slice(0, query), search: url.slice(query) };
  }
  const absolute = ABSOLUTE.exec(url);
  if (absolute) {
    return { pathname: absolute[2] || '/', search: absolute[3] ?? '', authority: absolute[1] ?? '' };
  }
  throw problem('invalidPath', 'The request target must be an absolute path starting with "/" (or an absolute http:// URL).');
}
