/** JSON Pointer (RFC 6901): the one place that escapes and unescapes reference tokens. */

/** `~` → `~0`, `/` → `~1`. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `~1` → `/`, `~0` → `~` (in that order). */
export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer `base` followed by one more reference token. */
export function childPointer(base: string, token: string | number): string {
  return `${base}/${escapeToken(token)}`;
}
