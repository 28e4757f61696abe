/** goods-team-mock's command line: defaults, every option, the replicas' options after --, and a UsageError naming the fix. */
import assert from 'node:assert/strict';
import { UsageError } from './cli-args.js';
import { DEFAULT_TEAM_PORTS, MAX_REPLICAS, parseTeamArgs, TEAM_HELP, type TeamConfig } from './team-args.js';

function config(argv: string[]): TeamConfig {
  const parsed = parseTeamArgs(argv);
  assert.equal(parsed.kind, 'run');
  return parsed.config;
}

describe('goods-team-mock command line', () => {
  it('defaults: two replicas on 4011 and 4012, Redis on a free port in a temporary folder, redis-server from PATH', () => {
    assert.deepEqual(config([]), { ports: DEFAULT_TEAM_PORTS, redisServer: 'redis-server', mockArgs: [] });
    assert.deepEqual(DEFAULT_TEAM_PORTS, [4011, 4012]);
  });

  it('reads every option, and passes the options after -- to every replica', () => {
    assert.deepEqual(
      config([
        '--ports',
        '5001,0, 5003',
        '--redis-port',
        '6390',
        '--redis-dir',
        'team-state',
        '--redis-server',
        '/opt/redis/bin/redis-server',
        '--',
        '--fixtures',
        './mock-orders',
        '--quiet',
        '--store-prefix',
        'team-a',
      ]),
      {
        ports: [5001, 0, 5003],
        redisPort: 6390,
        redisDir: 'team-state',
        redisServer: '/opt/redis/bin/redis-server',
        mockArgs: ['--fixtures', './mock-orders', '--quiet', '--store-prefix', 'team-a'],
      },
    );
  });

  it("passes --set-aside-invalid FILE to the replicas (they run on the team's Redis), still refusing --store beside it", () => {
    assert.deepEqual(config(['--', '--set-aside-invalid', 'refused.jsonl']).mockArgs, ['--set-aside-invalid', 'refused.jsonl']);
    assert.deepEqual(config(['--', '--set-aside-invalid=refused.jsonl']).mockArgs, ['--set-aside-invalid=refused.jsonl']);
    assert.throws(
      () => parseTeamArgs(['--', '--set-aside-invalid', 'r.jsonl', '--store', 'redis://127.0.0.1:6379/0']),
      (error: Error) => error instanceof UsageError && /after --, --store is set by goods-team-mock/.test(error.message),
    );
  });

  it('--help: the usage, every option, what goes after --, the exit statuses', () => {
    assert.deepEqual(parseTeamArgs(['--help']), { kind: 'help' });
    assert.deepEqual(parseTeamArgs(['-h', '--ports', 'x']), { kind: 'help' });
    for (const option of ['--ports LIST', '--redis-port N', '--redis-dir DIR', '--redis-server PATH', '-h, --help'])
      assert.ok(TEAM_HELP.includes(`  ${option} `), option);
    assert.match(TEAM_HELP, /After --, goods-mock options for every replica/);
    assert.match(TEAM_HELP, /Exit status: 0 after a clean stop, 1 .*, 2 for a wrong option/s);
  });

  for (const [argv, pattern] of [
    [['--replicas', '3'], /^unknown option --replicas \(run goods-team-mock --help .*goods-mock options go after --\)$/],
    [['--ports'], /option --ports needs a value/],
    [['--ports', '4011,abc'], /--ports must be a port number from 0 to 65535, not "abc"/],
    [['--ports', '4011,70000'], /--ports must be a port number from 0 to 65535, not "70000"/],
    [['--ports', '4011,4011'], /--ports names port 4011 twice; each replica needs its own port/],
    [['--ports', Array.from({ length: MAX_REPLICAS + 1 }, () => '0').join(',')], /at most 16/],
    [['--redis-port', '0'], /--redis-port must be a port number from 1 to 65535, not "0"/],
    [['--redis-port', '4011'], /--redis-port 4011 is also in --ports; choose another/],
    [['--redis-dir', ''], /--redis-dir needs a folder/],
    [['--redis-server', ''], /--redis-server needs the path of redis-server/],
    [['extra'], /unexpected argument "extra"/],
    [['--', '--port', '4020'], /after --, --port is set by goods-team-mock: give the replicas their ports with --ports before --/],
    [['--', '--store', 'redis://127.0.0.1:6379/0'], /after --, --store is set by goods-team-mock/],
    [['--', '--state-file', 's.jsonl'], /after --, --state-file is set by goods-team-mock: the state lives in the team's Redis/],
    [['--', '--proxy', 'http://127.0.0.1:9'], /after --, --proxy is set by goods-team-mock/],
    [['--', '--colour'], /^after --, unknown option --colour \(see goods-mock --help\)$/],
    [['--', '--latency', 'soon'], /^after --, --latency/],
    [['--', '--help'], /after --, --help is goods-mock's/],
  ] as const) {
    it(`refuses ${argv.join(' ')} with a message naming the fix`, () => {
      assert.throws(
        () => parseTeamArgs([...argv]),
        (error: unknown) => error instanceof UsageError && pattern.test(error.message),
      );
    });
  }
});
