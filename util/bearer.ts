/**
 * RFC 6750 §2.1, the syntax of the contract's bearer security scheme, written once:
 * `credentials = "Bearer" 1*SP b64token`, `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
 */

/** A whole b64token. */
export const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Bearer credentials (the scheme name is case-insensitive); group 1 is the token. */
export const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** True when `token` is one RFC 6750 b64token. */
export function isB64Token(token: string): boolean {
  return B64TOKEN.test(token);
}
