/**
 * The suite's side of secrets: which credentials a run has (the token, the rejected token, the Basic
 * credential the auth checks build from the token, the user and password of a `--base-url` userinfo),
 * and every output passing through the one redactor (`redaction/redactor.ts`, shared with the
 * validating proxy): `sanitizeVerdict` redacts and escapes every string of a verdict before any
 * renderer sees it; the console writer redacts what is printed. The documented defaults (the
 * in-process mock's token, the rejected token `invalid`) are not secrets.
 */
import {
  createRedactor,
  escapeControls,
  hiddenHeaderValue,
  userinfoSecrets,
  withoutUserinfo,
  REDACTED,
  type Redactor,
} from '../redaction/redactor.js';
import { basicCredentials } from '../checks/credentials.js';
import { DEFAULT_REJECTED_TOKEN, MOCK_TOKEN, type ConformanceConfig } from './config.js';
import type { Verdict } from '../report/results.js';

export {
  createRedactor,
  escapeControls,
  formsOf,
  hideCredential,
  userinfoSecrets,
  withoutUserinfo,
  MIN_PARTIAL,
  MIN_SCANNED_SECRET,
  type Redactor,
} from '../redaction/redactor.js';

/** The one marker (the proxy writes the same). */
export const PLACEHOLDER = REDACTED;

/** The credentials of a run: what the suite was given and what it builds and sends. */
export function credentialsOf(
  config: Pick<ConformanceConfig, 'token' | 'rejectedToken' | 'baseUrl'> & Partial<Pick<ConformanceConfig, 'credentials'>>,
): string[] {
  // The in-process mock's token is documented in --help: not a secret (and it reads like ordinary words).
  const secrets = config.baseUrl === undefined && config.token === MOCK_TOKEN ? [] : [config.token];
  if (config.token.length > 0) secrets.push(basicCredentials(config.token));
  // Each scheme's own credential (an API key, user:password for Basic: its base64 form too).
  for (const value of Object.values(config.credentials ?? {})) secrets.push(value, Buffer.from(value).toString('base64'));
  // The default rejected token is documented in --help (not a secret; `invalid` is a common word).
  if (config.rejectedToken !== DEFAULT_REJECTED_TOKEN) secrets.push(config.rejectedToken);
  if (config.baseUrl !== undefined) secrets.push(...userinfoSecrets(config.baseUrl));
  return secrets.filter((s) => s.length > 0);
}

/** The redactor of a run's configuration. */
export function redactorFor(
  config: Pick<ConformanceConfig, 'token' | 'rejectedToken' | 'baseUrl'> & Partial<Pick<ConformanceConfig, 'credentials'>>,
): Redactor {
  return createRedactor(credentialsOf(config));
}

/** Redacted, then made safe to show. */
export function sanitizeText(text: string, redactor: Redactor): string {
  return escapeControls(redactor.redact(text));
}

/**
 * Every string (and object key) of a JSON-like value passed through `clean`; numbers, booleans kept.
 * The value of a member named like a credential header (`Authorization`, `Cookie`, ...) is hidden
 * whatever its length.
 */
function mapStrings(value: unknown, clean: (text: string) => string, key = ''): unknown {
  if (typeof value === 'string') return clean(hiddenHeaderValue(key, value) ?? value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, clean));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [clean(name), mapStrings(item, clean, name)]));
  }
  return value;
}

/**
 * The verdict as it may be shown or written: every string redacted and made safe (answers, messages,
 * requests, headers, hints), the target without userinfo. Pure: the input is not changed.
 */
export function sanitizeVerdict(verdict: Verdict, redactor: Redactor): Verdict {
  // A verdict repeats its strings (paths, header values, bodies sent and echoed): each is cleaned once.
  const cleaned = new Map<string, string>();
  const once = (text: string): string => {
    let out = cleaned.get(text);
    if (out === undefined) {
      out = sanitizeText(text, redactor);
      cleaned.set(text, out);
    }
    return out;
  };
  // mapStrings keeps the shape of its input (only string values change), so the result is a Verdict.
  const clean = mapStrings(verdict, once) as Verdict;
  return { ...clean, target: withoutUserinfo(clean.target) };
}

/**
 * A console writer that redacts everything written through it. It does not escape control characters
 * (the tool's own colors must pass): the renderers escape the data they show (`escapeControls`).
 */
export function redactingWriter(write: (text: string) => void, redactor: Redactor): (text: string) => void {
  return (text: string) => write(redactor.redact(text));
}
