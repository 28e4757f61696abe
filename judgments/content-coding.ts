/**
 * Content codings (RFC 9110 §8.4, §12.5.3): what an answer's `Content-Encoding` names, what a
 * request's `Accept-Encoding` accepts, decoding a body (gzip, deflate, br, with node:zlib) and the two
 * judgments of an answer's coding:
 *
 * - spec (`judgeCodingReadable`): the answer can be read as sent. Its body decodes by the codings its
 *   `Content-Encoding` names, and a request that listed the codings it accepts gets none other.
 *   `Content-Encoding` states the codings applied so that the recipient can undo them and obtain the
 *   representation of the `Content-Type` (§8.4): a body that does not decode by them is no
 *   `application/json` answer at all, so every specification fact about an answer presupposes it; a
 *   coding the request did not list is one the client said it cannot undo (§12.5.3).
 * - strict (`judgeCodingAsked`): no coding unless asked. Without `Accept-Encoding`, §12.5.3 lets a
 *   server assume any coding is acceptable, so this is the profile's rule, not the specification's:
 *   clients that send none (curl without --compressed, scripts, many HTTP libraries' defaults) get
 *   the plain body.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { JudgedExchange, Violation } from './exchange.js';
import { PROFILE, SPEC } from './rules.js';

/** The codings a client of this API is expected to undo, and what the suite sends when it asks for them. */
export const CODINGS = ['gzip', 'deflate', 'br'] as const;
export const ACCEPT_ENCODING = CODINGS.join(', ');

/** The codings a `Content-Encoding` names, in the order they were applied (lower case; `identity` left out). */
export function codingsOf(header: string | undefined): string[] {
  // Most answers and requests name no coding.
  if (header === undefined || header === '' || header === 'identity') return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c.length > 0 && c !== 'identity');
}

/**
 * What an `Accept-Encoding` accepts: undefined when the request has none (then any coding is
 * acceptable, §12.5.3); else the codings listed with a weight above 0 (`*`: any not listed with 0).
 */
export function acceptedOf(header: string | undefined): { codings: Set<string>; refused: Set<string>; any: boolean } | undefined {
  if (header === undefined) return undefined;
  const codings = new Set<string>();
  const refused = new Set<string>();
  let any = false;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (name.length === 0) continue;
    const q = params.map((p) => /^q=([\d.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (name === '*') any = weight > 0;
    else if (weight > 0) codings.add(name === 'x-gzip' ? 'gzip' : name);
    else refused.add(name === 'x-gzip' ? 'gzip' : name);
  }
  return { codings, refused, any };
}

/** Whether an `Accept-Encoding` accepts `coding`. */
function accepts(accepted: NonNullable<ReturnType<typeof acceptedOf>>, coding: string): boolean {
  const name = coding === 'x-gzip' ? 'gzip' : coding;
  return accepted.codings.has(name) || (accepted.any && !accepted.refused.has(name));
}

export interface Decoded {
  /** The body with every coding undone; absent when it cannot be. */
  bytes?: Buffer;
  /** Why the body does not decode as its `Content-Encoding` says (absent: it does, or it has no coding). */
  error?: string;
}

/**
 * Undoes the codings of `Content-Encoding` (last applied first). `deflate` is the zlib format (§8.4.1.2);
 * raw DEFLATE without the zlib header, a known server bug, is read (as browsers do) but reported.
 * A decoded body larger than `maxBytes` is not read further.
 */
export function decodeContent(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Decoded {
  const codings = codingsOf(contentEncoding);
  // Most bodies name no coding: nothing to undo, nothing to copy.
  if (codings.length === 0) return { bytes: body };
  let bytes = body;
  let error: string | undefined;
  for (const coding of codings.reverse()) {
    const limit = { maxOutputLength: maxBytes };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') bytes = gunzipSync(bytes, limit);
      else if (coding === 'br') bytes = brotliDecompressSync(bytes, limit);
      else if (coding === 'deflate') {
        try {
          bytes = inflateSync(bytes, limit);
        } catch (zlibError) {
          bytes = inflateRawSync(bytes, limit); // throws the raw error when that fails too
          error ??= `Content-Encoding deflate, but the body is raw DEFLATE without the zlib header (RFC 9110 §8.4.1.2: deflate is the zlib format; ${reasonOf(zlibError)})`;
        }
      } else return { error: `Content-Encoding names "${coding}", a coding the suite cannot undo (it reads ${ACCEPT_ENCODING})` };
    } catch (decodeError) {
      return {
        error: `the body does not decode as Content-Encoding "${contentEncoding ?? ''}" says (${coding}: ${reasonOf(decodeError)})`,
      };
    }
  }
  return error === undefined ? { bytes } : { bytes, error };
}

function reasonOf(error: unknown): string {
  if (error instanceof Error && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE')
    return 'larger than the answer limit once decoded';
  return error instanceof Error ? error.message : String(error);
}

/** The request's `Accept-Encoding`, as sent (`undefined` when it sent none). */
function acceptEncodingOf(exchange: JudgedExchange): string | undefined {
  const headers = exchange.request.headers;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === 'accept-encoding');
  return name === undefined ? undefined : headers[name];
}

/**
 * Spec: the answer reads as sent: it decodes by the codings its `Content-Encoding` names
 * (`undecodable`: why it does not, from whoever read the bytes), and names none the request's
 * `Accept-Encoding` left out.
 */
export function judgeCodingReadable(exchange: JudgedExchange, undecodable: string | undefined): Violation[] {
  const answer = exchange.answer;
  if (!answer) return [];
  const header = answer.headers['content-encoding'];
  const rule = SPEC.contentCoding;
  const violations: Violation[] = [];
  const acceptEncoding = acceptEncodingOf(exchange);
  const accepted = acceptedOf(acceptEncoding);
  const unlisted = accepted ? codingsOf(header).filter((c) => !accepts(accepted, c)) : [];
  if (unlisted.length > 0)
    violations.push({
      rule,
      in: 'header',
      header: 'content-encoding',
      expected: `no Content-Encoding, or one of the codings asked for (Accept-Encoding: ${acceptEncoding ?? ''})`,
      reason: `Content-Encoding is "${header ?? ''}": ${unlisted.join(', ')} was not asked for`,
    });
  if (undecodable !== undefined)
    violations.push({
      rule,
      in: 'body',
      expected: `a body that decodes by its Content-Encoding "${header ?? ''}"`,
      reason: undecodable,
    });
  return violations;
}

/** Strict: an answer to a request without `Accept-Encoding` has no content coding. */
export function judgeCodingAsked(exchange: JudgedExchange): Violation[] {
  const answer = exchange.answer;
  if (!answer || acceptEncodingOf(exchange) !== undefined) return [];
  const header = answer.headers['content-encoding'];
  if (codingsOf(header).length === 0) return [];
  return [
    {
      rule: PROFILE.contentCoding,
      in: 'header',
      header: 'content-encoding',
      expected: 'no Content-Encoding (the request sent no Accept-Encoding)',
      reason: `the answer is sent with Content-Encoding "${header ?? ''}" though the request did not ask for any coding`,
    },
  ];
}
