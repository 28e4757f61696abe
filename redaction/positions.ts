/**
 * Credential positions: the places where a value is a credential whoever wrote it, so it is hidden
 * without being known (the redactor, `redactor.ts`, hides the secrets it knows everywhere else).
 *
 * - The value of a credential header: `Authorization` and `Proxy-Authorization` (the scheme is kept:
 *   `Bearer <redacted>`), `Cookie`, `Set-Cookie`, `X-Api-Key`, `X-Auth-Token` (whole).
 * - In a text: the value after a name ending in `authorization` and `:` or `=` (a header line, a JSON
 *   member, a query parameter: `Authorization: Bearer abc`, `"authorization":"Basic abc"`), the
 *   credential after its scheme or a scheme-less token; the value after `Cookie:` / `Set-Cookie:`;
 *   the value of a JSON member or a query/form parameter named like a credential (`token`,
 *   `access_token`, `password`, `client_secret`, `apiKey`, ...).
 *
 * Not a credential position: the word `Bearer` (or `Basic`) elsewhere. A challenge
 * (`WWW-Authenticate: Bearer realm="goods-mock", error="invalid_token"`), a rule text ("requires
 * bearer credentials: `Authorization: Bearer <token>`") and a bare scheme (`Authorization: Bearer`)
 * are shown as they are; `<token>` in angle brackets is documentation, not a credential.
 */

/** The one marker that replaces a credential, in everything the suite and the proxy print or write. */
export const REDACTED = '<redacted>';

/** Headers whose value is a credential (lower-case names). */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-auth-token',
]);

/** Headers whose value is `scheme credentials` (RFC 9110 §11.6.2): the scheme is kept. */
const SCHEMED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization']);

/** Authentication schemes (IANA registry and common ones): a bare scheme is no credential. */
const SCHEMES: ReadonlySet<string> = new Set([
  'basic',
  'bearer',
  'digest',
  'dpop',
  'hoba',
  'mutual',
  'negotiate',
  'ntlm',
  'oauth',
  'privatetoken',
  'scram-sha-1',
  'scram-sha-256',
  'token',
  'vapid',
]);

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}

/** An Authorization value with its credential hidden, whatever its length: `Bearer abc` → `Bearer <redacted>`. */
export function hideCredential(value: string): string {
  const scheme = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+\S/.exec(value)?.[1];
  return scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`;
}

/** A credential header's value hidden (Authorization-like: the scheme kept); undefined for other headers. */
export function hiddenHeaderValue(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (!CREDENTIAL_HEADERS.has(lower)) return undefined;
  return SCHEMED_HEADERS.has(lower) ? hideCredential(value) : REDACTED;
}

/** A scheme, or a credential without one (RFC 9110 token68; schemes in use are made of the same characters). */
const WORD = String.raw`[A-Za-z0-9\-._~+/]+=*`;
/** An optional quote, as written in JSON (`"`), JSON inside a JSON string (`\"`) or code (`'`). */
const QUOTE = String.raw`\\?["']?`;

/**
 * `…authorization: scheme credential` (or `=`, quoted, JSON-escaped): the name and separator, the
 * first word (a scheme or a scheme-less credential), the credential after it (a token68 or a quoted
 * string), and whether the value ends there (end of the text, line, quoted string or list item).
 */
const AUTHORIZATION_PLACE = new RegExp(
  String.raw`\b([A-Za-z_-]*authorization${QUOTE}[ \t]*[:=][ \t]*${QUOTE})(${WORD})(?:([ \t]+)(${WORD}|"[^"\r\n]*"))?(?=[ \t]*($|[\r\n"',;&)}\]\\])|)`,
  'gi',
);

/** `Cookie: a=b; c=d` / `Set-Cookie: a=b; Path=/`: the value, when it is cookie pairs, up to the end of the line or string. */
const COOKIE_PLACE = new RegExp(
  String.raw`\b((?:set-)?cookie${QUOTE}[ \t]*:[ \t]*${QUOTE})([!#$%&*+\-.^_\`|~0-9A-Za-z]+=[^"'\\\r\n]*)`,
  'gi',
);

/** Names of JSON members, query and form parameters whose values are credentials. */
const SECRET_NAME = String.raw`(?:[A-Za-z_-]*(?:token|password|passwd|secret|api[-_]?key|access[-_]?key|client[-_]?secret))`;
/** `"name": "value"`: the value of a credential-named JSON member. */
export const SECRET_MEMBER = new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*")((?:[^"\\]|\\.)*)(")`, 'gi');
/** `?name=value`, `&name=value`, ` name=value`: the value of a credential-named parameter. */
export const SECRET_PARAMETER = new RegExp(String.raw`((?:^|[?&;\s])${SECRET_NAME}=)([^&#\s"']*)`, 'gi');
/**
 * A word every credential name (`SECRET_NAME`) holds: a text without one has no credential-named member or
 * parameter, and one pass over it (no backtracking at each quote) says so.
 */
export const SECRET_WORD = /token|passw|secret|key/i;

/** `text` with every credential position's value replaced by the marker (see the file's comment). */
export function hidePositions(text: string): string {
  return text
    .replace(
      AUTHORIZATION_PLACE,
      (match, place: string, first: string, gap: string | undefined, credential: string | undefined, end: string | undefined) => {
        const scheme = SCHEMES.has(first.toLowerCase());
        // `Bearer abc`, `Custom abc` (the whole value): the credential after its scheme.
        if (credential !== undefined && (scheme || end !== undefined)) return `${place}${first}${gap ?? ' '}${REDACTED}`;
        // `abc` (the whole value): a credential without a scheme.
        if (credential === undefined && end !== undefined && !scheme) return `${place}${REDACTED}`;
        // A bare scheme (`Authorization: Bearer`, `Bearer <token>`) or prose (`authorization: no Authorization header`).
        return match;
      },
    )
    .replace(COOKIE_PLACE, (_match, place: string) => `${place}${REDACTED}`)
    .replace(SECRET_MEMBER, (_match, before: string, secret: string, after: string) => `${before}${secret === '' ? '' : REDACTED}${after}`)
    .replace(SECRET_PARAMETER, (_match, before: string, secret: string) => `${before}${secret === '' ? '' : REDACTED}`);
}
