/**
 * Text from a request, a peer or an error, made safe for a log line or a problem's detail: every
 * character outside printable ASCII becomes `?` (no terminal escape, no line break, nothing a reader
 * cannot see), and text longer than `max` is cut, with `...` to show it was.
 */
export function printable(text: string, max = 200): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
