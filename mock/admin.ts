/**
 * State inspection and control under `/__mock` (no bearer auth): health, the fixture order numbers,
 * the operations model as JSON (`model`, `model-view.ts`), the recorded objects of the session, reset (optionally protected by an admin token), and the
 * session's fault rules (`fault-admin.ts`). Every
 * route takes the `X-Mock-Session` header. Listings page (`?limit=`, `?after=`, `Link: rel="next"`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnswerBudget } from './answer-budget.js';
import { checkAdminToken, checkResetConfirmed } from './control-guard.js';
import { isDashboardPath, serveDashboard } from './dashboard.js';
import { faultAdminAllowed, handleFaultAdmin, type FaultAdmin } from './fault-admin.js';
import { problem } from './problems.js';
import { sendBody, sendEmpty, sendJson, streamBody } from './respond.js';
import { SESSION_HEADER, sessionName } from './state.js';
import type { Store } from './store/types.js';

export const ADMIN_PREFIX = '/__mock';

/**
 * Listings page: `?limit=N` (default and most below) and `?after=ID`; a page also stops near
 * `pageBytes`, or sooner when the answer budget has less room (a shorter page, `Link` leads on).
 */
export const LISTING = { defaultLimit: 10_000, maxLimit: 10_000, pageBytes: 8 * 1024 * 1024 };

export interface AdminContext {
  store: Store;
  orderNumbers: string[];
  /** The fixture lots (valid `fk_lot_id` values), answered by `GET /__mock/lots`. */
  lots: { id: number; lotNumber: string; orderNumber: string }[];
  /** The recorded resources, by their listing name (`lot-transfers`, `test-samples`). */
  resources: string[];
  /** `GET /__mock/model`: the operations model as JSON (`model-view.ts`), serialized once at start-up (one copy for every reader). */
  model: Buffer;
  /** The answer bytes held for clients that have not read them (`--max-answer-bytes-in-flight`): listing pages count. */
  answers: AnswerBudget;
  adminToken?: string;
  /**
   * How the mock checks bearer tokens, for `GET /__mock/health` (the dashboard says it on a 401): `listed`
   * when it was started with `--token` (only those are accepted), `any` otherwise (any token but the
   * `--reject-token` ones). The tokens themselves are never answered.
   */
  tokens: 'listed' | 'any';
  /** The session fault rules (`/__mock/faults`). */
  faults: FaultAdmin;
  /** The contract the dashboard shows (default: the bundled one). */
  contractPath?: string;
  log: (line: string) => void;
}

/** The methods allowed on an admin path, or undefined for an unknown one. */
export function adminAllowed(ctx: AdminContext, pathname: string): string[] | undefined {
  if (isDashboardPath(pathname)) return ['GET', 'HEAD'];
  const rest = pathname.slice(ADMIN_PREFIX.length);
  if (rest === '/health' || rest === '/orders' || rest === '/lots' || rest === '/model' || ctx.resources.some((r) => rest === `/${r}`))
    return ['GET', 'HEAD'];
  if (rest === '/reset') return ['POST'];
  return faultAdminAllowed(rest);
}

export async function handleAdmin(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (isDashboardPath(pathname)) {
    // The dashboard answers its own paths, methods included.
    if (!serveDashboard(req, res, { contractPath: ctx.contractPath, log: ctx.log })) {
      throw problem('notFound', 'The dashboard is not available in this build.');
    }
    return;
  }
  const allowed = adminAllowed(ctx, pathname);
  if (!allowed)
    throw problem(
      'notFound',
      `There is no ${ADMIN_PREFIX} endpoint ${pathname.slice(0, 200)}; see the README ("Developing against the mock").`,
    );
  const method = req.method ?? 'GET';
  if (!allowed.includes(method)) {
    throw problem('methodNotAllowed', `${pathname} allows only ${allowed.join(', ')}.`, undefined, { Allow: allowed.join(', ') });
  }
  const rest = pathname.slice(ADMIN_PREFIX.length);
  const session = sessionName(req.headers[SESSION_HEADER]);
  if (rest === '/health') {
    const store = await ctx.store.health();
    return sendJson(res, store.up ? 200 : 503, { status: store.up ? 'ok' : 'store-down', store, auth: { tokens: ctx.tokens } });
  }
  if (rest === '/orders') return sendJson(res, 200, ctx.orderNumbers);
  if (rest === '/lots') return sendJson(res, 200, ctx.lots);
  if (rest === '/model') return sendBody(res, 200, 'application/json', ctx.model);
  if (faultAdminAllowed(rest)) return handleFaultAdmin(ctx.faults, req, res, rest, session, ctx.adminToken);
  if (rest === '/reset') {
    checkAdminToken(req, ctx.adminToken, 'POST /__mock/reset');
    checkResetConfirmed(req);
    await ctx.store.reset(session);
    return sendEmpty(res, 204);
  }
  const resource = rest.slice(1);
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  const limit = queryInteger(query, 'limit', LISTING.defaultLimit, 1, LISTING.maxLimit);
  const after = queryInteger(query, 'after', 0, 0, Number.MAX_SAFE_INTEGER);
  // The page's bytes count against the answer budget from before it is read from the store until
  // each record has been handed to the connection: a client that never reads holds its page, no more.
  const hold = method === 'HEAD' ? undefined : ctx.answers.reserve(session, LISTING.pageBytes).until(res);
  const maxBytes = hold === undefined ? LISTING.pageBytes : Math.max(hold.bytes, ctx.answers.freePerAnswer);
  const page = await ctx.store.list(session, resource, { after, limit, maxBytes });
  const parts: (Buffer | string)[] = ['['];
  let size = 2;
  page.records.forEach((record, i) => {
    if (i > 0) parts.push(',');
    parts.push(record);
    size += record.length + (i > 0 ? 1 : 0);
  });
  parts.push(']');
  if (hold !== undefined && !hold.fit(size)) {
    throw ctx.answers.exhausted(session, size, `The listing page of ${resource} in session "${session}"`);
  }
  const headers: Record<string, string> = {};
  if (page.nextAfter !== undefined) {
    headers['Link'] = `<${ADMIN_PREFIX}/${resource}?limit=${limit}&after=${page.nextAfter}>; rel="next"`;
  }
  return streamBody(res, 200, 'application/json', parts, headers, (bytes) => hold?.release(bytes));
}

/** A whole-number query parameter within bounds, or its default. Throws a 400 problem. */
function queryInteger(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  const value = values[0] ?? '';
  if (values.length > 1 || !/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw problem(
      'invalidQuery',
      `The query parameter ${name} must be given once, as a whole number from ${min} to ${max}, not ${JSON.stringify(values.join(',').slice(0, 40))}.`,
    );
  }
  return Number(value);
}
