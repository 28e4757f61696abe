/**
 * Authentication as the contract's security states it, per operation: every scheme OpenAPI 3.1 can
 * declare (bearer tokens, RFC 6750; Basic, RFC 7617; other HTTP schemes; API keys in a header, the query
 * or a cookie; OAuth 2 and OpenID Connect as bearer tokens). Any well-formed credential is accepted
 * unless it is a rejected one (`--reject-token`), or, when accepted credentials are configured
 * (`--token`, for every scheme: a bearer token, an API key; for Basic `user:password`, or any user with a
 * token as the password), not one of them. What a request presents for a scheme (missing, another
 * scheme, malformed, a credential) is judged by `judgments/request.ts`, the one place of that syntax;
 * this module applies the mock's policy to the credentials and words the 401s.
 */
import type { IncomingMessage } from 'node:http';
import type { OperationSecurity, SecurityRequirement, SecurityScheme } from '../contract/security.js';
import { credentialsFault, presentedBearer, type Credential, type CredentialFault } from '../judgments/request.js';
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
  const presented = presentedBearer(header);
  if (presented.kind === 'missing')
    throw problem('unauthorized', 'The request has no Authorization header; send "Authorization: Bearer <token>".', undefined, challenge());
  if (presented.kind === 'other-scheme')
    throw problem(
      'unauthorized',
      `The Authorization scheme must be "Bearer", not "${presented.scheme.slice(0, 20)}"; send "Authorization: Bearer <token>".`,
      undefined,
      challenge(),
    );
  if (presented.kind === 'malformed')
    throw problem(
      'unauthorized',
      'The bearer token is malformed: it must be one RFC 6750 b64token (letters, digits, "-._~+/", then optional "=").',
      undefined,
      challenge('invalid_token'),
    );
  const token = presented.credential;
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
  if (header !== undefined && policy.accepted.size < ACCEPTED_CACHE) policy.accepted.set(header, token);
  return token;
}

/** Why the policy refuses a well-formed credential (undefined: accepted): a rejected one, or one not on the --token list when there is one. */
function refusal(policy: AuthPolicy): (presented: Credential) => string | undefined {
  return (presented) => {
    const offered = presented.password === undefined ? [presented.credential] : [presented.credential, presented.password];
    if (offered.some((c) => policy.rejectTokens.includes(c))) return 'it is rejected by this mock (a --reject-token)';
    if (policy.tokens.length > 0 && !offered.some((c) => policy.tokens.includes(c)))
      return 'it is not one of the credentials this mock accepts (--token)';
    return undefined;
  };
}

/** Why a scheme's credential was not accepted, in the 401's words. */
function whyNot(scheme: SecurityScheme, fault: CredentialFault, headers: IncomingMessage['headers']): string {
  const carrier = scheme.carrier;
  switch (fault.kind) {
    case 'missing':
      return carrier.kind === 'apiKey' ? `no API key in the ${carrier.in} ${carrier.name}` : 'no Authorization header';
    case 'other-scheme':
      return `the Authorization scheme is "${fault.scheme.slice(0, 20)}", not "${carrier.kind === 'authorization' ? carrier.scheme : ''}"`;
    case 'malformed':
      if (carrier.kind === 'authorization' && carrier.scheme === 'bearer')
        return 'the bearer token is malformed (one RFC 6750 b64token: letters, digits, "-._~+/", then optional "=")';
      if (carrier.kind === 'authorization' && carrier.scheme === 'basic')
        return 'the Basic credentials are not base64 of "user:password" (RFC 7617)';
      return `no credentials after "${(/^\S+/.exec(headers.authorization ?? '')?.[0] ?? '').slice(0, 20)}"`;
    case 'refused':
      return fault.why;
  }
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
  const found = credentialsFault(security, req.headers, search, refusal(policy));
  if (found === undefined) return;
  const schemes = alternatives.flat();
  throw problem(
    'unauthorized',
    `The request's credentials are not accepted (${whyNot(found.scheme, found.fault, req.headers)}); send ${alternatives.map(howTo).join(', or ')}.`,
    undefined,
    { 'WWW-Authenticate': challenges(schemes, found.invalidToken) },
  );
}
