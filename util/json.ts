/**
 * Parsing JSON text that may be broken (answers, request bodies, files): one helper instead of a
 * try/catch around `JSON.parse` in every place that must tell "not JSON" apart.
 */
import { messageOf } from './errors.js';

/** The parsed value, or why the text is not JSON (the parser's message). */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: messageOf(error) };
  }
}
