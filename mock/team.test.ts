import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { closedPort } from '../support/loopback.js';
import { pidExists } from '../support/processes.js';
import { redisAvailable } from '../support/redis.js';
import { PORT_TRIES, startTeam, TeamStartError } from './team.js';

/** A loopback port something listens on (Redis cannot bind it). */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  const port = await closedPort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server };
}

function lines(): { out: string[]; err: string[]; io: { out: (l: string) => void; err: (l: string) => void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

describe('mock/team: Redis on a port the team picks', function () {
  this.timeout(60_000);
  let taken: { port: number; server: Server } | undefined;
  before(async function () {
    if (!redisAvailable()) this.skip();
    taken = await takenPort();
  });
  after(() => taken?.server.close());

  it('a picked port taken before Redis listens on it: Redis is started again on another one, saying so', async () => {
    const free = await closedPort();
    const picks = [taken?.port ?? 0, free];
    const { err, io } = lines();
    const team = await startTeam({ ports: [], redisServer: 'redis-server', mockArgs: [] }, io, {
      pickPort: () => Promise.resolve(picks.shift() ?? 0),
    });
    try {
      assert.equal(team.redis.url, `redis://127.0.0.1:${free}/0`);
      assert.ok(pidExists(team.redis.pid));
      assert.ok(
        err.includes(`goods-team-mock: port ${taken?.port} was taken before Redis could listen on it; trying another free port`),
        err.join('\n'),
      );
      assert.equal(err.filter((l) => l.startsWith('goods-team-mock: starting Redis on ')).length, 2, err.join('\n'));
    } finally {
      assert.equal(await team.stop('test over'), 0);
    }
    assert.equal(pidExists(team.redis.pid), false);
    assert.match(err.at(-1) ?? '', new RegExp(`^goods-team-mock: stopped redis \\(pid ${team.redis.pid}\\); removed `));
  });

  it(`every pick taken: ${PORT_TRIES} tries, then a start error naming the last port; nothing left running`, async () => {
    const { err, io } = lines();
    let picked = 0;
    const pickPort = () => {
      picked += 1;
      return Promise.resolve(taken?.port ?? 0);
    };
    const started = startTeam({ ports: [], redisServer: 'redis-server', mockArgs: [] }, io, { pickPort });
    await assert.rejects(started, (error: unknown) => {
      assert.ok(error instanceof TeamStartError);
      assert.match(error.message, new RegExp(`^Redis \\(redis-server\\) did not start: .*Is port ${taken?.port} free\\? `));
      return true;
    });
    assert.equal(picked, PORT_TRIES);
    const pids = err.flatMap((l) => /starting Redis on \S+ \(pid (\d+)\)/.exec(l)?.[1] ?? []).map(Number);
    assert.equal(pids.length, PORT_TRIES, err.join('\n'));
    for (const pid of pids) assert.equal(pidExists(pid), false, `redis pid ${pid} ended`);
  });

  it('a port the configuration names is tried once: taken, the start fails naming it', async () => {
    const { io } = lines();
    let picked = 0;
    const pickPort = () => {
      picked += 1;
      return closedPort();
    };
    await assert.rejects(
      startTeam({ ports: [], redisPort: taken?.port ?? 0, redisServer: 'redis-server', mockArgs: [] }, io, { pickPort }),
      new RegExp(`Is port ${taken?.port} free\\? Pass --redis-server PATH`),
    );
    assert.equal(picked, 0);
  });
});
