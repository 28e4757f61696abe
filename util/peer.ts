/**
 * Optional peer dependencies: packages that only some commands need (the conformance suite's runner
 * (mocha); Prism, for contract operations without a stateful handler), declared in
 * `peerDependencies` as optional so that installing the mock and the client does not pull them
 * (docs/package.md). Before such a command loads one, it asks `requirePeers`, which throws one error
 * naming every missing package and the one command that installs them, with the versions this package
 * is developed and tested with (its `devDependencies`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeOf } from './errors.js';

/**
 * Some optional peer dependencies are not installed: `reason` says which and who needs them, `install`
 * is the command that installs them; the message is both.
 */
export class MissingPeersError extends Error {
  override name = 'MissingPeersError';
  constructor(
    readonly missing: readonly string[],
    readonly reason: string,
    readonly install: string,
  ) {
    super(`${reason}: ${install}`);
  }
}

export interface Manifest {
  name?: string;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The package.json of the package this file belongs to (the nearest one above it). */
function ownManifest(): Manifest {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    const parent = dirname(dir);
    if (parent === dir) return {};
    dir = parent;
  }
}

const require = createRequire(import.meta.url);

/** Whether a package resolves from this package (its own node_modules, or the project's above it). */
function resolves(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch (error) {
    // Found, but it has no CommonJS entry (an ES module only package): installed all the same.
    return codeOf(error) === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
  }
}

/** The named packages that do not resolve from this package. */
export function missingPeers(names: readonly string[]): string[] {
  return names.filter((name) => !resolves(name));
}

/** `npm install -D a@1.2.3 b@4.5.6`: the versions this package is tested with, else its peer range (quoted for the shell). */
export function installCommand(names: readonly string[], manifest: Manifest = ownManifest()): string {
  const specs = names.map((name) => {
    const version = manifest.devDependencies?.[name] ?? manifest.peerDependencies?.[name];
    return version === undefined ? name : `${name}@${/^[\w.-]+$/.test(version) ? version : `'${version}'`}`;
  });
  return `npm install -D ${specs.join(' ')}`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/**
 * Throws a MissingPeersError unless every named package resolves. `who` says what needs them, as the
 * start of a sentence: `goods-conformance (the conformance suite)`.
 */
export function requirePeers(names: readonly string[], who: string): void {
  const missing = missingPeers(names);
  if (missing.length === 0) return;
  const name = ownManifest().name ?? 'this package';
  const what = missing.length === 1 ? 'an optional peer dependency' : 'optional peer dependencies';
  throw new MissingPeersError(
    missing,
    `${who} needs ${listed(missing)}, ${what} of ${name} not installed with it`,
    installCommand(missing),
  );
}
