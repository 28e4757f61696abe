/**
 * The proxy's control paths under `/__mock` (behind the control stage's browser guard): its health,
 * the violations seen so far, the reports written on request, and the dashboard. Nothing is recorded
 * in proxy mode, so the mock's record routes are not here; any other control path is a 404 naming
 * those that exist.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Level } from '../../contract/levels.js';
import { ADMIN_PREFIX } from '../admin.js';
import { checkAdminToken } from '../control-guard.js';
import { isPreflight, preflightHeaders } from '../cors.js';
import { isDashboardPath, serveDashboard } from '../dashboard.js';
import { problem } from '../problems.js';
import { escapeControlsUnicode } from '../../redaction/redactor.js';
import { sendEmpty, sendJson } from '../respond.js';
import type { ControlAnswer } from '../stages/control.js';
import type { ViolationsSnapshot } from './violations.js';

export const VIOLATIONS_PATH = `${ADMIN_PREFIX}/violations`;
export const REPORT_PATH = `${ADMIN_PREFIX}/report`;
export const HEALTH_PATH = `${ADMIN_PREFIX}/health`;

/** What the proxy's control paths read and do; each a dependency the proxy app hands in. */
export interface ProxyAdminDeps {
  level: Level;
  /** The upstream URL without userinfo. */
  upstream: string;
  adminToken: string | undefined;
  /** The contract the dashboard shows (the bundled one when absent). */
  contractPath: string | undefined;
  /** Judges what waits on the judging queue: a listing or a report covers every exchange answered before it. */
  drain(): void;
  violations(): ViolationsSnapshot;
  /** Writes the recorded fixtures and the reports; answers the report files. */
  report(): Promise<string[]>;
}

/** Answers 204 to OPTIONS on a path that allows `allow` (with the CORS preflight headers when it is one). */
function options(req: IncomingMessage, res: ServerResponse, allow: string): void {
  sendEmpty(res, 204, { ...(isPreflight(req) ? preflightHeaders([allow]) : {}), Allow: `${allow}, OPTIONS` });
}

/** The proxy's answer to a control path (see the module comment); each refusal is a problem it throws. */
export function proxyAdmin(deps: ProxyAdminDeps): ControlAnswer {
  return async (req, res, pathname) => {
    const method = req.method ?? 'GET';
    if (pathname === HEALTH_PATH) {
      if (method === 'OPTIONS') return options(req, res, 'GET');
      if (method !== 'GET') throw problem('methodNotAllowed', `${pathname} allows only GET.`, undefined, { Allow: 'GET' });
      return sendJson(res, 200, { status: 'ok', mode: 'proxy', level: deps.level, upstream: deps.upstream });
    }
    if (pathname === VIOLATIONS_PATH || pathname === REPORT_PATH) {
      const allow = pathname === VIOLATIONS_PATH ? 'GET' : 'POST';
      if (method === 'OPTIONS') return options(req, res, allow);
      if (method !== allow) throw problem('methodNotAllowed', `${pathname} allows only ${allow}.`, undefined, { Allow: allow });
      deps.drain();
      if (pathname === VIOLATIONS_PATH) return sendJson(res, 200, deps.violations());
      checkAdminToken(req, deps.adminToken, `POST ${REPORT_PATH}`);
      const files = await deps.report();
      return sendJson(res, 200, { files, total: deps.violations().total });
    }
    if (isDashboardPath(pathname)) {
      if (!serveDashboard(req, res, deps.contractPath !== undefined ? { contractPath: deps.contractPath } : {})) {
        throw problem('notFound', 'The dashboard is not available in this build.');
      }
      return;
    }
    throw problem(
      'notFound',
      `In proxy mode ${ADMIN_PREFIX} has ${[HEALTH_PATH, VIOLATIONS_PATH, REPORT_PATH].join(', ')} and the dashboard (${ADMIN_PREFIX}/); nothing is recorded here, so there is no ${escapeControlsUnicode(pathname).slice(0, 200)}.`,
    );
  };
}
