/**
 * Serves the browser test page (`test/browser/client-page/`) with the package's typed client, on its
 * own origin: the client's TypeScript is transpiled to browser ESM on request (TypeScript's
 * transpileModule; the client has only type imports besides openapi-fetch), and openapi-fetch's
 * own ESM build is mapped by the page's import map. Only these files are served.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { listen, type RunningServer } from './http.js';

const PAGE_DIR = join(PROJECT_ROOT, 'test', 'browser', 'client-page');
const OPENAPI_FETCH_ESM = createRequire(import.meta.url)
  .resolve('openapi-fetch')
  .replace(/index\.cjs$/, 'index.mjs');

async function transpileClient(name: string): Promise<string> {
  const source = await readFile(join(PROJECT_ROOT, 'client', `${name}.ts`), 'utf8');
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    fileName: `${name}.ts`,
  }).outputText;
}

const FILES: ReadonlyMap<string, { type: string; load: () => Promise<string | Buffer> }> = new Map([
  ['/', { type: 'text/html; charset=utf-8', load: () => readFile(join(PAGE_DIR, 'index.html')) }],
  ['/app.js', { type: 'text/javascript; charset=utf-8', load: () => readFile(join(PAGE_DIR, 'app.js')) }],
  ['/client/index.js', { type: 'text/javascript; charset=utf-8', load: () => transpileClient('index') }],
  ['/client/goods-client.js', { type: 'text/javascript; charset=utf-8', load: () => transpileClient('goods-client') }],
  ['/vendor/openapi-fetch.mjs', { type: 'text/javascript; charset=utf-8', load: () => readFile(OPENAPI_FETCH_ESM) }],
]);

/** Starts the page server at a free port of 127.0.0.1 (another origin than any other server). */
export function startClientPageServer(): Promise<RunningServer> {
  return listen((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const file = FILES.get(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not served: ${path}`);
      return;
    }
    file.load().then(
      (body) => {
        res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' });
        res.end(body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  });
}
