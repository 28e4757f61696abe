/**
 * The time of a create as the contract's `date-time` text. Formatting a Date costs about as much as
 * the rest of a create's record, and thousands of creates share a millisecond under load: the text
 * is made once per millisecond.
 */
let lastMs = Number.NaN;
let lastText = '';

/** `new Date().toISOString()`, made at most once per millisecond. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastText = new Date(now).toISOString();
  }
  return lastText;
}
