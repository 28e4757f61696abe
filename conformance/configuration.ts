/**
 * Configuration errors: answers that say the run's options are wrong rather than the server (exit 2,
 * outcome `configuration`). Read from the answer to the main order (the GET of `--order-number` with
 * the token, the run's first request) and from every answer of the run; the checks have all run, so
 * the summary still lists what was checked. One problem, the first that applies:
 *
 * 1. the main order was answered with an HTML page (a login page, a proxy's page, a web front-end),
 *    at any status but 500 (a server's own error page is its failure): `--base-url` does not reach
 *    the API;
 * 2. every answer was 401: nothing the run sent is accepted (`--token`);
 * 3. the token was refused (401, 403) on the main order (`--token`);
 * 4. every answer was 404, the main order's too: `--base-url` misses the API's base path (or
 *    `--order-number` is wrong as well);
 * 5. the main order was answered 404 (`--order-number`).
 *
 * A certificate the run does not trust is found before any check runs (`certificateProblem`, a
 * StartError: exit 2 without a summary, like a TLS/plain-HTTP mismatch).
 */
import { mediaTypeOf } from '../judgments/answer.js';
import type { JudgedAnswer } from '../judgments/exchange.js';
import type { ConformanceConfig } from './config.js';
import type { Exchange } from './http.js';
import type { ConfigurationProblem } from './report/results.js';
import { StartError } from './start-error.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** The start of an HTML document (the patterns of the WHATWG MIME Sniffing standard's HTML signature that open a page). */
const HTML_START = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|script)(?=[\s>])/i;

/** The answer is an HTML page: its media type says so, or its body starts like one. */
export function looksLikeHtml(answer: JudgedAnswer): boolean {
  const type = mediaTypeOf(answer);
  return (type !== undefined && HTML_TYPES.has(type)) || HTML_START.test(answer.text.replace(/^\uFEFF/, ''));
}

/** The `<title>` of an HTML page, whitespace collapsed and cut to 80 characters. */
function titleOf(text: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  if (title === undefined || title === '') return undefined;
  return title.length > 80 ? `${title.slice(0, 80)}…` : title;
}

/** The configuration problem the answers show, if any (see the module comment for the order). */
export function configurationProblem(
  main: Exchange | undefined,
  history: readonly Exchange[],
  config: Pick<ConformanceConfig, 'orderNumber'>,
): ConfigurationProblem | undefined {
  const answer = main?.answer;
  if (!answer) return undefined;
  const order = `the main order ${JSON.stringify(config.orderNumber)}`;
  const answered = history.flatMap((e) => (e.answer ? [e.answer.status] : []));
  const all = (status: number): boolean => answered.length > 1 && answered.every((s) => s === status);
  if (answer.status !== 500 && looksLikeHtml(answer)) {
    const title = titleOf(answer.text);
    return {
      option: '--base-url',
      reason: `${order} was answered ${answer.status} with an HTML page${title !== undefined ? ` (title "${title}")` : ''}, not JSON: a login page, a proxy or a web site answers at --base-url, not the API`,
      fix: 'point --base-url at the API itself (its base path, past any login page or proxy), and check that the API is up',
    };
  }
  const tokenFix = 'pass --token (or set CONFORMANCE_TOKEN) with a token this server accepts';
  if (all(401))
    return {
      option: '--token',
      reason: `every request (${answered.length}) was answered 401, ${order} with the token too: the server, or a gateway in front of it, accepts nothing the run sent`,
      fix: tokenFix,
    };
  if (answer.status === 401 || answer.status === 403)
    return { option: '--token', reason: `the token was refused (${answer.status}) on ${order}`, fix: tokenFix };
  if (answer.status === 404 && all(404))
    return {
      option: '--base-url',
      reason: `every request (${answered.length}) was answered 404, ${order} too`,
      fix: "check --base-url (the API's base path) and --order-number (an existing order with lots on this server)",
    };
  if (answer.status === 404)
    return {
      option: '--order-number',
      reason: `${order} was answered 404 (not found)`,
      fix: 'pass --order-number with an existing order with lots on this server',
    };
  return undefined;
}

/** Node's codes for a certificate chain the run does not trust (a private or self-signed CA). */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);
/** Codes for a certificate that no trust setting can make right: the server's certificate must change. */
const INVALID = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'CERT_SIGNATURE_FAILURE', 'CERT_REJECTED']);

/**
 * The first request failed on the server's TLS certificate: a StartError (exit 2) with the reason and
 * the fix; undefined for any other failure. (The suite has no switch that turns verification off.)
 */
export function certificateProblem(exchange: Exchange, target: string, caPath: string | undefined): StartError | undefined {
  const code = exchange.errorCode;
  if (code === undefined) return undefined;
  const why = `${exchange.error ?? code}`.replace(/^no answer: /, '');
  if (UNTRUSTED.has(code))
    return new StartError(
      `the TLS certificate of ${target} is not trusted (${why})${caPath !== undefined ? `, not even with --ca ${caPath}` : ''}`,
      caPath !== undefined
        ? 'pass --ca with the PEM certificate of the CA that signed the server certificate (or its chain)'
        : 'pass --ca FILE with the PEM certificate of the CA that signed it (e.g. your company CA)',
    );
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return new StartError(
      `the TLS certificate of ${target} does not name its host (${why})`,
      'use in --base-url a host name the certificate names (or fix the certificate)',
    );
  if (INVALID.has(code))
    return new StartError(`the TLS certificate of ${target} is not valid (${why})`, "fix the server's certificate (renew it)");
  return undefined;
}
