/** Judgments of requests whose credentials must be refused (spec fact 2; the profile's 401 + challenge). */
import { is2xx, statusIs } from './answer.js';
import type { JudgedExchange, Violation } from './exchange.js';
import { PROFILE, SPEC } from './rules.js';

/**
 * How credentials can fail: absent, under another scheme, a token the server must not accept, or a
 * malformed bearer credential containing the token (the profile's 401 covers the first three only:
 * RFC 6750 lets a server answer a malformed request 400).
 */
export type CredentialClass = 'missing' | 'non-bearer' | 'rejected' | 'malformed';

/** Finds a Bearer challenge in a WWW-Authenticate value (several challenges may be joined). */
export function bearerChallenge(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /(?:^|,)\s*Bearer(?=\s|,|$)(.*)$/i.exec(header);
  return match ? match[0].trim() : undefined;
}

/** Spec fact 2: no 2xx answer without accepted bearer credentials. */
export function judgeNoAccessWithout(exchange: JudgedExchange): Violation[] {
  return statusIs(exchange, SPEC.auth, (s) => !is2xx(s), 'any status but 2xx');
}

/** Profile: 401 with `WWW-Authenticate: Bearer` (`error="invalid_token"` for a rejected token). */
export function judgeUnauthorized(exchange: JudgedExchange, credentials: CredentialClass): Violation[] {
  return judgeChallenged(exchange, ['bearer'], credentials === 'rejected');
}

/** Finds a challenge of an HTTP authentication scheme (`bearer`, `basic`) in a WWW-Authenticate value. */
export function challengeOf(header: string | undefined, scheme: string): string | undefined {
  if (header === undefined) return undefined;
  const escaped = scheme.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?:^|,)\\s*${escaped}(?=\\s|,|$)(.*)$`, 'i').exec(header);
  return match ? match[0].trim() : undefined;
}

/**
 * Profile: 401, with a `WWW-Authenticate` challenge of one of the operation's HTTP schemes (`schemes`,
 * lower case; none to require for an operation secured by API keys alone); a bearer token refused
 * (`invalidToken`) has `error="invalid_token"` in its Bearer challenge (RFC 6750 §3).
 */
export function judgeChallenged(exchange: JudgedExchange, schemes: readonly string[], invalidToken: boolean): Violation[] {
  const rule = PROFILE.unauthorized;
  const status = statusIs(exchange, rule, 401);
  if (status.length > 0 || !exchange.answer || schemes.length === 0) return status;
  const header = exchange.answer.headers['www-authenticate'];
  const named = schemes.map((s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`).join(' or ');
  if (!schemes.some((scheme) => challengeOf(header, scheme) !== undefined))
    return [
      {
        rule,
        in: 'header',
        header: 'www-authenticate',
        expected: `a WWW-Authenticate header with a ${named} challenge`,
        reason: header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${header}`,
      },
    ];
  const challenge = challengeOf(header, 'bearer');
  if (invalidToken && challenge !== undefined && !/error\s*=\s*"?invalid_token"?/i.test(challenge))
    return [
      {
        rule,
        in: 'header',
        header: 'www-authenticate',
        expected: 'WWW-Authenticate: Bearer … error="invalid_token"',
        reason: `WWW-Authenticate: ${header}`,
      },
    ];
  return [];
}
