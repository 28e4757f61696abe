/**
 * Bearer authentication (RFC 6750). Any syntactically valid `b64token` is accepted unless it is a
 * rejected token, or, when a list of accepted tokens is configured, not on that list.
 */
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
