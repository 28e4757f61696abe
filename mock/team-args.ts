/**
 * The command line of `goods-team-mock` (a shared team mock on this machine: one Redis and several
 * goods-mock replicas sharing it), parsed into a TeamConfig. Options after `--` go to every replica;
 * they are checked here with goods-mock's own parser, so a wrong one stops the team before anything
 * starts. A wrong option or value is a UsageError naming it and the fix; the CLI exits 2 with it.
 */
import { parseArgv, wholeNumber } from '../util/argv.js';
import { parseMockArgs, UsageError } from './cli-args.js';
import type { ServerConfig } from './server.js';

export interface TeamConfig {
  /** The replicas' ports, one replica each (0: a free port). */
  ports: number[];
  /** Redis's port on 127.0.0.1; undefined: a free port. */
  redisPort?: number;
  /** Redis's folder (its append-only file is the state), kept; undefined: a new temporary folder, removed at the end. */
  redisDir?: string;
  /** The redis-server program (a path, or a name looked up in PATH). */
  redisServer: string;
  /** goods-mock options for every replica (after `--`). */
  mockArgs: string[];
}

export const DEFAULT_TEAM_PORTS = [4011, 4012];
export const MAX_REPLICAS = 16;

export const TEAM_HELP = `Usage: goods-team-mock [options] [-- goods-mock options]

A shared team mock on this machine: one Redis (redis-server in the foreground, append-only file with
fsync always, on 127.0.0.1) and goods-mock replicas that share it, so any replica answers for all.
Ctrl-C, SIGTERM to this process, or the end of the process that started it (e.g. npx killed) stops
the replicas, then Redis, and waits for each: nothing it started is left running. A second Ctrl-C
kills them at once.

Options:
  --ports LIST          the replicas' ports, comma-separated, one replica each (default ${DEFAULT_TEAM_PORTS.join(',')};
                        0 = a free port; at most ${MAX_REPLICAS} replicas)
  --redis-port N        Redis's port on 127.0.0.1 (default: a free port)
  --redis-dir DIR       Redis's folder, where its append-only file (the state) lives, kept after the stop
                        (default: a new temporary folder, removed when the team stops)
  --redis-server PATH   the redis-server program (default redis-server, from PATH)
  -h, --help            show this help

After --, goods-mock options for every replica, e.g. -- --fixtures ./mock-orders --quiet
(see goods-mock --help); the team sets --port and --store itself.

Exit status: 0 after a clean stop, 1 when Redis or a replica cannot start or ends by itself with an
error, 2 for a wrong option or value.`;

const OPTIONS = {
  ports: { type: 'string' },
  'redis-port': { type: 'string' },
  'redis-dir': { type: 'string' },
  'redis-server': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The team's Redis as the replicas' options are checked (the team gives each replica its real URL). */
const TEAM_STORE = 'redis://goods-team-mock.invalid:6379/0';

/** goods-mock options the team sets itself, with what to use instead. */
const SET_BY_TEAM: { option: string; set: (config: Partial<ServerConfig>) => boolean; instead: string }[] = [
  { option: '--port', set: (c) => c.port !== undefined, instead: 'give the replicas their ports with --ports before --' },
  {
    option: '--store',
    set: (c) => c.store !== undefined && c.store !== TEAM_STORE,
    instead: 'the replicas share the Redis the team starts',
  },
  { option: '--state-file', set: (c) => c.stateFile !== undefined, instead: "the state lives in the team's Redis (--redis-dir keeps it)" },
  { option: '--proxy', set: (c) => c.proxy !== undefined, instead: 'run one goods-mock --proxy URL on its own' },
];

export type TeamCommand = { kind: 'help' } | { kind: 'run'; config: TeamConfig };

/** The replicas' options, checked by goods-mock's own parser (its environment left out: the team sets the port and the store). */
function mockOptions(args: string[]): Partial<ServerConfig> {
  // An option that needs a store (--set-aside-invalid) is checked as the replicas will run: on the team's Redis.
  const needsStore = args.some((arg) => arg === '--set-aside-invalid' || arg.startsWith('--set-aside-invalid='));
  let parsed;
  try {
    parsed = parseMockArgs(needsStore ? ['--store', TEAM_STORE, ...args] : args, {});
  } catch (error) {
    if (error instanceof UsageError)
      throw new UsageError(`after --, ${error.message.replace(/ \(run goods-mock --help.*\)$/, '')} (see goods-mock --help)`);
    throw error;
  }
  if (parsed.kind === 'help') throw new UsageError("after --, --help is goods-mock's: run goods-mock --help for the replicas' options");
  return parsed.config;
}

function port(option: string, text: string, min: number): number {
  const value = wholeNumber(text.trim(), min, 65535);
  if (value === undefined) throw new UsageError(`--${option} must be a port number from ${min} to 65535, not "${text}"`);
  return value;
}

/** Parses the arguments (without `node` and the script). Throws a UsageError. */
export function parseTeamArgs(argv: string[]): TeamCommand {
  const split = argv.indexOf('--');
  const args = split < 0 ? argv : argv.slice(0, split);
  const mockArgs = split < 0 ? [] : argv.slice(split + 1);
  const { values } = parseArgv(
    { args, options: OPTIONS, strict: true, allowPositionals: false },
    (sentence) => new UsageError(`${sentence} (run goods-team-mock --help for the options; goods-mock options go after --)`),
  );
  if (values.help) return { kind: 'help' };
  const ports = values.ports === undefined ? DEFAULT_TEAM_PORTS : values.ports.split(',').map((text) => port('ports', text, 0));
  if (ports.length > MAX_REPLICAS) throw new UsageError(`--ports names ${ports.length} replicas; at most ${MAX_REPLICAS}`);
  const fixed = ports.filter((p) => p !== 0);
  const twice = fixed.find((p, i) => fixed.indexOf(p) !== i);
  if (twice !== undefined) throw new UsageError(`--ports names port ${twice} twice; each replica needs its own port`);
  const config: TeamConfig = { ports, redisServer: values['redis-server'] ?? 'redis-server', mockArgs };
  if (values['redis-port'] !== undefined) {
    config.redisPort = port('redis-port', values['redis-port'], 1);
    if (ports.includes(config.redisPort)) throw new UsageError(`--redis-port ${config.redisPort} is also in --ports; choose another`);
  }
  if (values['redis-dir'] !== undefined) {
    if (values['redis-dir'] === '') throw new UsageError('--redis-dir needs a folder');
    config.redisDir = values['redis-dir'];
  }
  if (config.redisServer === '') throw new UsageError('--redis-server needs the path of redis-server');
  const replicas = mockOptions(mockArgs);
  for (const { option, set, instead } of SET_BY_TEAM) {
    if (set(replicas)) throw new UsageError(`after --, ${option} is set by goods-team-mock: ${instead}`);
  }
  return { kind: 'run', config };
}
