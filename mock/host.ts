/**
 * The Host check (DNS-rebinding defence): a request must name the mock. Accepted names: the loopback
 * names (`localhost`, `127.0.0.1`, `[::1]`), any IP literal (a rebinding attack needs a DNS name),
 * the `--host` the mock listens on, and the names given with `--allowed-host`. The port is not
 * compared: a dev-server proxy (Vite, webpack) forwards its own `Host: localhost:5173`. Anything
 * else is answered 421 Misdirected Request. An HTTP/1.0 request without Host names nothing and
 * passes (browsers always send Host); an HTTP/1.1 request without Host, or any with two Host lines,
 * never gets here (`framing.ts`: 400). In proxy mode an absolute-form target must name this server
 * itself (`namesThisServer`), or the proxy would forward for any host.
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

/** An IP address as `net` gives it for a socket, IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as IPv4. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped?.[1] ?? address).toLowerCase();
}

/** Where a connection came to: the server's own address and port on it. */
export interface LocalEnd {
  localAddress?: string | undefined;
  localPort?: number | undefined;
}

/**
 * True when the scheme and authority of an absolute-form target name this server itself: `http`, no
 * userinfo, the port the connection came to (80 when none is given), and a host that is a name of
 * the policy (`localhost`, `--host`, `--allowed-host`) or the very IP address the connection came to.
 * Stricter than the Host check, which takes any IP literal and any port: a proxy that forwarded an
 * absolute-form target naming another server would be a forward proxy.
 */
export function namesThisServer(policy: HostPolicy, scheme: string, authority: string, local: LocalEnd): boolean {
  if (scheme !== 'http' || authority.includes('@')) return false;
  const bracket = authority.startsWith('[') ? authority.indexOf(']') : -1;
  const colon = authority.indexOf(':', bracket < 0 ? 0 : bracket);
  const portText = colon < 0 ? '' : authority.slice(colon + 1);
  if (!/^\d*$/.test(portText) || (portText === '' ? 80 : Number(portText)) !== local.localPort) return false;
  const name = hostName(colon < 0 ? authority : authority.slice(0, colon));
  if (isIP(name) !== 0) return local.localAddress !== undefined && plainAddress(name) === plainAddress(local.localAddress);
  return policy.names.has(name);
}
