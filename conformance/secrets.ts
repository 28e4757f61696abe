/**
 * The one place that knows every credential of a run and hides it in everything the suite prints or
 * writes (console, JSON, JUnit, HTML): the token, the rejected token, the Basic credential the auth
 * checks build from the token, and the user and password of a `--base-url` userinfo.
 *
 * Each secret is replaced by `<redacted>` in every form a server or a report can carry it: plain,
 * percent-encoded (upper- and lower-case hex, form encoding, every byte encoded), JSON-escaped (also
 * with `\/`), HTML-escaped, and base64 (standard and url-safe, at each of the three byte alignments, so
 * `base64("user:" + token)` and any other base64 text that embeds the secret loses it too). A piece of
 * MIN_PARTIAL or more characters of a longer secret is hidden as well (cut excerpts, parser messages).
 * The documented defaults (the in-process mock's token, the rejected token `invalid`) are not secrets.
 *
 * Secrets shorter than MIN_SCANNED_SECRET characters are hidden only where credentials go (after an
 * auth scheme such as `Bearer`/`Basic`, in an `Authorization` header, in URL userinfo): replacing a
 * 1-letter token in every text would garble every message while hiding nothing.
 *
 * `escapeControls` makes any text safe for a terminal: control characters (ESC, CR, BEL, C1, the
 * other C0 except newline and tab), bidi overrides, line separators and characters invalid in XML 1.0
 * are shown as `\xHH` / `\uHHHH`. `sanitizeVerdict` applies both to every string of a verdict before
 * any renderer sees it.
 */
import { basicCredentials } from './checks/auth.js';
import { DEFAULT_REJECTED_TOKEN, MOCK_TOKEN, type ConformanceConfig } from './config.js';
import type { CheckResult, Verdict } from './report/results.js';

export const PLACEHOLDER = '<redacted>';

/** Secrets shorter than this are hidden only where credentials go (a 1-letter token would garble every text). */
export const MIN_SCANNED_SECRET = 6;

/**
 * A run of this many characters of a longer secret is hidden too: texts cut a secret (an answer
 * excerpt cut at 300 characters, a JSON parser's error quoting the first 10 characters of a body).
 */
export const MIN_PARTIAL = 8;

export interface Redactor {
  /** The text with every known form of every secret replaced by PLACEHOLDER, and URL userinfo removed. */
  redact(text: string): string;
  /** The secrets it hides (for tests). */
  readonly secrets: readonly string[];
}

/** The credentials of a run: what the suite was given and what it builds and sends. */
export function credentialsOf(config: Pick<ConformanceConfig, 'token' | 'rejectedToken' | 'baseUrl'>): string[] {
  // The in-process mock's token is documented in --help: not a secret (and it reads like ordinary words).
  const secrets = config.baseUrl === undefined && config.token === MOCK_TOKEN ? [] : [config.token];
  if (config.token.length > 0) secrets.push(basicCredentials(config.token));
  // The default rejected token is documented in --help (not a secret; `invalid` is a common word).
  if (config.rejectedToken !== DEFAULT_REJECTED_TOKEN) secrets.push(config.rejectedToken);
  if (config.baseUrl !== undefined) secrets.push(...userinfoSecrets(config.baseUrl));
  return secrets.filter((s) => s.length > 0);
}

/** The user and password of a URL's userinfo, raw and decoded, and the Basic credential a client builds from them. */
export function userinfoSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const { username, password } = parsed;
  if (username === '' && password === '') return [];
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const user = decode(username);
  const pass = decode(password);
  return [username, password, user, pass, Buffer.from(`${user}:${pass}`).toString('base64'), `${username}:${password}`].filter(
    (s) => s.length > 0 && s !== ':',
  );
}

/** The URL without its userinfo (`https://u:p@host/x` → `https://host/x`); other text unchanged. */
export function withoutUserinfo(text: string): string {
  return text.replace(/\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#@<>"'`\\]*@/g, '$1');
}

const hex = (byte: number): string => byte.toString(16).toUpperCase().padStart(2, '0');

/** The chars of base64(prefix + secret + suffix) that depend on the secret alone, for a prefix of `align` bytes. */
function base64Core(secret: Buffer, align: number): string {
  const encoded = Buffer.concat([Buffer.alloc(align), secret, Buffer.alloc(3)]).toString('base64');
  const first = Math.ceil((8 * align) / 6);
  const end = Math.floor((8 * (align + secret.length)) / 6);
  return encoded.slice(first, end);
}

/** Every form of a (long enough) secret that a server or a report may carry. */
export function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const percent = encodeURIComponent(secret);
  const everyByte = [...bytes].map((b) => `%${hex(b)}`).join('');
  const json = JSON.stringify(secret).slice(1, -1);
  const html = secret.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const htmlNamed = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const forms = [
    secret,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    percent.replace(/%20/g, '+'),
    encodeURI(secret),
    everyByte,
    everyByte.toLowerCase(),
    json,
    json.replace(/\//g, '\\/'),
    html,
    htmlNamed,
  ];
  for (const align of [0, 1, 2]) {
    const core = base64Core(bytes, align);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  forms.push(bytes.toString('base64'), bytes.toString('base64url'));
  // Base64 cores are shorter than the secret; a core too short to be specific is not scanned.
  return [...new Set(forms)].filter((form) => form.length >= Math.min(MIN_SCANNED_SECRET, secret.length));
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** b64token characters (RFC 6750): a short secret is hidden only as a whole token. */
const TOKEN_CHAR = '[A-Za-z0-9\\-._~+/=]';

export function createRedactor(secrets: readonly string[]): Redactor {
  const unique = [...new Set(secrets.filter((s) => s.length > 0))];
  const long = unique.filter((s) => s.length >= MIN_SCANNED_SECRET);
  const short = unique.filter((s) => s.length < MIN_SCANNED_SECRET);
  const forms = [...new Set(long.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  const anywhere = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : undefined;
  const partial = long.filter((s) => s.length > MIN_PARTIAL);
  const grams = new Set(partial.flatMap((s) => Array.from({ length: s.length - MIN_PARTIAL + 1 }, (_, i) => s.slice(i, i + MIN_PARTIAL))));
  // Where credentials go: after an auth scheme or an authorization/token/password name.
  const credentialPlace =
    short.length > 0
      ? new RegExp(
          `((?:\\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|TOKEN|[Dd]igest|DIGEST)\\s+)|(?:(?:authorization|token|password|secret)["']?\\s*[:=]\\s*["']?))(${short
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|')})(?!${TOKEN_CHAR})`,
          'gi',
        )
      : undefined;
  return {
    secrets: unique,
    redact(text: string): string {
      let out = withoutUserinfo(text);
      if (anywhere) out = out.replace(anywhere, PLACEHOLDER);
      if (grams.size > 0) out = hidePieces(out, partial, grams);
      if (credentialPlace) {
        out = out.replace(credentialPlace, (match, place: string, secret: string) =>
          // The regex is case-insensitive for the place; the secret itself must match exactly.
          short.includes(secret) ? `${place}${PLACEHOLDER}` : match,
        );
      }
      return out;
    },
  };
}

/** Every run of MIN_PARTIAL or more characters of a secret (`grams`: its MIN_PARTIAL-character pieces) replaced. */
function hidePieces(text: string, secrets: readonly string[], grams: ReadonlySet<string>): string {
  let out = '';
  let i = 0;
  let from = 0;
  while (i + MIN_PARTIAL <= text.length) {
    if (!grams.has(text.slice(i, i + MIN_PARTIAL))) {
      i += 1;
      continue;
    }
    let end = i + MIN_PARTIAL;
    while (end < text.length && secrets.some((s) => s.includes(text.slice(i, end + 1)))) end += 1;
    out += `${text.slice(from, i)}${PLACEHOLDER}`;
    i = end;
    from = end;
  }
  return `${out}${text.slice(from)}`;
}

/** The redactor of a run's configuration. */
export function redactorFor(config: Pick<ConformanceConfig, 'token' | 'rejectedToken' | 'baseUrl'>): Redactor {
  return createRedactor(credentialsOf(config));
}

/**
 * Control characters and characters a terminal or an XML 1.0 document must not get raw, shown as
 * escapes: C0 except `\n` and `\t` (ESC, CR, BEL, ...), DEL, C1, line/paragraph separators, bidi
 * overrides and isolates, lone surrogates, U+FFFE and U+FFFF.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is this regex's job
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Redacted, then made safe to show. */
export function sanitizeText(text: string, redactor: Redactor): string {
  return escapeControls(redactor.redact(text));
}

/** An Authorization value with its credential hidden, whatever its length: `Bearer abc` → `Bearer <redacted>`. */
export function hideCredential(value: string): string {
  const scheme = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+\S/.exec(value)?.[1];
  return scheme === undefined ? PLACEHOLDER : `${scheme} ${PLACEHOLDER}`;
}

const CREDENTIAL_HEADER = /^(?:proxy-)?authorization$/i;

/**
 * Every string (and object key) of a JSON-like value passed through `clean`; numbers, booleans kept.
 * The value of a member named like an Authorization header is hidden whatever its length.
 */
function mapStrings(value: unknown, clean: (text: string) => string, key = ''): unknown {
  if (typeof value === 'string') return CREDENTIAL_HEADER.test(key) ? clean(hideCredential(value)) : clean(value);
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
  // mapStrings keeps the shape of its input (only string values change), so the result is a Verdict.
  const clean = mapStrings(verdict, (text) => sanitizeText(text, redactor)) as Verdict;
  return { ...clean, target: withoutUserinfo(clean.target) };
}

/** One check result as it may be shown (for the live console lines). Pure. */
export function sanitizeCheck(result: CheckResult, redactor: Redactor): CheckResult {
  // Same shape as the input (see sanitizeVerdict).
  return mapStrings(result, (text) => sanitizeText(text, redactor)) as CheckResult;
}

/**
 * A console writer that redacts everything written through it. It does not escape control characters
 * (the tool's own colors must pass): the renderers escape the data they show (`escapeControls`).
 */
export function redactingWriter(write: (text: string) => void, redactor: Redactor): (text: string) => void {
  return (text: string) => write(redactor.redact(text));
}
