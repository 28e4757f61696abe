/**
 * Authentication as the contract's security states it, per operation: every scheme OpenAPI 3.1 can
 * declare (bearer tokens, RFC 6750; Basic, RFC 7617; other HTTP schemes; API keys in a header, the query
 * or a cookie; OAuth 2 and OpenID Connect as bearer tokens). Any well-formed credential is accepted
 * unless it is a rejected one (`--reject-token`), or, when accepted credentials are configured
 * (`--token`, for every scheme: a bearer token, an API key; for Basic `user:password`, or any user with a
 * token as the password), not one of them.
 */
import type { IncomingMessage } from 'node:http';
import type { OperationSecurity, SecurityRequirement, SecurityScheme } from '../contract/security.js';
import { BEARER_CREDENTIALS } from '../util/bearer.js';
import { problem } from './problems.js';

export const REALM = 'goods-mock';

export interface AuthPolicy {
  /** When non-empty, only these tokens are accepted. */
  tokens: readonly string[];
  /** Always refused. */
  rejectTokens: readonly string[];
  /**
   * Authorization headers already accepted, and their tokens: a client sends the same header on every
   * request, so it is checked once (at most `ACCEPTED_CACHE` headers are kept; the policy never changes).
   */
  accepted: Map<string, string>;
}

const ACCEPTED_CACHE = 64;

/** A policy with its cache of accepted headers. */
export function authPolicy(tokens: readonly string[], rejectTokens: readonly string[]): AuthPolicy {
  return { tokens, rejectTokens, accepted: new Map() };
}

function challenge(error?: string): Record<string, string> {
  return { 'WWW-Authenticate': error ? `Bearer realm="${REALM}", error="${error}"` : `Bearer realm="${REALM}"` };
}

/** The token from a valid Authorization header; throws a 401 problem saying what is wrong (like the other `check*` steps). */
export function checkBearer(header: string | undefined, policy: AuthPolicy): string {
  const known = header === undefined ? undefined : policy.accepted.get(header);
  if (known !== undefined) return known;
  if (header === undefined || header.trim() === '') {
    throw problem('unauthorized', 'The request has no Authorization header; send "Authorization: Bearer <token>".', undefined, challenge());
  }
  const scheme = /^\S+/.exec(header)?.[0] ?? '';
  if (scheme.toLowerCase() !== 'bearer') {
    throw problem(
      'unauthorized',
      `The Authorization scheme must be "Bearer", not "${scheme.slice(0, 20)}"; send "Authorization: Bearer <token>".`,
      undefined,
      challenge(),
    );
  }
  const match = BEARER_CREDENTIALS.exec(header);
  const token = match?.[1];
  if (token === undefined) {
    throw problem(
      'unauthorized',
      'The bearer token is malformed: it must be one RFC 6750 b64token (letters, digits, "-._~+/", then optional "=").',
      undefined,
      challenge('invalid_token'),
    );
  }
  if (policy.rejectTokens.includes(token)) {
    throw problem(
      'unauthorized',
      'The bearer token is rejected by this mock (a --reject-token); use another token.',
      undefined,
      challenge('invalid_token'),
    );
  }
  if (policy.tokens.length > 0 && !policy.tokens.includes(token)) {
    throw problem(
      'unauthorized',
      'The bearer token is not one of the tokens this mock accepts (--token).',
      undefined,
      challenge('invalid_token'),
    );
  }
  if (policy.accepted.size < ACCEPTED_CACHE) policy.accepted.set(header, token);
  return token;
}

/** The credential a request presents for one scheme, or why it presents none that is accepted. */
type SchemeOutcome = { ok: true } | { ok: false; why: string; presented: boolean };

/** Values of a `Cookie` header (`a=1; b=2`), by name. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** A credential accepted by the policy: not rejected, and on the --token list when there is one. */
function judged(policy: AuthPolicy, credential: string, also: readonly string[] = []): SchemeOutcome {
  if ([credential, ...also].some((c) => policy.rejectTokens.includes(c)))
    return { ok: false, why: 'it is rejected by this mock (a --reject-token)', presented: true };
  if (policy.tokens.length > 0 && ![credential, ...also].some((c) => policy.tokens.includes(c)))
    return { ok: false, why: 'it is not one of the credentials this mock accepts (--token)', presented: true };
  return { ok: true };
}

function outcomeOf(scheme: SecurityScheme, req: Pick<IncomingMessage, 'headers'>, search: string, policy: AuthPolicy): SchemeOutcome {
  const carrier = scheme.carrier;
  if (carrier.kind === 'apiKey') {
    const value =
      carrier.in === 'header'
        ? req.headers[carrier.name]
        : carrier.in === 'query'
          ? (new URLSearchParams(search.slice(1)).get(carrier.name) ?? undefined)
          : cookieValue(req.headers.cookie, carrier.name);
    const key = Array.isArray(value) ? value[0] : value;
    if (key === undefined || key === '') return { ok: false, why: `no API key in the ${carrier.in} ${carrier.name}`, presented: false };
    return judged(policy, key);
  }
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return { ok: false, why: 'no Authorization header', presented: false };
  const [name = '', ...rest] = header.trim().split(/ +/);
  if (name.toLowerCase() !== carrier.scheme)
    return { ok: false, why: `the Authorization scheme is "${name.slice(0, 20)}", not "${carrier.scheme}"`, presented: false };
  if (carrier.scheme === 'bearer') {
    const token = BEARER_CREDENTIALS.exec(header)?.[1];
    if (token === undefined)
      return {
        ok: false,
        why: 'the bearer token is malformed (one RFC 6750 b64token: letters, digits, "-._~+/", then optional "=")',
        presented: true,
      };
    return judged(policy, token);
  }
  const credential = rest.join(' ');
  if (carrier.scheme === 'basic') {
    const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(credential) ? Buffer.from(credential, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon < 0) return { ok: false, why: 'the Basic credentials are not base64 of "user:password" (RFC 7617)', presented: true };
    return judged(policy, decoded, [decoded.slice(colon + 1)]);
  }
  if (credential === '') return { ok: false, why: `no credentials after "${name}"`, presented: true };
  return judged(policy, credential);
}

/** The challenges of a 401 for these schemes (RFC 9110 §11.6.1): one per HTTP scheme; for API keys alone, one naming where the key goes. */
function challenges(schemes: readonly SecurityScheme[], rejectedBearer: boolean): string {
  const http = [...new Set(schemes.flatMap((s) => (s.carrier.kind === 'authorization' ? [s.carrier.scheme] : [])))].map((scheme) => {
    if (scheme === 'bearer') return `Bearer realm="${REALM}"${rejectedBearer ? ', error="invalid_token"' : ''}`;
    if (scheme === 'basic') return `Basic realm="${REALM}", charset="UTF-8"`;
    return `${scheme.charAt(0).toUpperCase()}${scheme.slice(1)} realm="${REALM}"`;
  });
  if (http.length > 0) return http.join(', ');
  const key = schemes.find((s) => s.carrier.kind === 'apiKey');
  return key !== undefined && key.carrier.kind === 'apiKey'
    ? `ApiKey realm="${REALM}", in="${key.carrier.in}", name="${key.carrier.name}"`
    : `Bearer realm="${REALM}"`;
}

/** How to send what an alternative needs (`Authorization: Bearer <token>`, `the header x-api-key`). */
function howTo(alternative: SecurityRequirement): string {
  return alternative
    .map((s) =>
      s.carrier.kind === 'authorization'
        ? `"Authorization: ${s.carrier.scheme.charAt(0).toUpperCase()}${s.carrier.scheme.slice(1)} <${s.carrier.scheme === 'basic' ? 'base64 of user:password' : 'credentials'}>"`
        : `an API key in the ${s.carrier.in} ${s.carrier.name}`,
    )
    .join(' and ');
}

/**
 * The operation's security, as the contract states it: any one alternative whose schemes all present
 * an accepted credential lets the request through; else a 401 saying what was wrong and what to send,
 * with a challenge per scheme. A bearer-only operation goes through `checkBearer` (its cache: the hot path).
 */
export function checkSecurity(
  security: OperationSecurity,
  req: Pick<IncomingMessage, 'headers'>,
  search: string,
  policy: AuthPolicy,
): void {
  const { alternatives } = security;
  if (!security.secured) return;
  const [only] = alternatives;
  if (alternatives.length === 1 && only?.length === 1 && only[0]?.carrier.kind === 'authorization' && only[0].carrier.scheme === 'bearer') {
    checkBearer(req.headers.authorization, policy);
    return;
  }
  let first: { why: string; scheme: SecurityScheme } | undefined;
  let rejectedBearer = false;
  for (const alternative of alternatives) {
    const failed = alternative.map((scheme) => ({ scheme, outcome: outcomeOf(scheme, req, search, policy) })).find((r) => !r.outcome.ok);
    if (failed === undefined) return;
    if (!failed.outcome.ok) {
      if (failed.scheme.carrier.kind === 'authorization' && failed.scheme.carrier.scheme === 'bearer' && failed.outcome.presented)
        rejectedBearer = true;
      if (first === undefined || (failed.outcome.presented && !first.why.startsWith('no ')))
        first = { why: failed.outcome.why, scheme: failed.scheme };
    }
  }
  const schemes = alternatives.flat();
  throw problem(
    'unauthorized',
    `The request's credentials are not accepted (${first?.why ?? 'none'}); send ${alternatives.map(howTo).join(', or ')}.`,
    undefined,
    { 'WWW-Authenticate': challenges(schemes, rejectedBearer) },
  );
}
