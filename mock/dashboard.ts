/**
 * The dashboard at `GET /__mock/`: one HTML page (fixture orders with their lots, the recorded
 * transfers and samples refreshing every second, a session selector, a reset button, and the API
 * reference rendered by Swagger UI). Everything is served by the mock itself, no CDN:
 *
 * - `/__mock/` (and `/__mock`): `mock/dashboard/index.html`;
 * - `/__mock/assets/<file>`: a fixed allow-list of files, the dashboard's own (`mock/dashboard/`) and
 *   Swagger UI's (from `swagger-ui-dist`'s `getAbsoluteFSPath()`); any other name is a 404, so no
 *   path reaches the file system from a request;
 * - `/__mock/openapi.json`: the contract the mock serves;
 * - `/__mock/control.json`: the mock-control contract (`mock/control.openapi.yaml`).
 *
 * The page's data comes from the mock's `/__mock` JSON endpoints and the API itself; what it shows of
 * the API (paths, members, listings) from the operations model at `/__mock/model` (`model-view.ts`).
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readContract } from '../contract/document.js';
import { messageOf } from '../util/errors.js';
import { CONTRACT_JSON_PATH, PROJECT_ROOT } from '../contract/paths.js';
import { problem } from './problems.js';
import { sendBody, sendProblem } from './respond.js';

/** The dashboard's own static files (read relative to the project root, so source and dist/ find them). */
export const DASHBOARD_DIR = join(PROJECT_ROOT, 'mock', 'dashboard');

const requireCjs = createRequire(import.meta.url);
/** Swagger UI's folder, as the package reports it. */
export const SWAGGER_UI_DIR = (requireCjs('swagger-ui-dist/absolute-path.js') as () => string)();

interface Asset {
  file: string;
  type: string;
  /** Seconds a browser may keep it; 0 = revalidate every time (the page polls, the files may change). */
  maxAge: number;
}

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['/__mock/assets/app.js', { file: join(DASHBOARD_DIR, 'app.js'), type: 'text/javascript; charset=utf-8', maxAge: 0 }],
  ['/__mock/assets/dashboard.css', { file: join(DASHBOARD_DIR, 'dashboard.css'), type: 'text/css; charset=utf-8', maxAge: 0 }],
  ['/__mock/assets/swagger-ui.css', { file: join(SWAGGER_UI_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8', maxAge: 3600 }],
  [
    '/__mock/assets/swagger-ui-bundle.js',
    { file: join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8', maxAge: 3600 },
  ],
  ['/__mock/assets/favicon-32x32.png', { file: join(SWAGGER_UI_DIR, 'favicon-32x32.png'), type: 'image/png', maxAge: 3600 }],
]);

const PAGE: Asset = { file: join(DASHBOARD_DIR, 'index.html'), type: 'text/html; charset=utf-8', maxAge: 0 };

/** The page may load only what the mock serves; Swagger UI sets inline styles and shows data: images. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'";

/** The URL paths the dashboard answers (besides the allow-listed assets). */
export const DASHBOARD_PATHS = ['/__mock', '/__mock/', '/__mock/openapi.json', '/__mock/control.json'] as const;

/** The mock-control contract: every answer of the mock the API contract does not describe (`/__mock/control.json`). */
export const CONTROL_CONTRACT_PATH = join(PROJECT_ROOT, 'mock', 'control.openapi.yaml');

export interface DashboardOptions {
  /** The contract shown in the API reference (default: the bundled contract). */
  contractPath?: string | undefined;
  /** Where the reason of a failure goes (the answer itself shows no file path and no OS error text). */
  log?: (line: string) => void;
}

const fileCache = new Map<string, Promise<Buffer>>();
/** The contract as JSON, one copy for every reader (a slow reader costs no copy of its own). */
const contractCache = new Map<string, Buffer>();

function load(file: string): Promise<Buffer> {
  let cached = fileCache.get(file);
  if (!cached) {
    cached = readFile(file);
    fileCache.set(file, cached);
    // A failed read is not cached: the next request tries again.
    cached.catch(() => fileCache.delete(file));
  }
  return cached;
}

function contractJson(path: string): Buffer {
  let json = contractCache.get(path);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(readContract(path)));
    contractCache.set(path, json);
  }
  return json;
}

/** True for the URL paths `serveDashboard` answers: route these to it. */
export function isDashboardPath(pathname: string): boolean {
  return (DASHBOARD_PATHS as readonly string[]).includes(pathname) || pathname.startsWith('/__mock/assets/');
}

/**
 * Answers the dashboard's paths; returns false (and answers nothing) for any other path. GET and
 * HEAD only; an unknown asset is a 404 problem.
 */
export function serveDashboard(req: IncomingMessage, res: ServerResponse, options: DashboardOptions = {}): boolean {
  // The path as sent (no `..` resolution, no decoding): it is only compared with the allow-list.
  const pathname = (req.url ?? '/').split(/[?#]/, 1)[0] ?? '/';
  if (!isDashboardPath(pathname)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendProblem(
      res,
      problem('methodNotAllowed', `${pathname} answers GET and HEAD only, not ${req.method ?? '(none)'}.`, undefined, {
        Allow: 'GET, HEAD',
      }),
    );
    return true;
  }
  if (pathname === '/__mock/openapi.json' || pathname === '/__mock/control.json') {
    const path = pathname === '/__mock/control.json' ? CONTROL_CONTRACT_PATH : (options.contractPath ?? CONTRACT_JSON_PATH);
    try {
      send(req, res, 'application/json; charset=utf-8', contractJson(path), 0);
    } catch (error) {
      options.log?.(`dashboard: cannot read the contract ${path}: ${messageOf(error)}`);
      sendProblem(res, problem('internal', 'The dashboard cannot read the contract; the mock log says why.'));
    }
    return true;
  }
  const asset = pathname === '/__mock' || pathname === '/__mock/' ? PAGE : ASSETS.get(pathname);
  if (!asset) {
    const names = [...ASSETS.keys()].map((path) => path.slice('/__mock/assets/'.length)).join(', ');
    sendProblem(
      res,
      problem('notFound', `The dashboard has no asset "${pathname.slice('/__mock/assets/'.length).slice(0, 100)}"; it serves: ${names}.`),
    );
    return true;
  }
  load(asset.file).then(
    (body) => send(req, res, asset.type, body, asset.maxAge),
    (error: unknown) => {
      options.log?.(`dashboard: cannot read ${asset.file}: ${messageOf(error)}`);
      sendProblem(res, problem('internal', `The dashboard cannot read ${pathname}; the mock log says why.`));
    },
  );
  return true;
}

function send(req: IncomingMessage, res: ServerResponse, type: string, body: Buffer | string, maxAge: number): void {
  const headers: Record<string, string> = {
    'Cache-Control': maxAge > 0 ? `public, max-age=${maxAge}` : 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  if (type.startsWith('text/html')) headers['Content-Security-Policy'] = CONTENT_SECURITY_POLICY;
  if (req.method === 'HEAD') {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end();
    return;
  }
  sendBody(res, 200, type, body, headers);
}
