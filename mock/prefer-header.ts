/**
 * The one reader of a preference in a `Prefer` header (RFC 7240): `name=value` or `name="value"`,
 * among other preferences (`,`) and parameters (`;`). The first preference of that name counts.
 * Whatever follows the `=` is its value, trailing text and inner spaces included (`fault=delay: 10`,
 * `fault=status:503 junk` are the values `delay: 10` and `status:503 junk`), so a value with more than
 * the grammar allows is refused by its parser (a 400), never silently ignored.
 */
export function preferenceValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  const wanted = name.toLowerCase();
  for (const part of header.split(/[,;]/)) {
    const equals = part.indexOf('=');
    const key = (equals === -1 ? part : part.slice(0, equals)).trim().toLowerCase();
    if (key !== wanted) continue;
    const value = equals === -1 ? '' : part.slice(equals + 1).trim();
    const quoted = /^"([^"]*)"$/.exec(value);
    return quoted ? (quoted[1] ?? '') : value;
  }
  return undefined;
}
