/** A request target with query parameters appended. */

/** `path` with query parameters appended (encoded), after any query it has. */
export function withQuery(path: string, query: readonly (readonly [string, string])[]): string {
  if (query.length === 0) return path;
  const added = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return `${path}${path.includes('?') ? '&' : '?'}${added}`;
}
