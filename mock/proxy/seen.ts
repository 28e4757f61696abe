/**
 * What the forwarder keeps of an exchange while it streams it, kept cheap on the answer's path: the
 * raw header lists as they came and a copy of each body up to `MAX_JUDGED_BYTES`. The `ProxyExchange`
 * the judge reads (header names lower case, repeats joined as Node's `IncomingMessage.headers` joins
 * them) is built from them later, off the answer's path (`SeenExchange.exchange()`).
 */
import { MAX_JUDGED_BYTES, type ProxyExchange } from './exchange.js';

/** The first bytes of a body, up to `MAX_JUDGED_BYTES`; `complete` false once more came. */
export class Capture {
  private readonly chunks: Buffer[] = [];
  size = 0;
  complete = true;

  add(chunk: Buffer): void {
    if (this.size + chunk.length > MAX_JUDGED_BYTES) {
      this.complete = false;
      const room = MAX_JUDGED_BYTES - this.size;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = MAX_JUDGED_BYTES;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  bytes(): Buffer {
    return this.chunks.length === 1 && this.chunks[0] !== undefined ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
  }
}

/** Headers Node keeps once (a repeat is dropped), as `IncomingMessage.headers` does. */
const SINGLE = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * Header names as sent → lower case, for the names seen first (at most `LOWER_NAMES`, each at most
 * `LOWER_NAME_LENGTH` long): the same few names come in every exchange, and lowering each of them
 * again (a new string, then made a property key) was half of building the record.
 */
const lowerNames = new Map<string, string>();
const LOWER_NAMES = 256;
const LOWER_NAME_LENGTH = 64;

function lowerName(name: string): string {
  const known = lowerNames.get(name);
  if (known !== undefined) return known;
  const lower = name.toLowerCase();
  if (lowerNames.size < LOWER_NAMES && name.length <= LOWER_NAME_LENGTH) lowerNames.set(name, lower);
  return lower;
}

/**
 * Raw headers (`[name, value, name, value, ...]`) as one record: names lower case, a repeat of a
 * single-valued header dropped, `Cookie` repeats joined with "; ", others with ", " (as the
 * judgments read headers: Node's rules, `Set-Cookie` joined too).
 */
export function headerRecord(raw: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = lowerName(raw[i] ?? '');
    const value = raw[i + 1] ?? '';
    const seen = record[name];
    if (seen === undefined) record[name] = value;
    else if (!SINGLE.has(name)) record[name] = `${seen}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return record;
}

/** One exchange as forwarded (its answer delivered whole), before it is judged. */
export class SeenExchange {
  constructor(
    readonly method: string,
    /** The target as forwarded (origin-form, below the upstream URL's path). */
    readonly target: string,
    private readonly requestHeaders: readonly string[],
    private readonly requestBody: Capture,
    /** False when the upstream answered before the request body was in (an early 413): its body is not judged. */
    private readonly requestComplete: boolean,
    readonly status: number,
    private readonly answerHeaders: readonly string[],
    private readonly answerBody: Capture,
    readonly durationMs: number,
  ) {}

  /** The bytes of bodies it holds (what the judging queue counts). */
  get bytes(): number {
    return this.requestBody.size + this.answerBody.size;
  }

  /** The exchange as the judge reads it. */
  exchange(): ProxyExchange {
    return {
      method: this.method,
      target: this.target,
      request: {
        headers: headerRecord(this.requestHeaders),
        body: this.requestBody.bytes(),
        complete: this.requestBody.complete && this.requestComplete,
      },
      answer: {
        status: this.status,
        headers: headerRecord(this.answerHeaders),
        body: this.answerBody.bytes(),
        complete: this.answerBody.complete,
      },
      durationMs: this.durationMs,
    };
  }
}
