/**
 * Configuration errors: answers that say the run's options are wrong rather than the server (exit 2,
 * outcome `configuration`), only where a misconfiguration is the only explanation. Read from the
 * answer to the main order (the GET of `--order-number` with the token, the run's first request) and
 * from every answer of the run; the checks have all run, so the summary still lists what was
 * checked. One problem, the first that applies:
 *
 * 1. the main order was answered with an HTML page (its body starts like one; a label alone is not
 *    enough: JSON labelled `text/html` is the server's fault) at any status but 500 (a server's own
 *    error page is its failure), and no answer of the run was JSON: nothing the run reached is the
 *    API, so `--base-url` does not reach it;
 * 2. every answer was 401: nothing the run sent is accepted (`--token`);
 * 3. the token was refused (401, 403) on the main order, and no request showed it accepted (a 2xx
 *    to a request with it, or an operation that refused a request without credentials 401 answering
 *    one with the token otherwise): `--token`;
 * 4. every answer was 404, the main order's too: `--base-url` misses the API's base path (or
 *    `--order-number` is wrong as well);
 * 5. the main order was answered 404, and no other answer of the run describes it (`--order-number`).
 *
 * Rules 4 and 5 never apply to an order number that needs percent-encoding in the path: a server that
 * decodes the path twice, decodes it before cutting off `?` or `#`, or takes `%2F` for `/` answers
 * 404 to it too, so the 404 is a failure of the server that names both explanations
 * (`decodingExplanation`). Where the answers show another explanation besides the configuration, the
 * run fails and says both (`configurationHints`).
 *
 * A certificate the run does not trust is found before any check runs (`certificateProblem`, a
 * StartError: exit 2 without a summary, like a TLS/plain-HTTP mismatch).
 */
import { isObject } from '../contract/document.js';
import { is2xx } from '../judgments/answer.js';
import { decodingExplanation } from '../judgments/order-info.js';
import type { JudgedAnswer } from '../judgments/exchange.js';
import { parseJsonText } from '../util/json.js';
import type { ConformanceConfig } from './config.js';
import type { Exchange } from './http.js';
import type { ConfigurationProblem } from '../report/results.js';

export { decodingExplanation };
import { StartError } from './start-error.js';

/** The start of an HTML document (the patterns of the WHATWG MIME Sniffing standard's HTML signature that open a page, after an XML declaration). */
const HTML_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|script)(?=[\s>])/i;

/**
 * The answer is an HTML page: its body starts like one. Its media type alone does not make it one: a
 * JSON body labelled `text/html` is a server's mislabelled answer, judged as such.
 */
export function looksLikeHtml(answer: JudgedAnswer): boolean {
  return HTML_START.test(answer.text.replace(/^\uFEFF/, ''));
}

/** The body is JSON (an object or an array): the answer comes from a JSON API. */
function isJsonAnswer(answer: Pick<JudgedAnswer, 'text'>): boolean {
  const parsed = parseJsonText(answer.text);
  return parsed.ok && (isObject(parsed.value) || Array.isArray(parsed.value));
}

/** The `<title>` of an HTML page, whitespace collapsed and cut to 80 characters. */
function titleOf(text: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  if (title === undefined || title === '') return undefined;
  return title.length > 80 ? `${title.slice(0, 80)}…` : title;
}

type RunFacts = Pick<ConformanceConfig, 'orderNumber' | 'token'>;

/** The Authorization value of the run's token. */
const withToken = (e: Exchange, token: string): boolean => e.request.headers['authorization'] === `Bearer ${token}`;

/**
 * A request shows the token accepted: one carrying it answered 2xx; or, on an operation that answered
 * a request without credentials 401 (so it checks credentials), one carrying it answered neither 401
 * nor 403 (a 404 for an unknown number says the token passed).
 */
export function tokenAccepted(history: readonly Exchange[], token: string): Exchange | undefined {
  const checking = new Set(
    history.filter((e) => e.answer?.status === 401 && e.request.headers['authorization'] === undefined).map((e) => e.request.operation),
  );
  const mine = history.filter((e) => e.answer !== undefined && withToken(e, token));
  return (
    mine.find((e) => is2xx(e.answer?.status ?? 0)) ??
    mine.find(
      (e) => e.request.operation !== 'server' && checking.has(e.request.operation) && e.answer?.status !== 401 && e.answer?.status !== 403,
    )
  );
}

/** Another answer of the run (with the token, 2xx, JSON) that names the main order's number: the order exists. */
function orderFound(main: Exchange, history: readonly Exchange[], config: RunFacts): Exchange | undefined {
  const quoted = JSON.stringify(config.orderNumber);
  return history.find(
    (e) =>
      e !== main &&
      e.request.operation === main.request.operation &&
      e.answer !== undefined &&
      is2xx(e.answer.status) &&
      withToken(e, config.token) &&
      isJsonAnswer(e.answer) &&
      e.answer.text.includes(quoted),
  );
}

/** The configuration problem the answers show, if any (see the module comment for the order). */
export function configurationProblem(
  main: Exchange | undefined,
  history: readonly Exchange[],
  config: RunFacts,
): ConfigurationProblem | undefined {
  const answer = main?.answer;
  if (!main || !answer) return undefined;
  const order = `the main order ${JSON.stringify(config.orderNumber)}`;
  const answered = history.flatMap((e) => (e.answer ? [e.answer.status] : []));
  const all = (status: number): boolean => answered.length > 1 && answered.every((s) => s === status);
  if (answer.status !== 500 && looksLikeHtml(answer) && !history.some((e) => e.answer !== undefined && isJsonAnswer(e.answer))) {
    const title = titleOf(answer.text);
    return {
      option: '--base-url',
      reason: `${order} was answered ${answer.status} with an HTML page${title !== undefined ? ` (title "${title}")` : ''}, and no answer of the run was JSON: a login page, a proxy or a web site answers at --base-url, not the API`,
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
  if ((answer.status === 401 || answer.status === 403) && tokenAccepted(history, config.token) === undefined)
    return { option: '--token', reason: `the token was refused (${answer.status}) on ${order}`, fix: tokenFix };
  const encoded = decodingExplanation(config.orderNumber) !== undefined;
  if (answer.status === 404 && all(404) && !encoded)
    return {
      option: '--base-url',
      reason: `every request (${answered.length}) was answered 404, ${order} too`,
      fix: "check --base-url (the API's base path) and --order-number (an existing order with lots on this server)",
    };
  if (answer.status === 404 && !encoded && orderFound(main, history, config) === undefined)
    return {
      option: '--order-number',
      reason: `${order} was answered 404 (not found)`,
      fix: 'pass --order-number with an existing order with lots on this server',
    };
  return undefined;
}

/**
 * Hints for a main order the server did not answer 2xx when the configuration is not the only
 * explanation (then the run fails, exit 1): each names both explanations.
 */
export function configurationHints(main: Exchange | undefined, history: readonly Exchange[], config: RunFacts): string[] {
  const answer = main?.answer;
  if (!main || !answer || configurationProblem(main, history, config)) return [];
  const order = `the main order ${JSON.stringify(config.orderNumber)}`;
  const shown = (e: Exchange): string => `${e.request.method} ${e.request.path} answered ${e.answer?.status ?? ''}`;
  if (answer.status === 401 || answer.status === 403) {
    const accepted = tokenAccepted(history, config.token);
    if (accepted)
      return [
        `the token was refused (${answer.status}) on ${order}, but the server accepted it elsewhere (${shown(accepted)}): either the token's user may not read this order (pass --order-number of one it may read) or the server's authorization is wrong (a failure)`,
      ];
  }
  if (answer.status === 404) {
    const found = orderFound(main, history, config);
    if (found)
      return [
        `${order} was answered 404, but another request of the run found it (${shown(found)}): the server fails to find an order it has (a failure)`,
      ];
    const decoding = decodingExplanation(config.orderNumber);
    if (decoding !== undefined) return [`${order} was answered 404: ${decoding}`];
  }
  if (answer.status !== 500 && looksLikeHtml(answer))
    return [
      `${order} was answered ${answer.status} with an HTML page while other answers of the run were JSON: the API is at --base-url, and its answer to the order is no JSON (a failure)`,
    ];
  return [];
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
