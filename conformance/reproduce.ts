/**
 * A ready-to-paste `curl` command that sends a request of the run again, as sent: the method, the
 * base URL and path, every header the suite set (a header the suite did not send is removed from
 * curl's defaults: `Accept`, `Content-Type` with a body, `Expect` with a large one), the body byte for byte. Credentials are
 * never written: the token is `$CONFORMANCE_TOKEN` (and what the suite built from it: its Basic
 * credential, its prefix, its other letter case, as shell expressions of it), a non-default
 * `--rejected-token` is `$CONFORMANCE_REJECTED_TOKEN`. Quoting is POSIX shell: literal text in single
 * quotes (nothing in them is expanded, not even `!`), the variables in double quotes.
 *
 * A body of printable text up to INLINE_BYTES is given inline (`--data-binary '...'`); any other body
 * (control or bidi characters, bytes that are not UTF-8, a large body) is written by a `node -e`
 * one-liner piped into `--data-binary @-`, with runs of a repeated unit written as `Buffer.alloc`, so
 * that every character of the command is printable ASCII or text and survives the reports
 * (`escapeControls` leaves it unchanged).
 */
import type { HttpRequest } from './http.js';

/** The environment variable that holds the token in a printed reproduction. */
export const TOKEN_VARIABLE = 'CONFORMANCE_TOKEN';
/** The environment variable that holds a non-default --rejected-token. */
export const REJECTED_TOKEN_VARIABLE = 'CONFORMANCE_REJECTED_TOKEN';

/** Bodies up to this size, printable text, are written inline. */
const INLINE_BYTES = 4096;
/** A generated body longer than this (as text) is not printed: the command would be unusable. */
const MAX_GENERATOR_CHARS = 64 * 1024;
/** A unit repeated at least this often is written as `Buffer.alloc`. */
const MIN_REPEATS = 16;

export interface ReproduceOptions {
  /** The base URL as shown (no userinfo). */
  baseUrl: string;
  token: string;
  rejectedToken: string;
  /** The rejected token is the documented default (no secret: written as it is). */
  rejectedTokenIsDefault: boolean;
  /** The Basic credential the auth checks build from the token (`basicCredentials`), and its user. */
  basic: { credential: string; user: string };
  /** `--ca FILE`, when the run trusted a CA file. */
  caPath?: string;
}

/** `text` in single quotes for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Characters the reports would escape (control, bidi, separators, lone surrogates): such text is never written raw. */
// eslint-disable-next-line no-control-regex -- matching control characters is this regex's job
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udfff]/;

/** The credential values the suite builds from the token, each with the shell expression that rebuilds it from the variable. */
function credentialExpressions(options: ReproduceOptions): [string, string][] {
  const { token } = options;
  const variable = `\${${TOKEN_VARIABLE}}`;
  const pairs: [string, string][] = [];
  if (options.basic.credential.length > 0)
    pairs.push([options.basic.credential, `$(printf '%s' "${options.basic.user}:${variable}" | base64 | tr -d '\\n')`]);
  if (!options.rejectedTokenIsDefault && options.rejectedToken.length > 0)
    pairs.push([options.rejectedToken, `\${${REJECTED_TOKEN_VARIABLE}}`]);
  if (token.length > 0) pairs.push([token, variable]);
  // What the rejected-token cases make of the token: its other letter case (ASCII letters), its prefix.
  const swapped = [...token].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  if (swapped !== token && /^[\x20-\x7e]*$/.test(token)) pairs.push([swapped, `$(printf '%s' "${variable}" | tr 'a-zA-Z' 'A-Za-z')`]);
  if (token.length > 1) pairs.push([token.slice(0, -1), `\${${TOKEN_VARIABLE}%?}`]);
  return pairs.sort((a, b) => b[0].length - a[0].length);
}

/** A credential header's value as a shell word: literal parts in single quotes, the credentials as expressions of the variables. */
function credentialWord(prefix: string, value: string, options: ReproduceOptions): string {
  const expressions = credentialExpressions(options);
  let word = '';
  let literal = prefix;
  let rest = value;
  while (rest.length > 0) {
    const found = expressions
      .map(([text, expression]) => ({ at: rest.indexOf(text), text, expression }))
      .filter((f) => f.at >= 0)
      .sort((a, b) => a.at - b.at || b.text.length - a.text.length)[0];
    if (!found) {
      literal += rest;
      break;
    }
    literal += rest.slice(0, found.at);
    if (literal.length > 0) word += shellQuote(literal);
    word += `"${found.expression}"`;
    literal = '';
    rest = rest.slice(found.at + found.text.length);
  }
  if (literal.length > 0 || word === '') word += shellQuote(literal);
  return word;
}

/** The body as a Node expression: base64 pieces, and runs of a repeated unit as `Buffer.alloc`. */
function bodyExpression(body: Buffer): string {
  const parts: string[] = [];
  let plain = 0;
  let i = 0;
  const flush = (end: number): void => {
    if (end > plain) parts.push(`Buffer.from(${JSON.stringify(body.subarray(plain, end).toString('base64'))},"base64")`);
  };
  while (i < body.length) {
    let best = { unit: 0, repeats: 0 };
    for (let unit = 1; unit <= 4 && i + unit * MIN_REPEATS <= body.length; unit++) {
      // The run of period `unit` from i: each byte equal to the one a unit before (byte by byte: a
      // native compare per repeat cost seconds on bodies of megabytes); whole units of it repeat.
      let end = i + unit;
      while (end < body.length && body[end] === body[end - unit]) end++;
      const repeats = Math.floor((end - i) / unit);
      if (repeats >= MIN_REPEATS && repeats * unit > best.repeats * best.unit) best = { unit, repeats };
    }
    if (best.unit === 0) {
      i++;
      continue;
    }
    flush(i);
    const size = best.unit * best.repeats;
    const fill = body.subarray(i, i + best.unit);
    parts.push(
      best.unit === 1
        ? `Buffer.alloc(${size},${fill[0] ?? 0})`
        : `Buffer.alloc(${size},Buffer.from(${JSON.stringify(fill.toString('base64'))},"base64"))`,
    );
    i += size;
    plain = i;
  }
  flush(body.length);
  return parts.length === 1 ? (parts[0] ?? '') : `Buffer.concat([${parts.join(',')}])`;
}

/** The body can be written inline: printable UTF-8 text, small. */
function inline(body: Buffer): string | undefined {
  if (body.length > INLINE_BYTES) return undefined;
  const text = body.toString('utf8');
  // A line break would be indented with the report's lines: such a body is generated too.
  if (!Buffer.from(text, 'utf8').equals(body) || UNPRINTABLE.test(text) || text.includes('\n')) return undefined;
  return text;
}

/** The curl options that send one request, and the command to pipe its body from (when not inline). */
function requestArgs(request: HttpRequest, options: ReproduceOptions): { args: string[]; pipe?: string } | undefined {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${request.path}`;
  const args: string[] = ['-sS -i'];
  const names = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
  if (options.caPath !== undefined) args.push(`--cacert ${shellQuote(options.caPath)}`);
  if (url.startsWith('https:')) args.push('--http1.1');
  if (/[[\]{}]/.test(url)) args.push('--globoff');
  if (/\/\.\.?(?:[/?#]|$)/.test(request.path)) args.push('--path-as-is');
  if (names.has('accept-encoding')) args.push('--compressed');
  const hasBody = request.body !== undefined;
  if (request.method === 'HEAD') args.push('--head');
  else if (request.method !== 'GET' || hasBody) args.push(`-X ${request.method}`);
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    // `-H 'name;'` sends the header with an empty value (`-H 'name:'` would remove it).
    if (value === '') args.push(`-H ${shellQuote(`${name};`)}`);
    else if (lower === 'authorization' || lower === 'proxy-authorization') args.push(`-H ${credentialWord(`${name}: `, value, options)}`);
    else args.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  // Headers curl adds by itself that the suite did not send.
  if (!names.has('accept')) args.push(`-H 'accept:'`);
  if (hasBody && !names.has('content-type')) args.push(`-H 'content-type:'`);
  // curl asks a large body's way clear first (`Expect: 100-continue`); the suite sends it at once.
  if (request.body !== undefined && request.body.length > 1024 && !names.has('expect')) args.push(`-H 'expect:'`);
  let pipe: string | undefined;
  if (request.body !== undefined) {
    const text = inline(request.body);
    if (text !== undefined) args.push(`--data-binary ${shellQuote(text)}`);
    else {
      const expression = bodyExpression(request.body);
      if (expression.length > MAX_GENERATOR_CHARS) return undefined;
      pipe = `node -e ${shellQuote(`process.stdout.write(${expression})`)}`;
      args.push('--data-binary @-');
    }
  }
  args.push(shellQuote(url));
  return { args, ...(pipe !== undefined ? { pipe } : {}) };
}

/**
 * The curl command that sends `request` again (one line per option, joined by ` \` and a newline).
 * With `before`: the requests sent just before it on the same kept-alive connection, sent first in
 * the same curl (`--next` keeps the connection), as the suite sent them (a credential case right after
 * an authenticated request).
 */
export function curlOf(request: HttpRequest, options: ReproduceOptions, before: readonly HttpRequest[] = []): string | undefined {
  const parts = [...before, request].map((r) => requestArgs(r, options));
  const pipes = parts.flatMap((p) => (p?.pipe !== undefined ? [p.pipe] : []));
  // One body at most can come from stdin.
  if (parts.some((p) => p === undefined) || pipes.length > 1) return undefined;
  // In a sequence, each answer ends with a line break (`-w`), so the next one starts on a line of its own.
  const between = before.length > 0 ? ` -w '\\n'` : '';
  const command = `curl ${parts.map((p) => `${(p?.args ?? []).join(' \\\n  ')}`).join(`${between} \\\n  --next `)}`;
  return pipes[0] !== undefined ? `${pipes[0]} | \\\n  ${command}` : command;
}
