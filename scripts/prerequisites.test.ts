/**
 * scripts/prerequisites.mjs, the system prerequisites `npm test` and .ci/run check first: on a clean
 * clone of the repository in a temporary folder (what a commit of the current files would hold, with
 * no node_modules), `npm test` and .ci/run stop at once, naming the install command, when a
 * prerequisite is missing. Missing is simulated by PATH: a folder of links to every command on this
 * machine's PATH but the hidden ones (redis-server, python3), with a stand-in apt-get that only
 * records what it was asked (so a run as root tries to install and finds them still missing).
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

interface Prerequisite {
  package: string;
  why: string;
  file?: string;
  command?: string;
  pythonModule?: string;
}

const LIST = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'scripts', 'prerequisites.json'), 'utf8')) as { packages: Prerequisite[] })
  .packages;

/** The commands hidden from PATH, and the packages the check must then name, in the list's order. */
const HIDDEN = ['redis-server', 'python3'];
const HIDDEN_PACKAGES = LIST.filter((item) => item.command !== undefined && HIDDEN.includes(item.command)).map((item) => item.package);

const ROOT = process.getuid?.() === 0;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
}

function git(args: string[], cwd = PROJECT_ROOT): string {
  const result = run('git', args, cwd);
  assert.equal(result.status, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/**
 * A clean clone of the repository in `dir`: git clone, the HEAD commit checked out, then the tracked
 * files changed in the working tree and the untracked ones git does not ignore put on top (what a
 * commit of the current files would hold). No node_modules, no dist/.
 */
function cleanClone(dir: string): void {
  const head = git(['rev-parse', 'HEAD']).trim();
  git(['clone', '--quiet', '--no-checkout', PROJECT_ROOT, dir], tmpdir());
  git(['checkout', '--quiet', '--detach', head], dir);
  const changed = git(['diff', '--name-only', '-z', 'HEAD']).split('\0');
  const untracked = git(['ls-files', '--others', '--exclude-standard', '-z']).split('\0');
  for (const path of [...changed, ...untracked].filter((name) => name !== '')) {
    const source = join(PROJECT_ROOT, path);
    const target = join(dir, path);
    if (existsSync(source)) {
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
    } else rmSync(target, { force: true });
  }
}

/** A folder of links to every command on PATH but the hidden ones, and a stand-in apt-get that records its arguments. */
function pathWithout(hidden: readonly string[], dir: string, aptLog: string): string {
  mkdirSync(dir);
  for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
    if (folder === '' || !existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (hidden.includes(name) || name === 'apt-get' || existsSync(join(dir, name))) continue;
      symlinkSync(join(folder, name), join(dir, name));
    }
  }
  writeFileSync(join(dir, 'apt-get'), `#!/bin/sh\necho "apt-get $*" >> '${aptLog}'\n`);
  chmodSync(join(dir, 'apt-get'), 0o755);
  return dir;
}

describe('scripts/prerequisites.mjs: the system prerequisites of npm test, on a clean clone', function () {
  this.timeout(180_000);
  let work = '';
  let clone = '';
  let aptLog = '';
  let env: NodeJS.ProcessEnv = {};

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'prerequisites-'));
    clone = join(work, 'clone');
    cleanClone(clone);
    aptLog = join(work, 'apt-get.log');
    env = { ...process.env, PATH: pathWithout(HIDDEN, join(work, 'bin'), aptLog) };
  });
  beforeEach(() => rmSync(aptLog, { force: true }));
  after(() => rmSync(work, { recursive: true, force: true }));

  /** The message the check prints when redis-server and python3 are hidden. */
  function assertNamesTheMissing(output: string): void {
    const sudo = ROOT ? '' : 'sudo ';
    assert.match(output, /prerequisites: the tests need system packages that are missing/);
    assert.match(output, /redis-server +redis-server is not on PATH: the shared-store tests start a real Redis/);
    assert.match(output, /python3-junitparser +python3 is not on PATH/);
    assert.ok(
      output.includes(`  ${sudo}apt-get update && ${sudo}apt-get install -y ${HIDDEN_PACKAGES.join(' ')}\n`),
      `the exact install command, in:\n${output}`,
    );
    // Only the hidden ones are named: the others were found.
    for (const item of LIST.filter((entry) => !HIDDEN_PACKAGES.includes(entry.package)))
      assert.doesNotMatch(output, new RegExp(`^  ${item.package} `, 'm'));
  }

  /** As root, the check asked (the stand-in) apt-get to install the missing packages, then found them still missing. */
  function assertInstallTried(output: string): void {
    const asked = existsSync(aptLog) ? readFileSync(aptLog, 'utf8') : '';
    if (ROOT) {
      assert.equal(asked, `apt-get update -q\napt-get install -y -q ${HIDDEN_PACKAGES.join(' ')}\n`);
      assert.match(output, /prerequisites: installing redis-server, python3-junitparser \(apt-get, as root\)/);
      assert.match(output, /missing \(still, after apt-get\)/);
    } else assert.equal(asked, '', 'not root: apt-get is never run, the command is named');
  }

  it('npm test stops at once, before any other step, naming the missing packages and the exact install command', () => {
    assert.ok(!existsSync(join(clone, 'node_modules')), 'the clone has no node_modules');
    const result = run('npm', ['test'], clone, env);
    const output = `${result.stdout}${result.stderr}`;
    assert.notEqual(result.status, 0, output);
    assertNamesTheMissing(output);
    assertInstallTried(output);
    assert.doesNotMatch(output, /> goods-contract-harness@[^ ]+ lint\n/, 'no step after the check ran');
  });

  it('.ci/run runs the same check (from the list, not a list of its own) and stops there, before npm ci', () => {
    const script = readFileSync(join(clone, '.ci', 'run'), 'utf8');
    assert.match(script, /^node scripts\/prerequisites\.mjs$/m);
    assert.doesNotMatch(
      script,
      /^[^#\n]*(apt-get|chromium|redis|junitparser)/m,
      'no command of .ci/run names a package or runs apt-get itself',
    );
    const result = run('bash', ['.ci/run'], clone, env);
    const output = `${result.stdout}${result.stderr}`;
    assert.notEqual(result.status, 0, output);
    assertNamesTheMissing(output);
    assertInstallTried(output);
    assert.doesNotMatch(output, /added \d+ packages|npm ci/, 'npm ci did not run');
  });

  it('with nothing hidden, finds every package of the list, and --json says where (PATH decides)', () => {
    const result = run(process.execPath, [join(clone, 'scripts', 'prerequisites.mjs'), '--no-install'], clone);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `prerequisites: ${LIST.map((item) => item.package).join(', ')}: found\n`);
    const where = run(process.execPath, [join(clone, 'scripts', 'prerequisites.mjs'), '--json'], clone, env);
    assert.equal(where.status, 0, where.stderr);
    const found = JSON.parse(where.stdout) as Record<string, string | null>;
    assert.deepEqual(
      Object.keys(found),
      LIST.map((item) => item.package),
    );
    for (const item of LIST) {
      const hidden = HIDDEN_PACKAGES.includes(item.package);
      assert.equal(found[item.package] === null, hidden, `${item.package}: ${found[item.package]}`);
      if (!hidden && item.command !== undefined)
        assert.equal(found[item.package], join(env['PATH'] ?? '', item.command), 'found through PATH');
    }
  });

  it('a bad option is refused with the usage (exit 2)', () => {
    const result = run(process.execPath, [join(clone, 'scripts', 'prerequisites.mjs'), '--install-everything'], clone);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      /unknown option "--install-everything"; usage: node scripts\/prerequisites\.mjs \[--no-install \| --json\]/,
    );
  });

  it("the README's Development section and docs/development.md name every package of the list", () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Development\n');
    const end = readme.indexOf('\n## ', start + 1);
    const development = readme.slice(start, end === -1 ? undefined : end);
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'development.md'), 'utf8');
    for (const item of LIST) {
      assert.ok(development.includes(`\`${item.package}\``), `README.md's Development section names \`${item.package}\``);
      assert.ok(page.includes(`\`${item.package}\``), `docs/development.md names \`${item.package}\``);
    }
  });
});
