/**
 * Every shell command shown in the README runs as written (in a fresh folder, so relative paths such
 * as `.state/mock.jsonl` start from nothing): each one is either run here or listed in SKIPPED with
 * the reason, so a new command in the README needs a decision. Servers get a free port (`--port N`
 * replaced, or PORT set) and must answer; one-shot commands must exit 0.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import getPort from 'get-port';
import { startChild, waitForLine } from '../support/processes.js';

/** Commands not run here, with the reason. */
const SKIPPED: Record<string, string> = {
  'npm ci': 'installs every dependency (minutes); CI runs it on every fresh clone',
  'npm test': 'the whole test suite, this test included',
};
/** Kinds of commands not run here as written, with the reason and the test that covers them. */
const SKIPPED_KINDS: { pattern: RegExp; reason: string }[] = [
  { pattern: /https:\/\/staging\.example/, reason: 'contacts a server outside this machine (a placeholder URL)' },
  {
    pattern: /^npm install -D /,
    reason: "installs the package into a user's own project: test/package/install.test.ts installs the packed tarball",
  },
  {
    pattern: /^(CONFORMANCE_TOKEN=\S+ )?npx goods-(mock|conformance)\b(?!.*--store)/,
    reason: "runs in a user's project with the package installed: test/package/install.test.ts runs these bins from it",
  },
  {
    pattern: /^redis-server |--store redis:/,
    reason:
      'starts Redis on the fixed port 6379 and replicas in the background: test/hardening/shared-store.test.ts runs the same with free ports',
  },
  { pattern: /^curl .*\/__mock\/(violations|report)/, reason: 'asks a running proxy: test/proxy/*.test.ts and mock/proxy/*.test.ts do' },
];
const skippedKind = (command: string): string | undefined => SKIPPED_KINDS.find((kind) => kind.pattern.test(command))?.reason;

/** The README's shell commands: fenced sh blocks, continuation lines joined, comments and `&&` split. */
function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    const joined = (block[1] ?? '').replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command === '' || command.startsWith('#')) continue;
      for (const part of command.split(/\s+&&\s+/)) commands.push(part.trim());
    }
  }
  return commands;
}

interface Outcome {
  code: number | null;
  output: string;
  /** The answer of GET /__mock/health once the command printed its URL (servers only). */
  health?: number;
}

/** Runs `command` in `cwd` with sh; a server (it prints "listening on URL") is asked for its health, then stopped. */
async function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const child = startChild(command, { command: 'sh', args: ['-c', command] }, { cwd, env });
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
      return { code: null, output: child.output(), health };
    } catch (error) {
      return { code: null, output: `${child.output()}\n(test: health check failed: ${String(error)})` };
    }
  } finally {
    await child.stop();
  }
}

describe('README: every shell command runs as written', function () {
  this.timeout(240_000);
  let folder: string;
  let commands: string[];

  before(async () => {
    commands = readmeCommands(await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    // A fresh folder that sees the project (package.json, scripts, the build, the dependencies) but none of its state.
    folder = await mkdtemp(join(tmpdir(), 'goods-readme-'));
    for (const entry of ['package.json', 'scripts', 'dist', 'node_modules']) await symlink(join(PROJECT_ROOT, entry), join(folder, entry));
  });
  after(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('finds the commands of the README', () => {
    assert.ok(commands.includes('npm start'), commands.join('\n'));
    assert.ok(commands.some((c) => c.includes('--state-file .state/mock.jsonl')));
  });

  it('runs each one that is not skipped for a stated reason: servers answer, the others exit 0', async () => {
    const ran: string[] = [];
    for (const written of commands) {
      if (SKIPPED[written] !== undefined || skippedKind(written) !== undefined) continue;
      assert.match(written, /^npm (start|run)( |$)/, `no decision for the README command "${written}": run it here or add it to SKIPPED`);
      const port = String(await getPort({ host: '127.0.0.1' }));
      const command = written.replace(/--port \d+/, `--port ${port}`);
      const outcome = await run(command, folder, { ...process.env, PORT: port });
      const server = /^npm start(?!.*--help)/.test(written);
      if (server) assert.equal(outcome.health, 200, `${written}: ${outcome.output}`);
      else assert.equal(outcome.code, 0, `${written}: ${outcome.output}`);
      ran.push(written);
    }
    assert.ok(ran.length >= 3, `ran: ${ran.join(' | ')}`);
  });
});
