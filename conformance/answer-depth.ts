/**
 * How deep an answer's JSON nests, measured on the bytes as they arrive, so the suite stops reading an
 * answer that nests deeper than it parses (`ANSWER_LIMITS.maxDepth`) before anything holds or parses
 * it: a body of 540,000 nested `[` is half a million arrays once parsed, and with 8 requests in flight
 * a suite that parsed them grew past 700 MiB.
 *
 * Fed either a body taken out of its framing (`bodyOnly`: what the HTTP client hands over), or the raw
 * bytes of a connection carrying one answer after any 1xx interim heads: then the scan reads the head
 * (status, `Transfer-Encoding`, `Content-Encoding`), then the body, a chunked body chunk by chunk, its
 * size lines and extensions skipped. A body with a content coding is
 * not scanned: the client cannot parse its bytes as JSON, and the judgments parse its decoded form
 * within the same limits. Brackets inside JSON strings do not count. UTF-8 never puts an ASCII byte
 * inside a multi-byte character, so bytes are scanned as characters.
 */

/** The longest head read before the scan gives up on an answer (the client refuses such a head itself). */
const MAX_HEAD_BYTES = 64 * 1024;

const CR = 0x0d;
const LF = 0x0a;
/** The bytes that matter to the nesting, by index: a quote, a backslash, `[`, `{`, `]`, `}`. */
const SIGNIFICANT = [0x22, 0x5c, 0x5b, 0x7b, 0x5d, 0x7d];
const [QUOTE, BACKSLASH, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0, 1, 2, 3, 4, 5];

export class AnswerDepthScanner {
  private phase: 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'done' = 'head';
  private head: Buffer = Buffer.alloc(0);
  private chunked = false;
  private chunkLeft = 0;
  private sizeText = '';
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** `bodyOnly`: the bytes are a body already taken out of its framing (no head, no chunk sizes). */
  constructor(
    private readonly maxDepth: number,
    bodyOnly = false,
  ) {
    if (bodyOnly) this.phase = 'body';
  }

  /** Reads the next bytes of the connection; true as soon as the body nests deeper than `maxDepth`. */
  push(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length && this.phase !== 'done') {
      if (this.phase === 'head') at = this.readHead(chunk, at);
      else if (this.phase === 'body') {
        if (this.scan(chunk, at, chunk.length)) return true;
        at = chunk.length;
      } else if (this.phase === 'chunk-size' || this.phase === 'chunk-end') at = this.readLine(chunk, at);
      else {
        const end = Math.min(chunk.length, at + this.chunkLeft);
        if (this.scan(chunk, at, end)) return true;
        this.chunkLeft -= end - at;
        at = end;
        if (this.chunkLeft === 0) this.phase = 'chunk-end';
      }
    }
    return false;
  }

  /** Collects the head up to its blank line, then decides how the body is scanned; returns where the body starts. */
  private readHead(chunk: Buffer, at: number): number {
    const previous = this.head;
    const joined = previous.length > 0 ? Buffer.concat([previous, chunk.subarray(at)]) : chunk.subarray(at);
    const end = joined.indexOf('\r\n\r\n');
    if (end < 0) {
      this.head = Buffer.from(joined);
      if (this.head.length > MAX_HEAD_BYTES) this.phase = 'done';
      return chunk.length;
    }
    const consumed = end + 4 - previous.length;
    const lines = joined.subarray(0, end).toString('latin1').split('\r\n');
    this.head = Buffer.alloc(0);
    const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
    // An interim answer (100 Continue) has no body: the real head follows.
    if (status >= 100 && status < 200) return at + consumed;
    const header = (name: string): string =>
      lines
        .slice(1)
        .filter((line) => line.toLowerCase().startsWith(`${name}:`))
        .map((line) =>
          line
            .slice(name.length + 1)
            .trim()
            .toLowerCase(),
        )
        .join(',');
    const coding = header('content-encoding');
    if (coding !== '' && coding !== 'identity') this.phase = 'done';
    else {
      this.chunked = header('transfer-encoding').includes('chunked');
      this.phase = this.chunked ? 'chunk-size' : 'body';
    }
    return at + consumed;
  }

  /** Skips to the end of a chunk-size line (its size read, extensions ignored) or of the CRLF after a chunk. */
  private readLine(chunk: Buffer, at: number): number {
    let i = at;
    while (i < chunk.length && chunk[i] !== LF) {
      // The size comes first; 16 characters hold any size (the rest is extensions).
      if (this.phase === 'chunk-size' && chunk[i] !== CR && this.sizeText.length < 16) this.sizeText += String.fromCharCode(chunk[i] ?? 0);
      i++;
    }
    if (i === chunk.length) return i;
    if (this.phase === 'chunk-end') {
      this.phase = 'chunk-size';
      return i + 1;
    }
    const size = Number.parseInt(this.sizeText.split(';', 1)[0] ?? '', 16);
    this.sizeText = '';
    if (!Number.isFinite(size) || size <= 0) this.phase = 'done';
    else {
      this.chunkLeft = size;
      this.phase = 'chunk-data';
    }
    return i + 1;
  }

  /**
   * Scans body bytes; true when the nesting passes `maxDepth`. It runs over every byte of every answer,
   * so it jumps from one byte that matters (`"`, `\\`, brackets, braces) to the next with `indexOf`
   * (native, tens of times faster than a loop over the bytes), each search resumed where it last stopped.
   */
  private scan(chunk: Buffer, from: number, to: number): boolean {
    const region = chunk.subarray(from, to);
    const n = region.length;
    const found = [-1, -1, -1, -1, -1, -1];
    /** The next position of SIGNIFICANT[k] at or after `at` (n when none is left). */
    const next = (k: number, at: number): number => {
      if ((found[k] ?? -1) < at) {
        const position = region.indexOf(SIGNIFICANT[k] ?? 0, at);
        found[k] = position < 0 ? n : position;
      }
      return found[k] ?? n;
    };
    let depth = this.depth;
    let inString = this.inString;
    let i = 0;
    if (this.escaped && n > 0) {
      this.escaped = false;
      i = 1;
    }
    while (i < n) {
      if (inString) {
        const quote = next(QUOTE, i);
        const backslash = next(BACKSLASH, i);
        if (backslash < quote) {
          if (backslash + 1 >= n) this.escaped = true;
          i = backslash + 2;
        } else {
          inString = quote === n;
          i = quote + 1;
        }
        continue;
      }
      const at = Math.min(next(QUOTE, i), next(OPEN_ARRAY, i), next(OPEN_OBJECT, i), next(CLOSE_ARRAY, i), next(CLOSE_OBJECT, i));
      if (at === n) break;
      const byte = region[at];
      if (byte === 0x22) inString = true;
      else if (byte === 0x5b || byte === 0x7b) {
        depth++;
        if (depth > this.maxDepth) {
          this.depth = depth;
          return true;
        }
      } else depth--;
      i = at + 1;
    }
    this.depth = depth;
    this.inString = inString;
    return false;
  }
}
