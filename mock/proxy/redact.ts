/**
 * Credentials never leave the proxy: every secret it has seen (the bearer tokens and Basic
 * credentials of the requests it forwarded) is replaced by `[REDACTED]` in what it logs, lists and
 * reports: plain, base64 (standard and URL-safe, at any byte offset inside a longer base64 text),
 * percent-encoded and JSON-escaped. Credential headers are replaced whole, and `Bearer <token>` /
 * `Basic <credentials>` anywhere in a text too, as are the values of JSON members and query/form
 * parameters named like a credential (`token`, `access_token`, `password`, `client_secret`, `apiKey`,
 * ...), whose values are learnt too (so their other forms are found). The secrets kept are capped (the
 * latest ones win).
 */
export const REDACTED = '[REDACTED]';

/** Headers whose whole value is a credential. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token']);
/** Secrets shorter than this are not searched in free text (a 1-letter token would garble everything). */
const MIN_SECRET = 6;
const MAX_SECRETS = 256;

/** Names of JSON members, query and form parameters whose values are credentials. */
const SECRET_NAME = String.raw`(?:[A-Za-z_-]*(?:token|password|passwd|secret|api[-_]?key|access[-_]?key|client[-_]?secret|authorization))`;
const SECRET_MEMBER = new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*")((?:[^"\\]|\\.)*)(")`, 'gi');
const SECRET_PARAMETER = new RegExp(String.raw`((?:^|[?&;\s])${SECRET_NAME}=)([^&#\s"']*)`, 'gi');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The base64 texts that contain `secret` wherever it starts in a longer byte string (offsets 0, 1, 2). */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  // The secret encoded on its own, padding included; then the part of it any longer base64 text shows.
  const whole = bytes.toString('base64');
  const forms: string[] = [whole, whole.replace(/=+$/, ''), bytes.toString('base64url')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= MIN_SECRET) forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), ...base64Forms(secret)]);
  return [...forms].filter((f) => f.length >= MIN_SECRET);
}

export class Redactor {
  private readonly secrets = new Map<string, string[]>();
  private pattern: RegExp | undefined;

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
    if (secret.length < MIN_SECRET || this.secrets.has(secret)) {
      if (this.secrets.has(secret)) {
        // Keep the latest secrets: move it to the end.
        const forms = this.secrets.get(secret) ?? [];
        this.secrets.delete(secret);
        this.secrets.set(secret, forms);
      }
      return;
    }
    if (this.secrets.size >= MAX_SECRETS) {
      const oldest = this.secrets.keys().next();
      if (!oldest.done) this.secrets.delete(oldest.value);
    }
    this.secrets.set(secret, formsOf(secret));
    this.pattern = undefined;
  }

  /** A text with every known secret (every form) and every `Bearer`/`Basic` credential replaced. */
  text(value: string): string {
    if (this.pattern === undefined) {
      const forms = [...this.secrets.values()].flat().sort((a, b) => b.length - a.length);
      this.pattern = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : /(?!)/g;
    }
    return value
      .replace(this.pattern, REDACTED)
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

/** Control characters (ESC and the rest of C0/C1 but tab) escaped, so a log line cannot drive a terminal. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
