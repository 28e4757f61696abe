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

 */
import { mediaTypeOf } from '../judgments/answer.js';
import type { JudgedAnswer } from '../judgments/exchange.js';
import type { ConformanceConfig } from './config.js';
import type { Exchange } from './http.js';
import type { ConfigurationProblem } from './report/results.js';

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
