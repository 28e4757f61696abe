/**
 * State inspection and control under `/__mock` (no bearer auth): health, the fixture order numbers,
 * the recorded objects of the session, and reset (optionally protected by an admin token). Every
 * route takes the `X-Mock-Session` header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkResetConfirmed } from './control-guard.js';
import { isDashboardPath, serveDashboard } from './dashboard.js';
import type { Journal } from './journal.js';
import { problem } from './problems.js';
import { sendBody, sendEmpty, sendJson } from './respond.js';
import { SESSION_HEADER, sessionName, type MockState } from './state.js';

export const ADMIN_PREFIX = '/__mock';

export interface AdminContext {
  state: MockState;
  journal?: Journal;
  orderNumbers: string[];
  /** The fixture lots (valid `fk_lot_id` values), answered by `GET /__mock/lots`. */
  lots: { id: number; lotNumber: string; orderNumber: string }[];
  /** The recorded resources, by their listing name (`lot-transfers`, `test-samples`). */
  resources: string[];
  adminToken?: string;
  /** The contract the dashboard shows (default: the bundled one). */
  contractPath?: string;
  log: (line: string) => void;
}

/** The methods allowed on an admin path, or undefined for an unknown one. */
export function adminAllowed(ctx: AdminContext, pathname: string): string[] | undefined {
  if (isDashboardPath(pathname)) return ['GET', 'HEAD'];
  const rest = pathname.slice(ADMIN_PREFIX.length);
  if (rest === '/health' || rest === '/orders' || rest === '/lots' || ctx.resources.some((r) => rest === `/${r}`)) return ['GET', 'HEAD'];
  if (rest === '/reset') return ['POST'];
  return undefined;
}

export async function handleAdmin(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (isDashboardPath(pathname)) {
    // The dashboard (issue 7) answers its own paths, methods included.
    if (!serveDashboard(req, res, ctx.contractPath !== undefined ? { contractPath: ctx.contractPath } : {})) {
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
  if (rest === '/health') return sendJson(res, 200, { status: 'ok' });
  if (rest === '/orders') return sendJson(res, 200, ctx.orderNumbers);
  if (rest === '/lots') return sendJson(res, 200, ctx.lots);
  if (rest === '/reset') {
    if (ctx.adminToken !== undefined && req.headers.authorization !== `Bearer ${ctx.adminToken}`) {
      throw problem(
        'unauthorized',
        'POST /__mock/reset needs "Authorization: Bearer <admin token>" (the --admin-token of this mock).',
        undefined,
        {
          'WWW-Authenticate': 'Bearer realm="goods-mock-admin"',
        },
      );
    }
    checkResetConfirmed(req);
    if (ctx.journal) {
      try {
        await ctx.journal.append({ op: 'reset', session });
      } catch (error) {
        ctx.log(`state file write failed: ${(error as Error).message}`);
        throw problem('notDurable', 'The mock could not write its state file, so nothing was reset; check the disk and retry.');
      }
    }
    ctx.state.reset(session);
    return sendEmpty(res, 204);
  }
  const resource = rest.slice(1);
  const body = `[${ctx.state.records(session, resource).join(',')}]`;
  return sendBody(res, 200, 'application/json', body);
}
