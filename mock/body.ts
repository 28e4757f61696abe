/**
 * Reading a JSON request body: the body is read as a stream and refused (413) as soon as it passes the
 * limit, without buffering the rest. Its media type and its JSON are judged by the request judgments
 * (`judgments/request.ts`, the one place those rules live: the charset rule is documented there); this
 * module words what they find as the mock's problems (415, 400).
 */
import type { IncomingMessage } from 'node:http';
import { ANSWER_LIMITS } from '../judgments/answer.js';
import { JsonBodyFault, mediaTypeFault, parseJsonBody } from '../judgments/request.js';
import type { BodyHold } from './body-budget.js';
import { problem } from './problems.js';

/**
 * Checks the Content-Type header of a request that must carry JSON: `application/json`, or the JSON
 * media type the contract names for the operation (`application/merge-patch+json`). Throws a 415 problem.
 */
export function checkJsonContentType(header: string | undefined, wanted = 'application/json'): void {
  const fault = mediaTypeFault(header, wanted);
  if (fault === undefined) return;
  switch (fault.kind) {
    case 'missing':
      throw problem('unsupportedMediaType', `The request has no Content-Type; send the body as "${wanted}".`);
    case 'malformed':
      throw problem('unsupportedMediaType', `The Content-Type "${(header ?? '').slice(0, 100)}" is malformed; send "${wanted}".`);
    case 'other-type':
      throw problem('unsupportedMediaType', `The request body must be "${wanted}", not "${fault.type.slice(0, 100)}".`);
    case 'charset':
      throw problem(
        'unsupportedMediaType',
        `The charset of an ${wanted} body must be utf-8, not "${fault.charset.slice(0, 40)}": JSON text is UTF-8 (RFC 8259 §8.1); send it as UTF-8, with no charset or charset=utf-8.`,
      );
  }
}

/**
 * Reads the whole body, or throws a 413 problem as soon as it is larger than `limit` bytes, or the 503
 * of the in-flight budget (`--max-body-bytes-in-flight`) when `admit` refuses the declared length
 * (before anything is read) or the hold it gives refuses the bytes read so far. A body with a declared
 * length is read into one buffer of that size: no second copy at its end.
 */
export function readBody(req: IncomingMessage, limit: number, admit?: () => BodyHold): Promise<Buffer> {
  const tooLarge = () => problem('payloadTooLarge', `The request body is larger than ${limit} bytes.`);
  const declared = req.headers['content-length'];
  const length = declared === undefined ? Number.NaN : Number(declared);
  if (length > limit) return Promise.reject(tooLarge());
  let hold: BodyHold | undefined;
  try {
    hold = admit?.();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return new Promise((resolve, reject) => {
    // A large body of known length goes straight into its own buffer (the parser's chunks are garbage at once).
    const whole = length > 64 * 1024 ? Buffer.allocUnsafe(length) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      if (error) {
        // The rest of a refused body may still flow: nothing listens for it any more. (After 'end'
        // nothing more comes, so the listeners are left to go with the request.)
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        chunks.length = 0;
        reject(error);
      } else if (whole) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      if (done) return;
      const next = size + chunk.length;
      if (next > limit) return finish(tooLarge());
      if (hold && !hold.take(next)) return finish(hold.exhausted());
      // (The parser never passes a declared Content-Length.)
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size = next;
    };
    const onEnd = () => finish();
    // An error before the body is complete is the connection going away mid-body (Node destroys the
    // request with ECONNRESET "aborted"): a client problem (nobody is left to answer), not an internal error.
    const onError = (error: Error) =>
      finish(req.complete ? error : problem('bodyIncomplete', 'The request body ended early: the client closed the connection.'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * The deepest nesting of arrays and objects in a body the mock parses: as deep as the suite parses an
 * answer, so a create's answer, which echoes its body, stays within what the suite reads. Checked
 * before parsing: a 1 MiB body of nested `[` held the event loop about 0.3 s and parsed to half a
 * million arrays.
 */
export const MAX_BODY_DEPTH = ANSWER_LIMITS.maxDepth;

/**
 * Decodes and parses a JSON body (`parseJsonBody`). Throws a 400 problem for an empty body, invalid
 * UTF-8, invalid JSON, or JSON nested deeper than `MAX_BODY_DEPTH`.
 */
export function parseJson(body: Buffer): unknown {
  const parsed = parseJsonBody(body, MAX_BODY_DEPTH);
  if (!(parsed instanceof JsonBodyFault)) return parsed;
  switch (parsed.kind) {
    case 'empty':
      throw problem('malformedJson', 'The request body is empty; send a JSON object.', [{ pointer: '', detail: 'is empty' }]);
    case 'not-utf8':
      throw problem('malformedJson', 'The request body is not valid UTF-8; send UTF-8 encoded JSON.', [
        { pointer: '', detail: 'is not valid UTF-8' },
      ]);
    case 'not-json':
      throw problem('malformedJson', `The request body is not valid JSON: ${parsed.reason.slice(0, 200)}.`, [
        { pointer: '', detail: 'is not valid JSON' },
      ]);
    case 'too-deep':
      throw problem(
        'invalidBody',
        `The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels, which the mock does not parse; send a body nested at most ${MAX_BODY_DEPTH} levels.`,
        [{ pointer: '', detail: `nests deeper than ${MAX_BODY_DEPTH} levels` }],
      );
  }
}
