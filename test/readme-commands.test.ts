/**
 * Every shell command shown in the README and in docs/*.md runs as written (in a fresh folder, so
 * relative paths such as `.state/mock.jsonl` start from nothing; `docs/` is linked in for its example
 * contracts): each one is either run here or listed in SKIPPED with the reason, so a new command in
 * the documentation needs a decision. Servers get a free port (`--port N` replaced, or PORT set) and must answer; one-shot commands must exit 0. A
 * command of a block that addresses the mock's default URL (http://127.0.0.1:4010, e.g. the quick
 * start's `curl` lines and the suite) runs against the server started earlier in that block, which
 * stays up until the block ends; a `curl` must say `--fail-with-body`, so that a refused request fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { closedPort } from '../support/loopback.js';
import { startChild, waitForLine } from '../support/processes.js';
import { documentationPages, shellCommands as readmeCommands, type ShellCommand } from './markdown.js';

/** Commands not run here, with the reason. */
const SKIPPED: Record<string, string> = {
  'npm ci': 'installs every dependency (minutes); CI runs it on every fresh clone',
  'npm test': 'the whole test suite, this test included',
  'npm run test:quick': 'lint, typecheck and the quick test files (this one left out): npm test runs all of them',
  'npm run test:coverage': 'the counted test files under c8 (nearly all), this test included: npm test runs it',
  'npx c8 mocha --require ./support/coverage-in-process.ts mock/store/*.test.ts':
    'a coverage run of some test files: npm test runs the coverage of every counted test file',
};
/** Kinds of commands not run here as written, with the reason and the test that covers them. */
const SKIPPED_KINDS: { pattern: RegExp; reason: string }[] = [
  { pattern: /https:\/\/staging\.example/, reason: 'contacts a server outside this machine (a placeholder URL)' },
  {
    pattern: /^(npm pkg set type=module|npx tsc --init)$/,
    reason:
      "sets up a user's own project for the client: test/package/install.test.ts runs them in a project made with npm init -y and compiles the example of docs/client.md there",
  },
  {
    pattern: /^npm install -D /,
    reason: "installs the package into a user's own project: test/package/install.test.ts installs the packed tarball",
  },
  {
    pattern: /^(CONFORMANCE_TOKEN=\S+ )?npx goods-(mock|conformance)\b(?!.*--store)/,
    reason: "runs in a user's project with the package installed: test/package/install.test.ts runs these bins from it",
  },
  {
    pattern: /^npx goods-team-mock\b/,
    reason:
      'starts Redis and replicas on fixed ports until it is stopped: test/hardening/team-mock-recipe.test.ts runs it on free ports and stops it (SIGTERM, SIGINT, Ctrl-C), test/package/install.test.ts with npx from an installed package',
  },
  { pattern: /^curl .*\/__mock\/(violations|report)/, reason: 'asks a running proxy: test/proxy/*.test.ts and mock/proxy/*.test.ts do' },
  {
    pattern: /^CONFORMANCE_TOKEN=<token> sh -c /,
    reason:
      "runs a failing case's curl from a report of a run against a faulty server: conformance/reproduce.test.ts runs every one as printed",
  },
  {
    pattern: /^curl .*(Prefer: fault=|\/__mock\/faults)/,
    reason:
      'asks for an injected fault (a 5xx on purpose) or sets a fault rule: mock/fault-stage.test.ts, mock/fault-admin.test.ts and test/browser/faults.test.ts send each',
  },
  {
    pattern: /^node dist\/mock\/team-cli\.js /,
    reason: 'starts Redis and replicas on fixed ports: test/hardening/team-mock-recipe.test.ts runs the same bin with free ports',
  },
  {
    pattern: /(^npm run conformance -- |^npx goods-conformance )compat OLD NEW /,
    reason:
      'OLD and NEW stand for two contract files: conformance/compat/cli.test.ts and test/package/install.test.ts run compat on real pairs',
  },
];
const skippedKind = (command: string): string | undefined => SKIPPED_KINDS.find((kind) => kind.pattern.test(command))?.reason;

/** The mock's default URL: commands addressing it run against the server started earlier in their block. */
const MOCK_URL = 'http://127.0.0.1:4010';

/** A `curl` that runs here: it fails on an error status (exit 22) and shows the answer's body. */
const CURL = /^curl --fail-with-body /;

interface Outcome {
  code: number | null;
  output: string;
  /** The answer of GET /__mock/health once the command printed its URL (servers only). */
  health?: number;
  /** A server kept up (`keep`): stops it. */
  stop?: () => Promise<void>;
}

/**
 * Runs `command` in `cwd` with sh; a server (it prints "listening on URL") is asked for its health,
 * then stopped, or with `keep` left up (the outcome's `stop` ends it).
 */
async function run(command: string, cwd: string, env: NodeJS.ProcessEnv, keep = false): Promise<Outcome> {
  const child = startChild(command, { command: 'sh', args: ['-c', command] }, { cwd, env });
  let kept = false;
  try {
    // a server prints its URL; a one-shot command exits (then the wait for the line rejects, and that is fine)
    const url = await waitForLine(child, /listening on (http:\/\/\S+)/, 60_000).catch(() => undefined);
    if (url === undefined) {
      if (!child.hasExited()) {
        await child.kill();
        return { code: null, output: `${child.output()}\n(test: no exit or answer within 60 s)` };
      }
      return { code: (await child.closed).code, output: child.output() };
    }
    try {
      const health = (await fetch(`${url}/__mock/health`)).status;
      kept = keep;
      return { code: null, output: child.output(), health, ...(keep ? { stop: () => child.stop() } : {}) };
    } catch (error) {
      return { code: null, output: `${child.output()}\n(test: health check failed: ${String(error)})` };
    }
  } finally {
    if (!kept) await child.stop();
  }
}

describe('README and docs/: every shell command runs as written', function () {
  this.timeout(240_000);
  const pages = documentationPages();
  const commandsOf = new Map(pages.map((page) => [page, readmeCommands(readFileSync(join(PROJECT_ROOT, page), 'utf8'))]));
  let folder: string;

  before(async () => {
    // A fresh folder that sees the project (package.json, scripts, the build, the dependencies) but none of its state.
    folder = await mkdtemp(join(tmpdir(), 'goods-readme-'));
    for (const entry of ['package.json', 'scripts', 'dist', 'node_modules', 'docs'])
      await symlink(join(PROJECT_ROOT, entry), join(folder, entry));
  });
  after(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('finds the commands of the README (the quick start) and of docs/', () => {
    const readme = (commandsOf.get('README.md') ?? []).map((c) => c.command);
    // The quick start: the mock with --token, one curl per operation, the suite at strict against it.
    assert.ok(readme.includes('npm start -- --token dev-token'), readme.join('\n'));
    assert.equal(readme.filter((c) => CURL.test(c) && c.includes(MOCK_URL)).length, 3, readme.join('\n'));
    assert.ok(
      readme.some((c) => c.startsWith(`npm run conformance -- --base-url ${MOCK_URL} --token dev-token `) && c.includes('--level strict')),
      readme.join('\n'),
    );
    const mock = (commandsOf.get('docs/mock.md') ?? []).map((c) => c.command);
    assert.ok(mock.includes('npm start') && mock.some((c) => c.includes('--state-file .state/mock.jsonl')), mock.join('\n'));
  });

  for (const page of pages) {
    const commands = commandsOf.get(page) ?? [];
    // A page whose commands are all skipped for a stated reason has nothing to run here.
    if (!commands.some(({ command }) => SKIPPED[command] === undefined && skippedKind(command) === undefined)) continue;
    it(`${page}: runs each command not skipped for a stated reason: servers answer, the others exit 0`, async () => {
      const ran = await runAll(commands, folder);
      assert.ok(ran.length > 0, `ran: ${ran.join(' | ')}`);
      if (page === 'README.md') {
        assert.ok(ran.filter((c) => CURL.test(c)).length === 3, `the quick start's curl lines ran: ${ran.join(' | ')}`);
        assert.ok(
          ran.some((c) => c.startsWith('npm run conformance -- --base-url')),
          `the quick start ran: ${ran.join(' | ')}`,
        );
      }
    });
  }
});

/**
 * Runs the commands of one page in `folder` (skipping those SKIPPED for a reason) and answers those it
 * ran; a command it has no decision for fails the test.
 */
async function runAll(commands: ShellCommand[], folder: string): Promise<string[]> {
  const ran: string[] = [];
  /** The server of the current block kept up for a later command addressing MOCK_URL. */
  let serving: { block: number; port: string; stop: () => Promise<void> } | undefined;
  const stopServing = async (): Promise<void> => {
    await serving?.stop();
    serving = undefined;
  };
  try {
    for (const [index, { command: written, block }] of commands.entries()) {
      if (serving && serving.block !== block) await stopServing();
      if (SKIPPED[written] !== undefined || skippedKind(written) !== undefined) continue;
      assert.ok(
        /^npm (start|run)( |$)/.test(written) || (CURL.test(written) && written.includes(MOCK_URL)),
        `no decision for the documented command "${written}": run it here (npm start, npm run, or curl --fail-with-body to ${MOCK_URL}) or add it to SKIPPED`,
      );
      const server = /^npm start(?!.*--help)/.test(written);
      const port = String(await closedPort());
      let command = written.replace(/--port \d+/, `--port ${port}`);
      if (!server && written.includes(MOCK_URL)) {
        assert.ok(serving, `"${written}" addresses ${MOCK_URL}: a server must be started earlier in its block`);
        command = command.replaceAll(MOCK_URL, `http://127.0.0.1:${serving.port}`);
      }
      // A server stays up while a later command of its block addresses it.
      const keep = server && commands.slice(index + 1).some((c) => c.block === block && c.command.includes(MOCK_URL));
      if (keep) await stopServing();
      const outcome = await run(command, folder, { ...process.env, PORT: port }, keep);
      if (server) assert.equal(outcome.health, 200, `${written}: ${outcome.output}`);
      else assert.equal(outcome.code, 0, `${written}: ${outcome.output}`);
      if (outcome.stop) serving = { block, port, stop: outcome.stop };
      ran.push(written);
    }
  } finally {
    await stopServing();
  }
  return ran;
}
