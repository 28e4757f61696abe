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

/**
 * What `pointer` (e.g. `/items/0/name`; `''`: the whole value) names in `root`: undefined when it names
 * nothing (a member not there, an index out of range or not a decimal index, a step into a scalar).
 */
export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node = root;
  for (const token of pointer.slice(1).split('/').map(unescapeToken)) {
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) node = Reflect.get(node, token);
    else return undefined;
  }
  return node;
}
