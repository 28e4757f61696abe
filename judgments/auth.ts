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
  const rule = PROFILE.unauthorized;
  const status = statusIs(exchange, rule, 401);
  if (status.length > 0 || !exchange.answer) return status;
  const header = exchange.answer.headers['www-authenticate'];
  const challenge = bearerChallenge(header);
  if (challenge === undefined)
    return [
      {
        rule,
        in: 'header',
        header: 'www-authenticate',
        expected: 'a WWW-Authenticate header with a Bearer challenge',
        reason: header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${header}`,
      },
    ];
  if (credentials === 'rejected' && !/error\s*=\s*"?invalid_token"?/i.test(challenge))
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
