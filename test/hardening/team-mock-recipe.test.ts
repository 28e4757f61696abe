/**
 * The team mock recipe (docs/team-mock-recipe.md, `goods-team-mock`) run as a user
 * runs it: a real redis-server and two goods-mock replicas, both answering health with the Redis store
 * named, a create through one replica listed through the other; then the user stops it (SIGTERM or
 * SIGINT to the team alone, or Ctrl-C in a terminal: SIGINT to its whole process group) and every
 * process it started is gone when it exits 0, its ports are free and its temporary folder removed.
 * The signals go to the team's pid (or group) only, never to its members: the team must stop them itself.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGoodsClient } from '../../client/index.js';
import { REDIS_INSTALL } from '../../mock/team.js';
import { pidExists, runToExit, startChild, waitForLine, type Child } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { redisAvailable } from '../../support/redis.js';
import { until } from '../../support/wait.js';

const TOKEN = 'team-token';

/** Every process whose parent chain reaches `root` (from /proc), with its command line. */
function descendants(root: number): Map<number, string> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command name (which may hold spaces and parentheses): state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we looked
    }
  }
  const found = new Map<number, string>();
  for (const pid of parents.keys()) {
    for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up)) {
      if (up !== root) continue;
      try {
        found.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim());
      } catch {
        // ended meanwhile
      }
      break;
    }
  }
  return found;
}

/** True when nothing listens on the loopback port (a listener can take it). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface Started {
  child: Child;
  redis: { url: string; pid: number; dir: string };
  replicas: { url: string; pid: number }[];
}

/** `goods-team-mock ...args` in its own process group, once it says it is ready, with what it printed about its members. */
async function startTeam(args: string[]): Promise<Started> {
  const child = startChild('goods-team-mock', projectCli('mock/team-cli', args));
  await waitForLine(child, /^goods-team-mock: ready: /, 90_000);
  const out = child.stdout();
  const redis = /^goods-team-mock: Redis (redis:\/\/\S+) \(pid (\d+)\), its append-only file \(the state\) in (\S+)/m.exec(out);
  assert.ok(redis?.[1] && redis[2] && redis[3], out);
  const replicas = [...out.matchAll(/^goods-team-mock: replica \d+ (http:\/\/\S+) \(pid (\d+)\)$/gm)].map((m) => ({
    url: m[1] ?? '',
    pid: Number(m[2]),
  }));
  return { child, redis: { url: redis[1], pid: Number(redis[2]), dir: redis[3] }, replicas };
}

/** How the user stops the team, and why the team says it stops (with Ctrl-C a member may see the SIGINT and stop first). */
const STOPS: [string, (team: Child) => void, RegExp][] = [
  ['SIGTERM to the team', (team) => team.process.kill('SIGTERM'), /SIGTERM/],
  ['SIGINT to the team', (team) => team.process.kill('SIGINT'), /SIGINT/],
  [
    'Ctrl-C in a terminal (SIGINT to its whole process group)',
    (team) => process.kill(-team.pid, 'SIGINT'),
    /SIGINT|(redis|replica \d) \(pid \d+\) exited with code 0/,
  ],
];

describe('hardening: the team mock recipe (goods-team-mock) starts two replicas on a real Redis and stops everything it started', function () {
  this.timeout(180_000);
  before(function () {
    if (!redisAvailable()) this.skip();
  });

  for (const [how, stop, why] of STOPS) {
    it(`serves one state through both replicas, then stops every process on ${how} and exits 0`, async () => {
      const team = await startTeam(['--ports', '0,0', '--', '--quiet', '--token', TOKEN]);
      try {
        assert.equal(team.replicas.length, 2, team.child.stdout());
        // Both replicas answer health with the Redis store named.
        for (const replica of team.replicas) {
          const health = await fetch(`${replica.url}/__mock/health`);
          assert.equal(health.status, 200);
          assert.deepEqual(await health.json(), {
            status: 'ok',
            store: { kind: 'redis', up: true, detail: `Redis at ${team.redis.url}, key prefix goods-mock` },
            auth: { tokens: 'listed' },
          });
        }
        // A create through one replica is listed through the other.
        const [first, second] = team.replicas.map((replica) => replica.url) as [string, string];
        const lots = (await (await fetch(`${first}/__mock/lots`)).json()) as { id: number }[];
        const created = await createGoodsClient({ baseUrl: first, token: TOKEN }).createLotTransfer({
          fk_lot_id: lots[0]?.id ?? 0,
          source_scancode: 'TEAM-A',
          target_scancode: 'TEAM-B',
          amount: 2,
        });
        assert.ok(created.data, JSON.stringify(created.error));
        assert.deepEqual(await (await fetch(`${second}/__mock/lot-transfers`)).json(), [created.data]);
        // What it started: Redis and the replicas (as printed), and every other process below it.
        const started = descendants(team.child.pid);
        const members = [team.redis.pid, ...team.replicas.map((replica) => replica.pid)];
        for (const pid of members) assert.ok(started.has(pid), `pid ${pid} is a child of the team: ${JSON.stringify([...started])}`);
        assert.match(started.get(team.redis.pid) ?? '', /^redis-server /);
        const ports = [new URL(team.redis.url).port, ...team.replicas.map((replica) => new URL(replica.url).port)].map(Number);

        stop(team.child);
        await until(() => team.child.hasExited(), { what: 'the team exited', timeoutMs: 60_000, intervalMs: 50 });
        assert.deepEqual(await team.child.exited, { code: 0, signal: null }, team.child.output());
        // The team waited for its members: none is left, not even as a zombie.
        assert.deepEqual(members.filter(pidExists), [], `members left running after the team exited:\n${team.child.output()}`);
        // Helpers below the members (e.g. tsx's esbuild when the CLIs run from source) end with their parents.
        await until(() => [...started.keys()].every((pid) => !pidExists(pid)), {
          what: `every process the team started gone: ${JSON.stringify([...started].filter(([pid]) => pidExists(pid)))}`,
          timeoutMs: 15_000,
          intervalMs: 100,
        });
        for (const port of ports) assert.ok(await portFree(port), `port ${port} is free again`);
        assert.ok(!existsSync(team.redis.dir), `the temporary folder ${team.redis.dir} is removed`);
        const stderr = team.child.stderr();
        const stopping = /^goods-team-mock: (.*); stopping the replicas, then Redis$/m.exec(stderr)?.[1] ?? '';
        assert.match(stopping, why, stderr);
        assert.match(stderr, /^goods-team-mock: stopped replica 1 \(pid \d+\), replica 2 \(pid \d+\), redis \(pid \d+\); removed /m);
        assert.doesNotMatch(stderr, /SIGKILL/, 'every member stopped on SIGTERM');
      } finally {
        await team.child.stop();
      }
    });
  }

  it('stops every process when the process that started it ends without passing the signal on (as npx does: SIGTERM reaches only its shell)', async () => {
    const line = projectCli('mock/team-cli', ['--ports', '0,0', '--', '--quiet']);
    const quoted = [line.command, ...line.args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
    // `; true`: the shell stays the team's parent (it does not exec the command), as npm's `sh -c` does.
    const shell = startChild('sh -c goods-team-mock', { command: '/bin/sh', args: ['-c', `${quoted}; true`] });
    try {
      await waitForLine(shell, /^goods-team-mock: ready: /, 90_000);
      const out = shell.stdout();
      const team = Number(/SIGTERM to pid (\d+)\)/.exec(out)?.[1]);
      const members = [...out.matchAll(/^goods-team-mock: (?:Redis|replica \d+) \S+ \(pid (\d+)\)/gm)].map((m) => Number(m[1]));
      assert.ok(team > 0 && members.length === 3, out);
      assert.ok(pidExists(team) && members.every(pidExists));
      shell.process.kill('SIGTERM'); // the shell alone: it ends without passing it on
      assert.deepEqual(await shell.exited, { code: null, signal: 'SIGTERM' });
      const stopped = /^goods-team-mock: stopped replica 1 \(pid \d+\), replica 2 \(pid \d+\), redis \(pid \d+\); removed /m;
      await until(() => !pidExists(team) && !members.some(pidExists) && stopped.test(shell.stderr()), {
        what: `the team (pid ${team}) and its members gone after its parent ended: ${JSON.stringify([team, ...members].filter(pidExists))}`,
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      assert.match(
        shell.stderr(),
        /goods-team-mock: the process that started goods-team-mock \(pid \d+\) ended; stopping the replicas, then Redis/,
      );
    } finally {
      await shell.stop();
    }
  });

  it('stops Redis and the replica that started when another replica cannot start (its port taken), exits 1 naming the port, and leaves nothing', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const run = await runToExit('goods-team-mock', projectCli('mock/team-cli', ['--ports', `0,${port}`, '--', '--quiet']), {
        timeoutMs: 90_000,
      });
      assert.equal(run.code, 1, run.output);
      assert.match(run.stderr, new RegExp(`\\[replica 2\\] goods-mock: cannot start: port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.match(
        run.stderr,
        new RegExp(`replica 2 exited with code 1 before it was ready .*if port ${port} is taken, choose others with --ports`),
      );
      const redisPid = Number(/starting Redis on \S+ \(pid (\d+)\)/.exec(run.stderr)?.[1]);
      const folder = /starting Redis on \S+ \(pid \d+\), folder (\S+)/.exec(run.stderr)?.[1] ?? '';
      const replicaPid = Number(/replica 1 \(pid (\d+), port 0\)/.exec(run.stderr)?.[1]);
      assert.ok(redisPid > 0 && replicaPid > 0 && folder !== '', run.stderr);
      assert.deepEqual([redisPid, replicaPid].filter(pidExists), [], 'Redis and replica 1 were stopped');
      assert.ok(!existsSync(folder), 'the temporary folder is removed');
    } finally {
      taken.close();
    }
  });

  it('refuses a wrong option with exit 2 and one line naming the fix, starting nothing', async () => {
    const run = await runToExit('goods-team-mock', projectCli('mock/team-cli', ['--', '--port', '4020']));
    assert.equal(run.code, 2);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('npm warn'));
    assert.deepEqual(lines, [
      'goods-team-mock: after --, --port is set by goods-team-mock: give the replicas their ports with --ports before --',
    ]);
    assert.equal(run.stdout, '');
  });
});

describe('goods-team-mock without redis-server', function () {
  this.timeout(60_000);

  it('on PATH: one line naming the install command, exit 1, nothing started and nothing else said', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-redis-path-'));
    try {
      // The CLI runs by its absolute node path: PATH holds nothing, so no redis-server is found there.
      const run = await runToExit('goods-team-mock', projectCli('mock/team-cli', ['--', '--quiet']), {
        env: { ...process.env, PATH: empty },
        timeoutMs: 30_000,
      });
      assert.equal(run.code, 1, run.output);
      assert.equal(run.stdout, '');
      assert.deepEqual(run.stderr.trim().split('\n'), [
        `goods-team-mock: redis-server (looked up in PATH) was not found: goods-team-mock runs one Redis for its replicas; install it with ${REDIS_INSTALL}, or pass --redis-server PATH`,
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('at --redis-server PATH: the same line naming that path', async () => {
    const run = await runToExit('goods-team-mock', projectCli('mock/team-cli', ['--redis-server', '/nonexistent/redis-server']), {
      timeoutMs: 30_000,
    });
    assert.equal(run.code, 1, run.output);
    assert.deepEqual(run.stderr.trim().split('\n'), [
      `goods-team-mock: /nonexistent/redis-server was not found: goods-team-mock runs one Redis for its replicas; install it with ${REDIS_INSTALL}, or pass --redis-server PATH`,
    ]);
  });
});
