/**
 * The credentials the suite sends for an operation, as its security in the contract says: for each
 * alternative (any one suffices) every scheme's credential, each where its scheme carries it (an
 * Authorization header with its HTTP scheme, an API key in a header, the query or a cookie). The value
 * of a scheme is `--credential NAME=VALUE`, else the token (`--token`); an alternative whose values cannot
 * travel as the scheme needs (Basic needs `user:password`, a bearer token an RFC 6750 b64token) is
 * passed over for the next one.
 */
import type { OperationSecurity, SecurityRequirement, SecurityScheme } from '../contract/security.js';
import { isB64Token } from '../util/bearer.js';

/** The user of the Basic credentials the auth checks' non-Bearer class sends (the token is the password). */
export const BASIC_USER = 'conformance';

/** The Basic credentials sent by the non-Bearer class (redacted in reports). */
export function basicCredentials(token: string): string {
  return Buffer.from(`${BASIC_USER}:${token}`).toString('base64');
}

/** What a request carries for its credentials: headers, query parameters and cookies. */
export interface CredentialParts {
  headers: Record<string, string>;
  query: [string, string][];
}

export interface CredentialValues {
  token: string;
  /** `--credential NAME=VALUE`: the value of one scheme of the contract. */
  byScheme: Readonly<Record<string, string>>;
}

/** The value the suite has for a scheme: its own `--credential`, else the token (for Basic: the token as the password of the user `conformance`). */
export function valueOf(scheme: SecurityScheme, values: CredentialValues): string {
  const own = values.byScheme[scheme.name];
  if (own !== undefined) return own;
  return scheme.carrier.kind === 'authorization' && scheme.carrier.scheme === 'basic' && !values.token.includes(':')
    ? `conformance:${values.token}`
    : values.token;
}

/** The value can travel as the scheme carries it; else why not. */
export function unusable(scheme: SecurityScheme, value: string): string | undefined {
  const carrier = scheme.carrier;
  if (carrier.kind === 'apiKey') return /^[\x21-\x7e]+$/.test(value) ? undefined : 'an API key of visible ASCII characters';
  if (carrier.scheme === 'basic') return value.includes(':') ? undefined : 'user:password for Basic';
  if (carrier.scheme === 'bearer') return isB64Token(value) ? undefined : 'an RFC 6750 bearer token';
  return /^[\x21-\x7e]+$/.test(value) ? undefined : `a ${carrier.scheme} credential of visible ASCII characters`;
}

/** One scheme's credential as the request carries it. */
export function partsOf(scheme: SecurityScheme, value: string, into: CredentialParts = { headers: {}, query: [] }): CredentialParts {
  const carrier = scheme.carrier;
  if (carrier.kind === 'authorization') {
    const name = `${carrier.scheme.charAt(0).toUpperCase()}${carrier.scheme.slice(1)}`;
    into.headers['authorization'] = `${name} ${carrier.scheme === 'basic' ? Buffer.from(value).toString('base64') : value}`;
  } else if (carrier.in === 'header') into.headers[carrier.name] = value;
  else if (carrier.in === 'query') into.query.push([carrier.name, value]);
  else into.headers['cookie'] = [into.headers['cookie'], `${carrier.name}=${value}`].filter(Boolean).join('; ');
  return into;
}

/** The first alternative of the operation the suite can satisfy, with its credentials; undefined when none (or none needed). */
export function credentialsFor(
  security: OperationSecurity,
  values: CredentialValues,
): { alternative: SecurityRequirement; parts: CredentialParts } | undefined {
  for (const alternative of security.alternatives) {
    if (alternative.some((scheme) => unusable(scheme, valueOf(scheme, values)) !== undefined)) continue;
    const parts: CredentialParts = { headers: {}, query: [] };
    for (const scheme of alternative) partsOf(scheme, valueOf(scheme, values), parts);
    return { alternative, parts };
  }
  return undefined;
}

/** `path` with query parameters appended (the one helper, in `util/`). */
export { withQuery } from '../util/query.js';
