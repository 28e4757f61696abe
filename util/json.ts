/**
 * Parsing JSON text that may be broken (answers, request bodies, files): one helper instead of a
 * try/catch around `JSON.parse` in every place that must tell "not JSON" apart. Text from a party that
 * may be hostile (a server's answer) is parsed within limits, checked before parsing: its length and
 * how deep its arrays and objects nest (a million nested `[` would otherwise be a million arrays, and
 * every walk over them a million frames).
 */
import { messageOf } from './errors.js';

/** What text is parsed at most, and how the text is named in the reason it is refused (`the answer`). */
export interface JsonLimits {
  /** The longest text parsed, in UTF-16 code units (at most that many bytes of UTF-8). */
  maxLength: number;
  /** The deepest nesting of arrays and objects parsed (`[[1]]` nests 2 levels). */
  maxDepth: number;
  what: string;
}

/** True when the quote at `at` is escaped: an odd number of backslashes right before it. */
function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  for (let j = at - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * True when `text` holds at most `most` opening brackets (`[` and `{` together, in strings too): then
 * nothing in it can nest deeper than `most`. Counted with `indexOf`, which is many times faster than
 * reading the text character by character, and stops once the count passes `most`.
 */
function fewOpenings(text: string, most: number): boolean {
  let count = 0;
  for (const opening of ['[', '{']) {
    for (let at = text.indexOf(opening); at !== -1; at = text.indexOf(opening, at + 1)) if (++count > most) return false;
  }
  return true;
}

/**
 * True when arrays and objects in `text` nest deeper than `maxDepth` (strings skipped; stops at the first
 * level past it). A text with no more opening brackets than `maxDepth` is answered at once (most answers:
 * a document of about a kilobyte was read in a tenth of the time); otherwise a string is skipped with
 * `indexOf` to its closing quote: most of a JSON text is in strings, and a character-by-character loop
 * over them cost as much as `JSON.parse` itself.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  // A text no longer than `maxDepth` cannot hold more openings than that (a small request body: nothing read).
  if (text.length <= maxDepth || fewOpenings(text, maxDepth)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/** The parsed value, or why the text is not JSON (the parser's message) or is past `limits` (checked first). */
export function parseJsonText(text: string, limits?: JsonLimits): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (limits !== undefined) {
    if (text.length > limits.maxLength)
      return { ok: false, reason: `${limits.what} is longer than ${limits.maxLength.toLocaleString('en')} characters: not parsed` };
    if (nestsDeeperThan(text, limits.maxDepth))
      return { ok: false, reason: `${limits.what} nests deeper than ${limits.maxDepth} levels: not parsed` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}
