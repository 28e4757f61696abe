/**
 * How tests and the bench start a project CLI (`mock/cli`, `conformance/cli`) in a child process.
 * Compiled from `dist/` when the caller itself runs compiled (`npm run bench`), or when `npm test` has
 * just built `dist/` (it sets `GOODS_CLI_FROM_DIST=1` for its mocha run); otherwise from the TypeScript
 * source through tsx, so a test file run on its own always runs the current source. Compiled, a CLI
 * starts in about 0.3 s on 2 cores; through tsx in 0.6-2 s, and the tests start about 50 of them.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';
import type { CommandLine } from './processes.js';

/** True when this code runs from TypeScript source (tsx, e.g. under mocha), false when compiled. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The environment variable with which `npm test` says `dist/` was built from the current sources. */
export const DIST_IS_CURRENT = 'GOODS_CLI_FROM_DIST';

/** True when project CLIs start compiled from `dist/`. */
export function cliFromDist(env: NodeJS.ProcessEnv = process.env): boolean {
  return !FROM_SOURCE || env[DIST_IS_CURRENT] === '1';
}

/** tsx's loader by its file URL: a child started in another folder (`cwd`) finds it too. */
export function tsxLoader(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}

/** `node [nodeOptions] <the CLI> ...args`, compiled or through tsx (see above). */
export function projectCli(
  name: 'mock/cli' | 'mock/team-cli' | 'conformance/cli',
  args: readonly string[] = [],
  nodeOptions: readonly string[] = [],
): CommandLine {
  const compiled = cliFromDist();
  return {
    command: process.execPath,
    args: [
      ...nodeOptions,
      ...(compiled ? [] : ['--import', tsxLoader()]),
      compiled ? join(PROJECT_ROOT, 'dist', `${name}.js`) : join(PROJECT_ROOT, `${name}.ts`),
      ...args,
    ],
  };
}
