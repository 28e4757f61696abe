/**
 * The Host check (DNS-rebinding defence): a request must name the mock. Accepted names: the loopback
 * names (`localhost`, `127.0.0.1`, `[::1]`), any IP literal (a rebinding attack needs a DNS name),
 * the `--host` the mock listens on, and the names given with `--allowed-host`. The port is not
 * compared: a dev-server proxy (Vite, webpack) forwards its own `Host: localhost:5173`. Anything
 * else is answered 421 Misdirected Request. An HTTP/1.0 request without Host names nothing and
 * passes (browsers always send Host); an HTTP/1.1 request without Host, or any with two Host lines,
 * never gets here (`framing.ts`: 400).
 */
import { isIP } from 'node:net';
import { problem } from './problems.js';

export interface HostPolicy {
  /** Lower-case host names (without port) that name the mock besides loopback and IP literals. */
  names: ReadonlySet<string>;
  /** Host values already accepted, as sent (a client sends the same one every time): the hot path skips parsing. */
  accepted: Set<string>;
}

const ACCEPTED_CACHE = 64;

export function hostPolicy(listenHost: string, allowedHosts: readonly string[]): HostPolicy {
  const names = new Set(['localhost', ...allowedHosts.map((name) => name.toLowerCase())]);
  if (!isIP(listenHost) && listenHost !== '') names.add(listenHost.toLowerCase());
  return { names, accepted: new Set() };
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower case, without the trailing dot. */
export function hostName(value: string): string {
  const trimmed = value.trim().toLowerCase();
  const name = trimmed.startsWith('[')
    ? trimmed.slice(1, trimmed.indexOf(']') < 0 ? undefined : trimmed.indexOf(']'))
    : trimmed.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** True when the Host value names the mock. */
export function hostAllowed(policy: HostPolicy, value: string | undefined): boolean {
  if (value === undefined) return true;
  const name = hostName(value);
  return isIP(name) !== 0 || policy.names.has(name);
}

/** Throws a 421 problem when the Host header (or the authority of an absolute-form target) names another server. */
export function checkHost(policy: HostPolicy, value: string | undefined): void {
  if (value === undefined || policy.accepted.has(value)) return;
  if (hostAllowed(policy, value)) {
    if (policy.accepted.size < ACCEPTED_CACHE) policy.accepted.add(value);
    return;
  }
  const shown = (value ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
  throw problem(
    'misdirectedRequest',
    `The Host "${shown}" does not name this mock (DNS-rebinding defence); use localhost or 127.0.0.1, or start the mock with --allowed-host ${hostName(shown) || 'NAME'}.`,
  );
}
