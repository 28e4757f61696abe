#!/usr/bin/env node
/** `goods-team-mock`: a thin CLI over startTeam (see `--help`): Redis and goods-mock replicas, started and stopped together. */
import { messageOf } from '../util/errors.js';
import { UsageError } from './cli-args.js';
import { parseTeamArgs, TEAM_HELP } from './team-args.js';
import { startTeam, TeamStartError, type Team } from './team.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function main(): Promise<number> {
  let command;
  try {
    command = parseTeamArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`goods-team-mock: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${TEAM_HELP}\n`);
    return 0;
  }
  const io = {
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
  };
  // A signal during the start stops what started; afterwards it stops the team; a second one kills it at once.
  const abort = new AbortController();
  let team: Team | undefined;
  let signals = 0;
  for (const name of SIGNALS) {
    process.on(name, () => {
      signals += 1;
      if (signals > 1 && team) {
        io.err(`goods-team-mock: ${name} again: SIGKILL to every member still running`);
        team.killNow();
      } else if (team) void team.stop(`${name}`);
      else abort.abort();
    });
  }
  // Last resort: whatever still runs when this process exits is killed with it.
  process.once('exit', () => team?.killNow());
  // When the process that started the team ends, the team stops too: `npx` passes SIGTERM to the shell it
  // runs the bin in, which ends without passing it on, so the team would be left running on its own.
  const parent = process.ppid;
  const orphan = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphan);
    if (team) void team.stop(`the process that started goods-team-mock (pid ${parent}) ended`);
    else abort.abort();
  }, 250);
  orphan.unref();
  try {
    team = await startTeam(command.config, io, { signal: abort.signal });
  } catch (error) {
    if (!(error instanceof TeamStartError)) throw error;
    io.err(`goods-team-mock: ${error.message}`);
    return abort.signal.aborted ? 0 : 1;
  }
  const { redis, replicas } = team;
  io.out(
    [
      `goods-team-mock: Redis ${redis.url} (pid ${redis.pid}), its append-only file (the state) in ${redis.dir}${command.config.redisDir === undefined ? ' (a temporary folder, removed when the team stops)' : ''}`,
      ...replicas.map((replica) => `goods-team-mock: ${replica.name} ${replica.url} (pid ${replica.pid})`),
      `goods-team-mock: ready: ${replicas.length} replicas sharing one Redis; Ctrl-C (or SIGTERM to pid ${process.pid}) stops them, then Redis`,
    ].join('\n'),
  );
  if (signals > 0) void team.stop('a signal came during the start');
  return team.ended;
}

// Exit once the team has stopped, whatever handle may still be open (stdout and stderr are written synchronously on pipes and terminals).
main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`goods-team-mock: ${messageOf(error)}\n`);
    process.exit(1);
  },
);
