#!/usr/bin/env node
/**
 * The system prerequisites of the tests (the list: scripts/prerequisites.json), checked first by
 * `npm test` and by .ci/run. Plain Node, no dependency: it runs on a fresh clone before `npm ci`.
 *
 *     node scripts/prerequisites.mjs               finds each one; installs what is missing when it can
 *                                                  (root, with apt-get), else stops naming the command
 *     node scripts/prerequisites.mjs --no-install  finds each one; never installs
 *     node scripts/prerequisites.mjs --json        prints where each one is found ({"<package>": path | null})
 *
 * PATH decides what is found: a command is the first executable of that name on PATH (as `command -v`
 * finds it), a Python module the first python3 on PATH that imports it (a pyenv or virtualenv python3
 * ahead of Debian's may lack it); a file is looked for where the tests use it. The tests find their
 * tools through `--json` (support/system-tools.ts), so they use what this check found.
 * Exit 0 when everything is there, 1 when something is missing (with the install command), 2 on a bad option.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIST = join(dirname(fileURLToPath(import.meta.url)), 'prerequisites.json');
const USAGE = 'usage: node scripts/prerequisites.mjs [--no-install | --json]';

/** @returns {{ package: string, why: string, file?: string, command?: string, pythonModule?: string }[]} */
function readList() {
  return JSON.parse(readFileSync(LIST, 'utf8')).packages;
}

function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Every executable named `name` on PATH, in PATH order (the first is what `command -v` answers). */
function everyOnPath(name) {
  const found = [];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, name);
    if (isExecutableFile(path) && !found.includes(path)) found.push(path);
  }
  return found;
}

/** Where one prerequisite is found: `{ path }`, or `{ missing: why not }`. */
function find(item) {
  if (item.file !== undefined) return isExecutableFile(item.file) ? { path: item.file } : { missing: `${item.file} is missing` };
  const candidates = everyOnPath(item.command);
  if (candidates.length === 0) return { missing: `${item.command} is not on PATH` };
  if (item.pythonModule === undefined) return { path: candidates[0] };
  const importing = candidates.find(
    (python) => spawnSync(python, ['-c', `import ${item.pythonModule}`], { stdio: 'ignore', timeout: 20_000 }).status === 0,
  );
  return importing !== undefined
    ? { path: importing }
    : { missing: `no ${item.command} on PATH imports ${item.pythonModule} (tried ${candidates.join(', ')})` };
}

function findAll(list) {
  return list.map((item) => ({ item, ...find(item) }));
}

function installCommand(packages, root) {
  const sudo = root ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}`;
}

function report(missing, root, aptGet, tried) {
  const width = Math.max(...missing.map(({ item }) => item.package.length));
  const packages = missing.map(({ item }) => item.package);
  const lines = [
    `prerequisites: the tests need ${missing.length === 1 ? 'a system package that is' : 'system packages that are'} missing${tried ? ' (still, after apt-get)' : ''}:`,
    ...missing.map(({ item, missing: why }) => `  ${item.package.padEnd(width)}  ${why}: ${item.why}`),
    aptGet
      ? 'Install them, then run npm test again:'
      : 'Install them (Debian/Ubuntu package names; elsewhere the equivalent packages), then run npm test again:',
    `  ${installCommand(packages, root)}`,
  ];
  console.error(lines.join('\n'));
}

function main(args) {
  const option = args[0];
  if (args.length > 1 || (option !== undefined && option !== '--no-install' && option !== '--json')) {
    console.error(`prerequisites: unknown option ${JSON.stringify(args.join(' '))}; ${USAGE}`);
    return 2;
  }
  const list = readList();
  const found = findAll(list);
  if (option === '--json') {
    console.log(JSON.stringify(Object.fromEntries(found.map(({ item, path }) => [item.package, path ?? null]))));
    return 0;
  }
  let missing = found.filter((entry) => entry.path === undefined);
  const root = process.getuid?.() === 0;
  const aptGet = everyOnPath('apt-get')[0];
  let tried = false;
  if (missing.length > 0 && root && aptGet !== undefined && option !== '--no-install') {
    const packages = missing.map(({ item }) => item.package);
    console.log(`prerequisites: installing ${packages.join(', ')} (apt-get, as root)`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync(aptGet, ['update', '-q'], { stdio: 'inherit', env });
    if (update.status === 0) spawnSync(aptGet, ['install', '-y', '-q', ...packages], { stdio: 'inherit', env });
    tried = true;
    missing = findAll(missing.map(({ item }) => item)).filter((entry) => entry.path === undefined);
  }
  if (missing.length > 0) {
    report(missing, root, aptGet !== undefined, tried);
    return 1;
  }
  console.log(`prerequisites: ${list.map((item) => item.package).join(', ')}: found`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
