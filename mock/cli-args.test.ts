import assert from 'node:assert/strict';
import { exampleToken, HELP, parseMockArgs, tryCommand, UsageError } from './cli-args.js';
import type { SecurityScheme } from '../contract/security.js';

describe('goods-mock arguments (mock/cli-args.ts)', () => {
  it('maps every option to the MockConfig', () => {
    const parsed = parseMockArgs([
      '--port=0',
      '--host',
      '0.0.0.0',
      '--fixtures',
      'fx',
      '--contract',
      'c.yaml',
      '--token',
      'a',
      '--token',
      'b',
      '--reject-token',
      'no',
      '--latency',
      '250',
      '--cors-origin',
      'http://localhost:5173',
      '--allowed-host',
      'mock.test',
      '--allowed-host',
      'dev.box',
      '--state-file',
      's.jsonl',
      '--admin-token',
      'adm',
      '--max-sessions',
      '5',
      '--quiet',
    ]);
    assert.deepEqual(parsed, {
      kind: 'run',
      config: {
        port: 0,
        host: '0.0.0.0',
        fixturesDir: 'fx',
        contractPath: 'c.yaml',
        tokens: ['a', 'b'],
        rejectTokens: ['no'],
        latencyMs: 250,
        corsOrigins: ['http://localhost:5173'],
        allowedHosts: ['mock.test', 'dev.box'],
        stateFile: 's.jsonl',
        adminToken: 'adm',
        maxSessions: 5,
        quiet: true,
      },
    });
  });

  it('leaves defaults to the config, takes PORT from the environment, --port wins', () => {
    assert.deepEqual(parseMockArgs([]), { kind: 'run', config: {} });
    assert.deepEqual(parseMockArgs([], { PORT: '8080' }), { kind: 'run', config: { port: 8080 } });
    assert.deepEqual(parseMockArgs(['--port', '9'], { PORT: '8080' }), { kind: 'run', config: { port: 9 } });
    assert.throws(() => parseMockArgs([], { PORT: 'eighty' }), /PORT/);
    assert.deepEqual(parseMockArgs(['-h']), { kind: 'help' });
  });

  it('refuses bad values with a message naming the option', () => {
    const cases: [string[], RegExp][] = [
      [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
      [['--latency', '1.5'], /--latency/],
      [['--max-sessions', 'x'], /--max-sessions/],
      [['--token', ''], /--token needs a non-empty value/],
      [['--reject-token', 'bad token'], /visible ASCII/],
      [['--cors-origin', 'http://a/b'], /--cors-origin/],
      [['--state-file', ''], /--state-file/],
      [['--allowed-host', 'mock.test:8080'], /--allowed-host must be a host name/],
      [['--allowed-host', ''], /--allowed-host needs a non-empty value/],
      [['--quiet=yes'], /quiet/],
      [['--nope'], /unknown option --nope/],
      [['--colour'], /unknown option --colour/],
      [['--port', 'abc'], /--port must be a whole number/],
      [['--latency', '-5'], /latency/],
      [['--cors-origin', 'localhost:5173/app'], /--cors-origin must be/],
      [['--token', 'a b'], /visible ASCII/],
      [['--token', 'tök'], /visible ASCII/],
      [['extra'], /unexpected argument "extra"/],
    ];
    for (const [args, pattern] of cases) {
      assert.throws(
        () => parseMockArgs(args),
        (error: Error) => error instanceof UsageError && pattern.test(error.message),
        args.join(' '),
      );
    }
  });

  it('--help is recognized and its text lists every option', () => {
    assert.deepEqual(parseMockArgs(['--help']), { kind: 'help' });
    for (const option of [
      '--port',
      '--host',
      '--fixtures',
      '--contract',
      '--token',
      '--reject-token',
      '--latency',
      '--cors-origin',
      '--state-file',
      '--admin-token',
      '--max-sessions',
      '--quiet',
      '--help',
    ])
      assert.ok(HELP.includes(option), option);
  });

  it('takes --set-aside-invalid FILE with --state-file or --store (MOCK_STORE too), never alone, empty, as the state file or with --proxy', () => {
    assert.deepEqual(parseMockArgs(['--state-file', 's.jsonl', '--set-aside-invalid', 'aside.jsonl']), {
      kind: 'run',
      config: { stateFile: 's.jsonl', setAsideInvalid: 'aside.jsonl' },
    });
    assert.deepEqual(parseMockArgs(['--set-aside-invalid', 'aside.jsonl'], { MOCK_STORE: 'redis://r:6379/0' }), {
      kind: 'run',
      config: { store: 'redis://r:6379/0', setAsideInvalid: 'aside.jsonl' },
    });
    const cases: [string[], RegExp][] = [
      [['--set-aside-invalid', 'aside.jsonl'], /--set-aside-invalid works only with --state-file or --store/],
      [['--state-file', 's.jsonl', '--set-aside-invalid', ''], /--set-aside-invalid needs a file path/],
      [['--state-file', 's.jsonl', '--set-aside-invalid', 's.jsonl'], /--set-aside-invalid needs a file other than the --state-file/],
      [['--proxy', 'http://up.test', '--set-aside-invalid', 'a.jsonl'], /--set-aside-invalid works only with --state-file or --store/],
    ];
    for (const [args, pattern] of cases) {
      assert.throws(
        () => parseMockArgs(args),
        (error: Error) => error instanceof UsageError && pattern.test(error.message),
        args.join(' '),
      );
    }
    assert.ok(HELP.includes('--set-aside-invalid FILE'));
  });

  it('shows the first --token in the curl line, or a sample token', () => {
    assert.equal(exampleToken({ tokens: ['t1', 't2'] }), 't1');
    assert.equal(exampleToken({}), 'dev-token');
  });

  it('takes the shared store and the resource limits (records, bytes, connections), refusing --store with --state-file', () => {
    assert.deepEqual(
      parseMockArgs([
        '--store',
        'redis://127.0.0.1:6380/2',
        '--store-prefix',
        'team-a',
        '--max-records-per-session',
        '50',
        '--max-recorded-bytes',
        '1048576',
        '--max-body-bytes-in-flight',
        '2097152',
        '--max-connections',
        '64',
      ]),
      {
        kind: 'run',
        config: {
          store: 'redis://127.0.0.1:6380/2',
          storePrefix: 'team-a',
          maxRecordsPerSession: 50,
          maxRecordedBytes: 1048576,
          maxBodyBytesInFlight: 2097152,
          maxConnections: 64,
        },
      },
    );
    assert.deepEqual(parseMockArgs([], { MOCK_STORE: 'redis://r:6379/0' }), { kind: 'run', config: { store: 'redis://r:6379/0' } });
    assert.deepEqual(parseMockArgs(['--store', 'redis://a:1/0'], { MOCK_STORE: 'redis://r:6379/0' }), {
      kind: 'run',
      config: { store: 'redis://a:1/0' },
    });
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--store', 'redis://h:1/0', '--state-file', 's.jsonl'], {}, /--store and --state-file exclude each other/],
      [['--state-file', 's.jsonl'], { MOCK_STORE: 'redis://h:1/0' }, /MOCK_STORE and --state-file exclude each other/],
      [['--store', 'http://h:1/0'], {}, /--store must be a Redis URL/],
      [['--store', 'redis://h:1/x'], {}, /--store must be a Redis URL/],
      [['--store', 'redis://:secret@h:1/x'], {}, /^(?!.*secret)/],
      [['--store-prefix', 'a b'], {}, /--store-prefix/],
      [['--max-records-per-session', '0'], {}, /--max-records-per-session/],
      [['--max-recorded-bytes', '10'], {}, /--max-recorded-bytes must be a whole number from 1024/],
      [['--max-body-bytes-in-flight', 'x'], {}, /--max-body-bytes-in-flight/],
      [['--max-connections', '0'], {}, /--max-connections/],
    ];
    for (const [args, env, pattern] of cases) {
      assert.throws(
        () => parseMockArgs(args, env),
        (error: Error) => error instanceof UsageError && pattern.test(error.message),
        args.join(' '),
      );
    }
  });
});

describe("the banner's read to try", () => {
  const scheme = (carrier: SecurityScheme['carrier']): SecurityScheme => ({ name: 's', type: 'x', carrier, pointer: '/s' });
  it('carries the token where the scheme of the read puts it, and nothing for a public read', () => {
    const url = 'http://127.0.0.1:4010';
    const path = '/books';
    assert.equal(tryCommand(url, { path }, 't'), 'curl http://127.0.0.1:4010/books');
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'authorization', scheme: 'bearer' }) }, 't'),
      "curl -H 'Authorization: Bearer t' http://127.0.0.1:4010/books",
    );
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'authorization', scheme: 'basic' }) }, 't'),
      "curl -u 'user:t' http://127.0.0.1:4010/books",
    );
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'authorization', scheme: 'basic' }) }, 'a:b'),
      "curl -u 'a:b' http://127.0.0.1:4010/books",
    );
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'apiKey', in: 'header', name: 'X-Key' }) }, 't'),
      "curl -H 'X-Key: t' http://127.0.0.1:4010/books",
    );
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'apiKey', in: 'query', name: 'key' }) }, 't'),
      "curl 'http://127.0.0.1:4010/books?key=t'",
    );
    assert.equal(
      tryCommand(url, { path, scheme: scheme({ kind: 'apiKey', in: 'cookie', name: 'sid' }) }, 't'),
      "curl -b 'sid=t' http://127.0.0.1:4010/books",
    );
  });
});
