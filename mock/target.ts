/**
 * The request target (RFC 9112 §3.2): origin-form (`/path?query`) as sent by clients, and
 * absolute-form (`http://host:port/path?query`), which a server must accept. Answers the path and,
 * for absolute-form, the scheme and the authority that then stands for the Host header.
 *
 * The proxy (`--proxy URL`) forwards no target as it came: `proxiedTarget` rebuilds it in origin-form
 * from the path with its dot segments removed, so an upstream that normalises paths is never reached
 * outside the `--proxy` URL's path.
 */
import { problem } from './problems.js';
import { printable } from '../util/printable.js';

export interface Target {
  /** The path as sent (not decoded), always starting with "/". */
  pathname: string;
  /** `?query` or "". */
  search: string;
  /** The authority of an absolute-form target (`host:port`), else undefined. */
  authority?: string;
  /** The scheme of an absolute-form target, lower case (`http` or `https`), else undefined. */
  scheme?: string;
}

const ABSOLUTE = /^(https?):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?/i;

/** Splits `req.url`. Throws a 400 problem for a target that is neither origin-form nor absolute-form. */
export function parseTarget(url: string): Target {
  if (url.startsWith('/')) {
    const query = url.indexOf('?');
    return query < 0 ? { pathname: url, search: '' } : { pathname: url.slice(0, query), search: url.slice(query) };
  }
  const absolute = ABSOLUTE.exec(url);
  if (absolute) {
    return {
      pathname: absolute[3] || '/',
      search: absolute[4] ?? '',
      authority: absolute[2] ?? '',
      scheme: (absolute[1] ?? '').toLowerCase(),
    };
  }
  throw problem('invalidPath', 'The request target must be an absolute path starting with "/" (or an absolute http:// URL).');
}

/** `.` and `..` path segments, also percent-encoded in either case (`%2e`, `.%2E`, `%2e%2e`): RFC 3986 §2.3, §6.2.2.2. */
const DOT = /^(?:\.|%2e)$/i;
const DOT_DOT = /^(?:\.|%2e){2}$/i;

/** What a path with a dot segment (read strictly or leniently) or a fragment contains: without it, nothing is removed. */
const MAY_CLIMB = /[.\\#]|%(?:2e|2f|5c)/i;

/**
 * A dot or a separator hidden from one decoding, which an upstream that decodes twice or decodes leniently
 * reads as `.`, `/` or `\`: double percent-encoding (`%252e`, `%25252f`, `%25c0`), and overlong UTF-8
 * (`%c0%ae` is `.`, `%c0%af` is `/`, also in three and four bytes), which no valid request contains.
 */
const HIDDEN =
  /%25(?:25)*(?:2e|2f|5c|c0|c1|e0|f0)|%c[01]%[89ab][0-9a-f]|%e0%[89][0-9a-f]%[89ab][0-9a-f]|%f0%8[0-9a-f]%[89ab][0-9a-f]%[89ab][0-9a-f]/i;

/** What an upstream may also take for a segment separator: `\`, and `/` or `\` percent-encoded. */
const LENIENT_SEPARATOR = /\/|\\|%2f|%5c/i;

/**
 * True when the segments climb above their root under a lenient reading: `\`, `%2F` and `%5C` split
 * segments too, and a `;` starts parameters that do not count (`..;x` is `..`, as Tomcat reads it).
 */
function climbsLeniently(path: string): boolean {
  let depth = 0;
  for (const piece of path.split(LENIENT_SEPARATOR).slice(1)) {
    const segment = piece.split(';', 1)[0] ?? '';
    if (DOT.test(segment)) continue;
    if (!DOT_DOT.test(segment)) depth += 1;
    else if (depth === 0) return true;
    else depth -= 1;
  }
  return false;
}

/**
 * The origin-form target the proxy forwards (below the `--proxy` URL's path): the path with its dot
 * segments removed (RFC 3986 §5.2.4), every other segment as sent, and the query as sent; a fragment
 * is dropped. Throws a 400 `invalid-path` problem when the path leaves its root (`/..`, `/a/../..`,
 * `/%2e%2e/`), also when it would under a lenient upstream's reading (`/..%2F..`, `/..;/..`, `\`):
 * the root stands for the `--proxy` URL's path, which no forwarded request may leave. A path that hides a
 * dot or a separator from one decoding (`%252e%252e`, `..%c0%af..`) is refused wherever it points.
 */
export function proxiedTarget(target: Target): string {
  if (HIDDEN.test(target.pathname)) {
    throw problem(
      'invalidPath',
      `The path ${printable(target.pathname)} hides a dot or a separator from one decoding (double percent-encoding such as %252e, or overlong UTF-8 such as %c0%af); the proxy forwards no such path: send "." and "/" as they are.`,
    );
  }
  // Most paths have no `.`, `\`, `#`, `%2e`, `%2f` or `%5c`: no dot segment, read any way; kept as sent.
  if (!MAY_CLIMB.test(target.pathname)) {
    const hash = target.search.indexOf('#');
    return `${target.pathname}${hash < 0 ? target.search : target.search.slice(0, hash)}`;
  }
  // A fragment (clients do not send one) ends the target: a `?` after it is part of it.
  const fragment = target.pathname.indexOf('#');
  const path = fragment < 0 ? target.pathname : target.pathname.slice(0, fragment);
  const search = fragment < 0 ? (target.search.split('#', 1)[0] ?? '') : '';
  const pieces = path.split('/').slice(1);
  const kept: string[] = [];
  let outside = false;
  pieces.forEach((segment, i) => {
    const last = i === pieces.length - 1;
    if (DOT.test(segment)) {
      if (last) kept.push('');
    } else if (DOT_DOT.test(segment)) {
      if (kept.length === 0) outside = true;
      kept.pop();
      if (last) kept.push('');
    } else {
      kept.push(segment);
    }
  });
  const normalised = `/${kept.join('/')}`;
  // The path as sent and as forwarded: either, read leniently, must stay below the root.
  if (outside || climbsLeniently(path) || climbsLeniently(normalised)) {
    throw problem(
      'invalidPath',
      `The path ${printable(path)} leaves the root of the proxied paths (".." or "%2e%2e" segments); the proxy forwards only paths below its --proxy URL.`,
    );
  }
  return `${normalised}${search}`;
}
