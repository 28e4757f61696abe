/**
 * Credentials never leave the proxy: every secret it has seen (the bearer tokens and Basic
 * credentials of the requests it forwarded) is replaced by `[REDACTED]` in what it logs, lists and
 * reports, by the one redactor shared with the conformance suite (`redaction/redactor.ts`: plain,
 * base64 at any byte offset, standard and URL-safe, percent-encoded, JSON- and HTML-escaped, URL
 * userinfo). What this file adds is what the proxy learns from traffic: credential headers are
 * replaced whole, and `Bearer <token>` / `Basic <credentials>` anywhere in a text too, as are the
 * values of JSON members and query/form parameters named like a credential (`token`, `access_token`,
 * `password`, `client_secret`, `apiKey`, ...), whose values are learnt too (so their other forms are
 * found). The secrets kept are capped (the latest ones win).
 */
import { escapeControlsUnicode, LearningRedactor, MIN_SCANNED_SECRET } from '../../redaction/redactor.js';

export const REDACTED = '[REDACTED]';

/** Headers whose whole value is a credential. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token']);
const MAX_SECRETS = 256;

/** Names of JSON members, query and form parameters whose values are credentials. */
const SECRET_NAME = String.raw`(?:[A-Za-z_-]*(?:token|password|passwd|secret|api[-_]?key|access[-_]?key|client[-_]?secret|authorization))`;
const SECRET_MEMBER = new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*")((?:[^"\\]|\\.)*)(")`, 'gi');
const SECRET_PARAMETER = new RegExp(String.raw`((?:^|[?&;\s])${SECRET_NAME}=)([^&#\s"']*)`, 'gi');

export class Redactor {
  private readonly engine = new LearningRedactor({ placeholder: REDACTED, pieces: false, maxSecrets: MAX_SECRETS });

  /** Learns the credentials of a request's Authorization header (bearer token; Basic: the whole, user:password, password). */
  learnAuthorization(header: string | undefined): void {
    if (header === undefined) return;
    const [scheme = '', ...rest] = header.trim().split(/\s+/);
    const credential = rest.join(' ');
    if (credential === '') return;
    this.learn(credential);
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      this.learn(decoded);
      const colon = decoded.indexOf(':');
      if (colon >= 0) this.learn(decoded.slice(colon + 1));
    }
  }

  /** Learns the values of credential-named JSON members and query/form parameters of a text (a body, a target). */
  learnFromText(text: string): void {
    for (const match of text.matchAll(SECRET_MEMBER)) this.learn(match[2] ?? '');
    for (const match of text.matchAll(SECRET_PARAMETER)) {
      const value = match[2] ?? '';
      this.learn(value);
      try {
        this.learn(decodeURIComponent(value.replace(/\+/g, ' ')));
      } catch {
        // not percent-encoded: learnt as it is
      }
    }
  }

  learn(secret: string): void {
    // Very short values are not learnt: the proxy sees many, and they would hide ordinary words.
    if (secret.length >= MIN_SCANNED_SECRET) this.engine.learn(secret);
  }

  /** A text with every known secret (every form) and every `Bearer`/`Basic` credential replaced. */
  text(value: string): string {
    return this.engine
      .redact(value)
      .replace(/\b(Bearer|Basic)(\s+)(?!\[REDACTED\])[A-Za-z0-9\-._~+/]+=*/gi, `$1$2${REDACTED}`)
      .replace(SECRET_MEMBER, (_m, before: string, secret: string, after: string) => `${before}${secret === '' ? '' : REDACTED}${after}`)
      .replace(SECRET_PARAMETER, (_m, before: string, secret: string) => `${before}${secret === '' ? '' : REDACTED}`);
  }

  /** Headers with credential headers replaced whole and secrets removed from the others. */
  headers(headers: Record<string, string>): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) result[name] = CREDENTIAL_HEADERS.has(name) ? REDACTED : this.text(value);
    return result;
  }
}

/** Control characters (ESC and the rest of C0/C1 but tab, bidi overrides, ...) escaped, so a log line cannot drive a terminal. */
export function printable(text: string): string {
  return escapeControlsUnicode(text);
}
