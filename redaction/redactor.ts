/**
 * THE redactor: the one place that knows how a credential can appear in a text and hides it, shared
 * by the conformance suite (`conformance/secrets.ts`: the credentials of a run, in everything it
 * prints or writes) and the validating proxy (`mock/proxy/app.ts`: the credentials it learns from
 * traffic, in its log, listings, dashboard and reports). Imports nothing of the project. One marker
 * for both: `<redacted>` (`REDACTED`).
 *
 * What is hidden, and nothing else:
 *
 * 1. Known secrets: what the suite was given, and what the proxy learns from requests (the
 *    credential of an `Authorization` header, a Basic credential's `user:password` and password, the
 *    values of credential-named JSON members and query/form parameters). Each is replaced in every
 *    form a server or a report can carry it: plain, percent-encoded (upper- and lower-case hex, form
 *    encoding, every byte encoded), JSON-escaped (any character written as itself, as its short
 *    escape such as `\/` or `\"`, or as `\uXXXX` in either case of hex, in any mix:
 *    `hideJsonEscaped`), HTML-escaped, and base64 (standard and url-safe, at each of the three byte
 *    alignments, so `base64("user:" + token)` and any other base64 text that embeds the secret loses
 *    it too). Optionally (`pieces`), a piece of MIN_PARTIAL or more characters of a longer secret is
 *    hidden as well (cut excerpts, parser messages), but not an ordinary word the secret is made of
 *    written whole (`conformance` of the token `conformance-token`: a credential is hidden as a
 *    credential, not every word it contains; `ordinaryWords`). Secrets shorter than MIN_SCANNED_SECRET
 *    characters are hidden only where credentials go (after an auth scheme such as `Bearer`/`Basic`,
 *    after `authorization`/`token`/`password`/`secret` and `:` or `=`): replacing a 1-letter token in
 *    every text would garble every message while hiding nothing.
 * 2. Credential positions (`positions.ts`), known or not: the values of credential headers
 *    (`Authorization`, `Proxy-Authorization` with the scheme kept, `Cookie`, `Set-Cookie`, ...), in
 *    a text the credential after `Authorization:` (or `"authorization":"`, `authorization=`), the
 *    value after `Cookie:`/`Set-Cookie:`, and the values of credential-named JSON members and
 *    parameters. An unknown `Bearer <something>` anywhere else is NOT hidden: the text after the word
 *    `Bearer` in a challenge (`WWW-Authenticate: Bearer realm="goods-mock"`) or in the project's own
 *    rule texts ("requires bearer credentials") is no credential.
 * 3. URL userinfo, removed from every text.
 *
 * `escapeControls` makes any text safe for a terminal (and XML 1.0).
 */
import { hiddenHeaderValue, hidePositions, REDACTED, SECRET_MEMBER, SECRET_PARAMETER, SECRET_WORD } from './positions.js';

export { hideCredential, hiddenHeaderValue, isCredentialHeader, REDACTED } from './positions.js';

/** Secrets shorter than this are hidden only where credentials go (a 1-letter token would garble every text). */
export const MIN_SCANNED_SECRET = 6;

/**
 * A run of this many characters of a longer secret is hidden too (with `pieces`): texts cut a secret
 * (an answer excerpt cut at 300 characters, a JSON parser's error quoting the first 10 characters of a body).
 */
export const MIN_PARTIAL = 8;

export interface RedactorOptions {
  /** Also hide pieces of MIN_PARTIAL or more characters of a longer secret (default true). */
  pieces?: boolean;
  /** At most this many secrets are kept; learning one more lets the oldest go (default: no cap). */
  maxSecrets?: number;
}

export interface Redactor {
  /** The text with every known form of every secret and every credential position's value replaced by `<redacted>`, and URL userinfo removed. */
  redact(text: string): string;
  /** Headers with credential headers' values hidden (whatever their length) and the others redacted. */
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  /** The secrets it hides (for tests). */
  readonly secrets: readonly string[];
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

/** The characters JSON may write with a short escape (`\"`, `\\`, `\/`, `\b`, ...), by the letter after the backslash. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

interface JsonEscape {
  pattern: RegExp;
  mark: string;
}

/**
 * The JSON escapes (RFC 8259 §7) that can stand for a character of one of `secrets`: `\uXXXX` (hex in
 * either case) always, a short escape only for a character some secret has (a text full of `\"`
 * is then not decoded for secrets without a quote).
 */
function jsonEscapeOf(secrets: readonly string[]): JsonEscape {
  const letters = Object.entries(SHORT_ESCAPES)
    .filter(([, char]) => secrets.some((secret) => secret.includes(char)))
    .map(([letter]) => escapeRegExp(letter))
    .join('');
  return {
    pattern: new RegExp(String.raw`\\(?:u([0-9A-Fa-f]{4})${letters === '' ? '' : `|([${letters}])`})`, 'g'),
    // A text without it holds no escape to decode (found at memchr speed).
    mark: letters === '' ? '\\u' : '\\',
  };
}

/**
 * `text` with every secret hidden that it holds in JSON-escaped form, any character written as
 * itself, as `\uXXXX` (either case) or as its short escape, in any mix (`\u005a\u0071...`,
 * `Z\u0071...`): the text is decoded once (every escape to its character, remembering where each
 * one was), the secrets (`secrets`: their literal alternation) are searched in the decoded text, and
 * each match's span in the original text is replaced. One decoding pass and one search of the
 * secrets' literal alternation (no pattern per character, whose alternatives a regex engine would try
 * at every position: 9 times slower on JSON with 256 secrets); a text without an escape is returned
 * as it is, after one `includes`.
 */
function hideJsonEscaped(text: string, escape: JsonEscape, secrets: RegExp): string {
  if (!text.includes(escape.mark)) return text;
  let decoded = '';
  /** For the n-th escape: its index in `decoded` and the index in `text` right after it. */
  const decodedAt: number[] = [];
  const rawEnd: number[] = [];
  let last = 0;
  for (const match of text.matchAll(escape.pattern)) {
    decoded += text.slice(last, match.index);
    decodedAt.push(decoded.length);
    const [whole, hex, short] = match;
    decoded += hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (SHORT_ESCAPES[short ?? ''] ?? '');
    last = match.index + whole.length;
    rawEnd.push(last);
  }
  if (decodedAt.length === 0) return text;
  decoded += text.slice(last);
  /** The index in `text` of the decoded index `k` (characters between escapes map one to one). */
  const rawIndex = (k: number): number => {
    let low = 0;
    let high = decodedAt.length - 1;
    let found = -1; // the last escape before k
    while (low <= high) {
      const mid = (low + high) >> 1;
      if ((decodedAt[mid] ?? 0) < k) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    return found < 0 ? k : (rawEnd[found] ?? 0) + (k - (decodedAt[found] ?? 0) - 1);
  };
  let out = '';
  let from = 0;
  for (const match of decoded.matchAll(secrets)) {
    const start = rawIndex(match.index);
    out += `${text.slice(from, start)}${REDACTED}`;
    from = rawIndex(match.index + match[0].length);
  }
  return from === 0 ? text : `${out}${text.slice(from)}`;
}

/** b64token characters (RFC 6750): a short secret is hidden only as a whole token. */
const TOKEN_CHAR = '[A-Za-z0-9\\-._~+/=]';

/** A redactor that can learn more secrets as it goes (the proxy learns them from traffic). */
export class LearningRedactor implements Redactor {
  private readonly known = new Set<string>();
  private readonly pieces: boolean;
  private readonly maxSecrets: number;
  private compiled: ((text: string) => string) | undefined;
  /** Calls of `learn` with a secret: each adds one or makes a known one the latest (so it counts every change of what is known or its order). */
  private changes = 0;
  /** The Authorization header learnt last, and `changes` right after: the same header again with nothing learnt since changes nothing. */
  private lastAuthorization: { header: string; changes: number } | undefined;

  constructor(options: RedactorOptions = {}) {
    this.pieces = options.pieces ?? true;
    this.maxSecrets = options.maxSecrets ?? Infinity;
  }

  get secrets(): readonly string[] {
    return [...this.known];
  }

  /** Learns a secret (an empty one is ignored; a known one becomes the latest). */
  learn(secret: string): void {
    if (secret.length === 0) return;
    this.changes++;
    if (this.known.has(secret)) {
      this.known.delete(secret);
      this.known.add(secret);
      return;
    }
    if (this.known.size >= this.maxSecrets) {
      const oldest = this.known.values().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
    this.known.add(secret);
    this.compiled = undefined;
  }

  /**
   * Learns the credentials of a request's Authorization header: the credential after the scheme and,
   * for Basic, the decoded `user:password` and the password. From traffic: values shorter than
   * MIN_SCANNED_SECRET are not learnt (a proxy sees many; the header itself is a credential position).
   */
  learnAuthorization(header: string | undefined): void {
    if (header === undefined) return;
    // A client sends the same header on every request: learning it again would leave the same secrets in the same order.
    const last = this.lastAuthorization;
    if (last !== undefined && last.header === header && last.changes === this.changes) return;
    this.learnHeader(header);
    this.lastAuthorization = { header, changes: this.changes };
  }

  private learnHeader(header: string): void {
    const [scheme = '', ...rest] = header.trim().split(/\s+/);
    const credential = rest.join(' ');
    if (credential === '') return;
    this.learnSeen(credential);
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      this.learnSeen(decoded);
      const colon = decoded.indexOf(':');
      if (colon >= 0) this.learnSeen(decoded.slice(colon + 1));
    }
  }

  /** Learns the values of credential-named JSON members and query/form parameters of a text (a request body, a target). */
  learnFromText(text: string): void {
    // Both patterns need a credential's word (most targets, most bodies have none), and each its quote or its `=`.
    if (!SECRET_WORD.test(text)) return;
    if (text.includes('"')) for (const match of text.matchAll(SECRET_MEMBER)) this.learnSeen(match[2] ?? '');
    if (!text.includes('=')) return;
    for (const match of text.matchAll(SECRET_PARAMETER)) {
      const value = match[2] ?? '';
      this.learnSeen(value);
      try {
        this.learnSeen(decodeURIComponent(value.replace(/\+/g, ' ')));
      } catch {
        // not percent-encoded: learnt as it is
      }
    }
  }

  private learnSeen(secret: string): void {
    if (secret.length >= MIN_SCANNED_SECRET) this.learn(secret);
  }

  redact(text: string): string {
    this.compiled ??= this.compile();
    return this.compiled(text);
  }

  headers(headers: Readonly<Record<string, string>>): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) result[name] = hiddenHeaderValue(name, value) ?? this.redact(value);
    return result;
  }

  private compile(): (text: string) => string {
    const unique = [...this.known];
    const long = unique.filter((s) => s.length >= MIN_SCANNED_SECRET);
    const short = unique.filter((s) => s.length < MIN_SCANNED_SECRET);
    const forms = [...new Set(long.flatMap(formsOf))].sort((a, b) => b.length - a.length);
    const anywhere = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : undefined;
    // JSON escapes in any mix: the secrets themselves, searched in the decoded text (hideJsonEscaped).
    const jsonEscape = jsonEscapeOf(long);
    const escaped =
      long.length > 0
        ? new RegExp(
            [...long]
              .sort((a, b) => b.length - a.length)
              .map(escapeRegExp)
              .join('|'),
            'g',
          )
        : undefined;
    const partial = this.pieces ? long.filter((s) => s.length > MIN_PARTIAL) : [];
    const grams = new Set(
      partial.flatMap((s) => Array.from({ length: s.length - MIN_PARTIAL + 1 }, (_, i) => s.slice(i, i + MIN_PARTIAL))),
    );
    const words = [...new Set(partial.flatMap(ordinaryWords).map((w) => w.toLowerCase()))];
    // Where the next piece starts: one native search instead of a slice per character of long texts.
    const nextGram = grams.size > 0 ? new RegExp([...grams].map(escapeRegExp).join('|'), 'g') : undefined;
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
    return (text) => {
      let out = withoutUserinfo(text);
      // Before the plain forms: a secret that holds another one is then still found whole.
      if (escaped) out = hideJsonEscaped(out, jsonEscape, escaped);
      if (anywhere) out = out.replace(anywhere, REDACTED);
      if (nextGram) out = hidePieces(out, partial, nextGram, words);
      if (credentialPlace) {
        out = out.replace(credentialPlace, (match, place: string, secret: string) =>
          // The regex is case-insensitive for the place; the secret itself must match exactly.
          short.includes(secret) ? `${place}${REDACTED}` : match,
        );
      }
      return hidePositions(out);
    };
  }
}

/** A redactor of a fixed list of secrets. */
export function createRedactor(secrets: readonly string[], options: RedactorOptions = {}): Redactor {
  const redactor = new LearningRedactor(options);
  for (const secret of secrets) redactor.learn(secret);
  return redactor;
}

/** A letter (any script): what the words of a secret are made of. */
const LETTERS = /\p{L}+/gu;
/** A word in one case style: all lower-case, all upper-case, or capitalized (`conformance`, `TOKEN`, `Goods`). */
const PLAIN_WORD = /^(?:\p{Ll}+|\p{Lu}+|\p{Lu}\p{Ll}+)$/u;

/**
 * The ordinary words a secret is made of: its runs of letters of MIN_PARTIAL or more characters in one
 * case style, cut off by anything else (`conformance` of `conformance-token`), never the whole secret.
 * Such a word in a text is the word, not a piece of the credential: `goods conformance:` and
 * `conformance_unknown_member` stay as they are when the token is `conformance-token`. Random tokens
 * (mixed case, digits) have no such word.
 */
function ordinaryWords(secret: string): string[] {
  return [...secret.matchAll(LETTERS)].map((m) => m[0]).filter((w) => w.length >= MIN_PARTIAL && w !== secret && PLAIN_WORD.test(w));
}

/**
 * Every run of MIN_PARTIAL or more characters of a secret (`nextGram` finds its MIN_PARTIAL-character pieces)
 * replaced, unless every piece of the run lies inside one of the secret's ordinary `words` written
 * whole in the text (a cut excerpt `conforman…` is a piece of the secret; `conformance` is a word).
 */
function hidePieces(text: string, secrets: readonly string[], nextGram: RegExp, words: readonly string[]): string {
  let out = '';
  let i = 0;
  let from = 0;
  while (i + MIN_PARTIAL <= text.length) {
    // The first position at or after i where a piece starts (the pieces are all MIN_PARTIAL long).
    nextGram.lastIndex = i;
    const found = nextGram.exec(text);
    if (found === null) break;
    i = found.index;
    let end = i + MIN_PARTIAL;
    while (end < text.length && secrets.some((s) => s.includes(text.slice(i, end + 1)))) end += 1;
    if (!insideWords(text, i, end, words)) out += `${text.slice(from, i)}${REDACTED}`;
    else out += text.slice(from, end);
    i = end;
    from = end;
  }
  return `${out}${text.slice(from)}`;
}

/** Neither a letter nor a digit: what separates the words of a secret (`-`, `_`, `.`, a space). */
const SEPARATOR = /^[^\p{L}\p{N}]$/u;

/** One letter (any script). */
const LETTER = /^\p{L}$/u;

/**
 * The letters at an edge of a run that continue a word of the text beyond the run, when they are
 * fewer than MIN_PARTIAL and in one case style: the `n` of `session conformance` against a secret
 * holding `token conformance`. They end (or begin) another word of the text, not the secret's.
 * Returns where the rest of the run starts (or ends), or undefined when the edge is not such letters.
 */
function edgeOfTextWord(text: string, start: number, end: number, side: 'start' | 'end'): number | undefined {
  const outside = side === 'start' ? text.charAt(start - 1) : text.charAt(end);
  if (!LETTER.test(outside)) return undefined;
  let cut = side === 'start' ? start : end;
  if (side === 'start') while (cut < end && LETTER.test(text.charAt(cut))) cut += 1;
  else while (cut > start && LETTER.test(text.charAt(cut - 1))) cut -= 1;
  const letters = side === 'start' ? text.slice(start, cut) : text.slice(cut, end);
  // The whole run one word of the text: that word decides (the loop of insideWords).
  if (cut === (side === 'start' ? end : start)) return undefined;
  return letters.length < MIN_PARTIAL && PLAIN_WORD.test(letters) ? cut : undefined;
}

/**
 * `text[start, end)` lies inside occurrences of the `words` (lower-case; found in any letter case),
 * each written whole in the text, and the separators between or around them (`CONFORMANCE-` of
 * `CONFORMANCE-UNKNOWN`). Letters at an edge of the run that belong to a longer word of the text
 * (`sessio|n conformance`) are that word's, not the secret's (edgeOfTextWord).
 */
function insideWords(text: string, start: number, end: number, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  let covered = start;
  const from = edgeOfTextWord(text, start, end, 'start');
  if (from !== undefined && insideWords(text, from, end, words)) return true;
  const to = edgeOfTextWord(text, start, end, 'end');
  if (to !== undefined && insideWords(text, start, to, words)) return true;
  while (covered < end) {
    if (SEPARATOR.test(text.charAt(covered))) {
      covered += 1;
      continue;
    }
    let reach = -1;
    for (const word of words) {
      // An occurrence of the word that covers position `covered`.
      for (let at = Math.max(0, covered - word.length + 1); at <= covered; at++) {
        if (text.slice(at, at + word.length).toLowerCase() === word) reach = Math.max(reach, at + word.length);
      }
    }
    if (reach <= covered) return false;
    covered = reach;
  }
  return true;
}

/**
 * Control characters and characters a terminal or an XML 1.0 document must not get raw, shown as
 * escapes: C0 except `\n` and `\t` (ESC, CR, BEL, ...), DEL, C1, line/paragraph separators, bidi
 * overrides and isolates, lone surrogates, U+FFFE and U+FFFF.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is this regex's job
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeWith(text: string, unicode: boolean): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 && !unicode ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function escapeControls(text: string): string {
  return escapeWith(text, false);
}

/** As escapeControls, every escape written `\\uHHHH` (the proxy's log lines and listings, JSON-like). */
export function escapeControlsUnicode(text: string): string {
  return escapeWith(text, true);
}
