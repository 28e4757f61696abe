/**
 * A shared team mock on this machine (`goods-team-mock`): one Redis and several goods-mock replicas
 * that share it, started together and stopped together. Every member is a child of this process,
 * in the foreground (no `--daemonize`, no shell in between): stopping sends SIGTERM to the replicas,
 * then to Redis, waits for each to exit (SIGKILL after a grace period), and removes Redis's folder
 * when the team made it, so nothing it started is left running. A member that ends by itself stops
 * the others. Their output is passed on, each line prefixed with the member's name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { messageOf } from '../util/errors.js';
import type { TeamConfig } from './team-args.js';

/** Where the team's lines go (the CLI: stdout and stderr). */
export interface TeamIo {
  out(line: string): void;
  err(line: string): void;
}

export interface TeamOptions {
  /** How long a member may take to stop after SIGTERM before it gets SIGKILL (default 10 s). */
  graceMs?: number;
  /** How long Redis and each replica may take to be ready (default 60 s). */
  readyTimeoutMs?: number;
  /** Aborted (Ctrl-C during the start): what started is stopped and the start rejects. */
  signal?: AbortSignal;
  /** Picks the port for Redis when the configuration names none (default: a free loopback port). */
  pickPort?: () => Promise<number>;
}

/** How many ports the team tries for Redis when one it picked is taken before Redis listens on it. */
export const PORT_TRIES = 3;

export interface TeamMember {
  name: string;
  pid: number;
}

export interface Team {
  redis: TeamMember & { url: string; dir: string };
  replicas: (TeamMember & { url: string })[];
  /** Resolves with the exit status once the team has stopped, whether asked to or because a member ended. */
  ended: Promise<number>;
  /** Stops the replicas, then Redis, waiting for each; resolves with the exit status (0: every member stopped cleanly). */
  stop(why: string): Promise<number>;
  /** SIGKILL to every member still running (a second Ctrl-C; synchronous, for an exit hook). */
  killNow(): void;
}

/** The team could not start (what started was stopped again); the message says what and how to fix it. */
export class TeamStartError extends Error {
  override name = 'TeamStartError';
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The process could not be started (e.g. the program is missing). */
  error?: Error;
}

interface Member extends TeamMember {
  process: ChildProcess;
  /** Lines it wrote (stdout and stderr), passed on with its name. */
  lines: number;
  exit: Promise<Exit>;
  /** Resolves once it exited and every line it wrote was read (its output closed). */
  closed: Promise<void>;
  exited: boolean;
  /** Set when it had to be killed with SIGKILL. */
  killed: boolean;
  /** Told every line the member writes on stdout (after it is passed on). */
  readers: Set<(line: string) => void>;
}

const PREFIX = 'goods-team-mock:';

/** The goods-mock CLI next to this file (compiled `cli.js`, or `cli.ts` when this runs from source through tsx). */
function mockCli(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `cli${extname(here)}`);
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

function describeExit(exit: Exit): string {
  if (exit.error) return `could not be started: ${exit.error.message}`;
  return exit.signal !== null ? `ended by ${exit.signal}` : `exited with code ${String(exit.code)}`;
}

/** Ended as asked: exit code 0, or by the SIGTERM or SIGINT sent to stop it (never killed). */
function clean(member: Member, exit: Exit): boolean {
  return !member.killed && exit.error === undefined && (exit.code === 0 || exit.signal === 'SIGTERM' || exit.signal === 'SIGINT');
}

function launch(name: string, command: string, args: string[], io: TeamIo, stdoutTo: 'out' | 'err'): Member {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<Exit>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
    child.once('error', (error) => done({ code: null, signal: null, error }));
  }).then((how) => {
    member.exited = true;
    return how;
  });
  // No pid: the program could not be started (its 'error' event follows, with the reason).
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  const member: Member = {
    name,
    pid: child.pid ?? -1,
    process: child,
    exit,
    closed,
    exited: false,
    killed: false,
    readers: new Set(),
    lines: 0,
  };
  if (child.stdout) {
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      member.lines += 1;
      io[stdoutTo](`[${name}] ${line}`);
      for (const reader of member.readers) reader(line);
    });
  }
  if (child.stderr)
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      member.lines += 1;
      io.err(`[${name}] ${line}`);
    });
  return member;
}

/** Resolves with the first capture of the first stdout line matching `pattern`; rejects when the member exits first, in time, or on abort. */
function ready(member: Member, pattern: RegExp, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((done, fail) => {
    const reader = (line: string) => {
      const match = pattern.exec(line);
      if (match) finish(() => done(match[1] ?? match[0]));
    };
    const finish = (then: () => void) => {
      clearTimeout(timer);
      member.readers.delete(reader);
      signal?.removeEventListener('abort', aborted);
      then();
    };
    const aborted = () => finish(() => fail(new TeamStartError(`stopped before ${member.name} was ready`)));
    const timer = setTimeout(
      () => finish(() => fail(new TeamStartError(`${member.name} was not ready within ${timeoutMs / 1000} s (its output is above)`))),
      timeoutMs,
    );
    member.readers.add(reader);
    signal?.addEventListener('abort', aborted);
    if (signal?.aborted) aborted();
    void member.exit.then((exit) =>
      finish(() =>
        fail(
          new TeamStartError(`${member.name} ${describeExit(exit)} before it was ready${member.lines > 0 ? ' (its output is above)' : ''}`),
        ),
      ),
    );
  });
}

/** Debian and Ubuntu, and macOS with Homebrew: the commands that install redis-server. */
export const REDIS_INSTALL = 'sudo apt-get install redis-server (Debian, Ubuntu) or brew install redis (macOS)';

/** Why the redis-server program could not be started, as one line with the fix. */
export function notStarted(program: string, error: Error | undefined): string {
  const code = error !== undefined && 'code' in error ? error.code : undefined;
  const where = program.includes('/') ? program : `${program} (looked up in PATH)`;
  if (code === 'ENOENT')
    return `${where} was not found: goods-team-mock runs one Redis for its replicas; install it with ${REDIS_INSTALL}, or pass --redis-server PATH`;
  if (code === 'EACCES') return `${where} is not executable; pass --redis-server PATH of a redis-server you may run`;
  return `${where} could not be started (${error?.message ?? 'no reason given'}); pass --redis-server PATH of a redis-server`;
}

/** Starts Redis, then the replicas; resolves once every replica serves. Rejects with a TeamStartError after stopping what started. */
export async function startTeam(config: TeamConfig, io: TeamIo, options: TeamOptions = {}): Promise<Team> {
  const graceMs = options.graceMs ?? 10_000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const temporary = config.redisDir === undefined;
  const dir = config.redisDir === undefined ? await mkdtemp(join(tmpdir(), 'goods-team-mock-')) : resolve(config.redisDir);
  if (!temporary) await mkdir(dir, { recursive: true });
  const members: Member[] = [];
  let stopping: Promise<number> | undefined;
  let failed = false;
  let announceEnd: (status: number) => void = () => undefined;
  const ended = new Promise<number>((done) => (announceEnd = done));

  /** SIGTERM, then SIGKILL after the grace period; resolves whether it ended as asked. */
  const end = async (member: Member): Promise<boolean> => {
    if (!member.exited) member.process.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((done) => (timer = setTimeout(done, graceMs)));
    const exit = await Promise.race([member.exit, late.then(() => undefined)]);
    clearTimeout(timer);
    if (exit === undefined) {
      io.err(`${PREFIX} ${member.name} (pid ${member.pid}) did not stop within ${graceMs / 1000} s of SIGTERM: SIGKILL`);
      member.killed = true;
      member.process.kill('SIGKILL');
    }
    return clean(member, await member.exit);
  };
  const stop = (why: string): Promise<number> => {
    stopping ??= (async () => {
      // A member that could not be started (no pid) has nothing to stop; when none started, nothing is said.
      const started = members.filter((member) => member.process.pid !== undefined);
      if (started.length === 0) {
        if (temporary) await rm(dir, { recursive: true, force: true });
        return 1;
      }
      io.err(`${PREFIX} ${why}; stopping the replicas, then Redis`);
      const [redis, ...replicas] = started;
      const results = await Promise.all(replicas.map(end));
      if (redis) results.push(await end(redis));
      if (temporary) await rm(dir, { recursive: true, force: true });
      const status = failed || results.includes(false) ? 1 : 0;
      const stopped = [...replicas, ...(redis ? [redis] : [])].map((m) => `${m.name} (pid ${m.pid})`).join(', ');
      io.err(`${PREFIX} stopped ${stopped}${temporary ? `; removed ${dir}` : `; the state stays in ${dir}`}`);
      return status;
    })();
    void stopping.then(announceEnd);
    return stopping;
  };
  const watch = (member: Member): void => {
    void member.exit.then((exit) => {
      if (stopping) return;
      if (!clean(member, exit)) failed = true;
      void stop(`${member.name} (pid ${member.pid}) ${describeExit(exit)}`);
    });
  };

  try {
    const pickPort = options.pickPort ?? freePort;
    let redisPort = 0;
    let redis: Member | undefined;
    // A port the team picked may be taken between the pick and Redis's bind (a connection or a server
    // elsewhere): Redis then exits saying so, and the team tries another port, at most PORT_TRIES times.
    for (let attempt = 1; redis === undefined; attempt++) {
      redisPort = config.redisPort ?? (await pickPort());
      // prettier-ignore
      const redisArgs = ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--logfile', ''];
      const started = launch('redis', config.redisServer, redisArgs, io, 'err');
      members.push(started);
      if (started.process.pid === undefined) throw new TeamStartError(notStarted(config.redisServer, (await started.exit).error));
      io.err(`${PREFIX} starting Redis on redis://127.0.0.1:${redisPort}/0 (pid ${started.pid}), folder ${dir}`);
      let portTaken = false;
      const takenReader = (line: string): void => {
        if (/Address already in use/i.test(line)) portTaken = true;
      };
      started.readers.add(takenReader);
      try {
        await ready(started, /Ready to accept connections/, readyTimeoutMs, options.signal);
        redis = started;
      } catch (error) {
        // Its last lines (the reason it exited) are read once its output closed.
        if (started.exited) await Promise.race([started.closed, delay(1000, undefined, { ref: false })]);
        if (portTaken && config.redisPort === undefined && attempt < PORT_TRIES && !options.signal?.aborted) {
          members.splice(members.indexOf(started), 1);
          io.err(`${PREFIX} port ${redisPort} was taken before Redis could listen on it; trying another free port`);
          continue;
        }
        throw new TeamStartError(
          `Redis (${config.redisServer}) did not start: ${messageOf(error)}. ${
            config.redisPort !== undefined || portTaken ? `Is port ${redisPort} free? ` : ''
          }Pass --redis-server PATH to use another redis-server.`,
        );
      } finally {
        started.readers.delete(takenReader);
      }
    }
    const redisUrl = `redis://127.0.0.1:${redisPort}/0`;
    const replicas = config.ports.map((port, i) =>
      launch(
        `replica ${i + 1}`,
        process.execPath,
        [...process.execArgv, mockCli(), ...config.mockArgs, '--port', String(port), '--store', redisUrl],
        io,
        'out',
      ),
    );
    members.push(...replicas);
    io.err(`${PREFIX} starting ${replicas.map((r, i) => `${r.name} (pid ${r.pid}, port ${config.ports[i] ?? 0})`).join(', ')}`);
    const urls = await Promise.all(
      replicas.map((replica, i) =>
        ready(replica, /listening on (http:\/\/\S+)/, readyTimeoutMs, options.signal).catch((error: unknown) => {
          const port = config.ports[i] ?? 0;
          throw new TeamStartError(`${messageOf(error)}${port !== 0 ? `; if port ${port} is taken, choose others with --ports` : ''}`);
        }),
      ),
    );
    for (const member of members) watch(member);
    return {
      redis: { name: redis.name, pid: redis.pid, url: redisUrl, dir },
      replicas: replicas.map((replica, i) => ({ name: replica.name, pid: replica.pid, url: urls[i] ?? '' })),
      ended,
      stop,
      killNow() {
        for (const member of members) {
          if (!member.exited) {
            member.killed = true;
            member.process.kill('SIGKILL');
          }
        }
      },
    };
  } catch (error) {
    failed = options.signal?.aborted !== true;
    // The reason is the rejection's message (the CLI prints it once, last).
    await stop('could not start');
    throw error instanceof TeamStartError ? error : new TeamStartError(messageOf(error));
  }
}
