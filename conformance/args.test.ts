/** argv → config: defaults, every option, and a StartError (exit 2) naming the fix for bad input. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { HELP, OPTION_NAMES, parseConformanceArgs } from './args.js';
import { DEFAULT_CONCURRENCY, MOCK_ORDER_NUMBER, MOCK_TOKEN } from './config.js';
import { loadContract } from './contract-option.js';
import { StartError } from './start-error.js';

function config(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseConformanceArgs(argv, env);
  assert.equal(parsed.help, false);
  return parsed.config;
}

describe('conformance command line', () => {
  it('defaults: the in-process mock, its first fixture order and a token, spec level, 100 writes, 5 s', () => {
    const c = config([]);
    assert.equal(c.baseUrl, undefined);
    assert.equal(c.orderNumber, MOCK_ORDER_NUMBER);
    assert.equal(c.token, MOCK_TOKEN);
    assert.equal(c.level, 'spec');
    assert.equal(c.rejectedToken, 'invalid');
    assert.equal(c.maxWrites, 100);
    assert.equal(c.timeoutMs, 5000);
    assert.equal(c.concurrency, DEFAULT_CONCURRENCY);
    assert.deepEqual(c.reporters, ['console']);
    assert.equal(c.outputDir, 'reports');
    assert.equal(c.readOnly, false);
    assert.equal(c.contractPath, undefined);
    assert.equal(c.caPath, undefined);
    assert.ok(c.unknownOrderNumber.includes(c.runMarker));
  });

  it('reads every option of the issue', () => {
    const c = config([
      '--base-url',
      'http://127.0.0.1:9000/',
      '--token',
      't',
      '--order-number',
      'WE 2026-0003',
      '--level',
      'strict',
      '--rejected-token',
      'nope',
      '--unknown-order-number',
      'X-1',
      '--read-only',
      '--max-writes',
      '3',
      '--timeout',
      '250',
      '--seed',
      '42',
      '--reporter',
      'junit,html',
      '--output',
      'out',
      '--deadline',
      '120000',
      '--contract',
      'api/openapi.yaml',
      '--ca',
      'certs/company-ca.pem',
      '--concurrency',
      '4',
      '--credential',
      'apiKeyAuth=K1',
      '--credential',
      'basicAuth=u:p=w',
    ]);
    assert.deepEqual(
      { ...c, runMarker: '' },
      {
        baseUrl: 'http://127.0.0.1:9000',
        token: 't',
        credentials: { apiKeyAuth: 'K1', basicAuth: 'u:p=w' },
        orderNumber: 'WE 2026-0003',
        level: 'strict',
        rejectedToken: 'nope',
        unknownOrderNumber: 'X-1',
        readOnly: true,
        maxWrites: 3,
        timeoutMs: 250,
        concurrency: 4,
        seed: 42,
        reporters: ['junit', 'html'],
        outputDir: 'out',
        listChecks: false,
        selfTest: false,
        deadlineMs: 120_000,
        contractPath: 'api/openapi.yaml',
        caPath: 'certs/company-ca.pem',
        runMarker: '',
      },
    );
  });

  it('takes the token from CONFORMANCE_TOKEN; --token wins', () => {
    assert.equal(config(['--base-url', 'http://h:1', '--order-number', 'A'], { CONFORMANCE_TOKEN: 'env' }).token, 'env');
    assert.equal(config(['--base-url', 'http://h:1', '--order-number', 'A', '--token', 'cli'], { CONFORMANCE_TOKEN: 'env' }).token, 'cli');
  });

  it('--list-checks asks for the list (nothing sent); --deadline is optional (absent by default)', () => {
    const parsed = parseConformanceArgs(['--list-checks', '--level', 'strict']);
    assert.equal(parsed.help, false);
    assert.equal(parsed.help === false && parsed.config.listChecks, true);
    assert.equal(parsed.help === false && parsed.config.level, 'strict');
    const plain = parseConformanceArgs([]);
    assert.equal(plain.help === false && plain.config.listChecks, false);
    assert.equal(config([]).deadlineMs, undefined);
  });

  it('--self-test asks for the self-test (with --contract: of that contract); off by default; it needs no token or order', () => {
    const parsed = config(['--self-test', '--contract', 'evolved.yaml']);
    assert.equal(parsed.selfTest, true);
    assert.equal(parsed.contractPath, 'evolved.yaml');
    assert.equal(parsed.listChecks, false);
    assert.equal(config([]).selfTest, false);
    assert.equal(config(['--self-test', '--base-url', 'http://127.0.0.1:1']).selfTest, true);
  });

  it('--help: every option with its default, the environment variables and the exit codes 0/1/2/3', () => {
    assert.deepEqual(parseConformanceArgs(['--help']), { help: true });
    assert.deepEqual(parseConformanceArgs(['-h', '--level', 'x']), { help: true });
    for (const name of OPTION_NAMES) assert.match(HELP, new RegExp(`^ +(?:-h, )?--${name}\\b`, 'm'), `--${name}`);
    for (const [option, fallback] of [
      ['base-url', 'the in-process mock'],
      ['token', '$CONFORMANCE_TOKEN'],
      ['order-number', 'ORD-2026-0001'],
      ['rejected-token', 'invalid'],
      ['unknown-order-number', 'CONFORMANCE-UNKNOWN <run marker>'],
      ['level', 'spec'],
      ['read-only', 'off'],
      ['max-writes', '100'],
      ['seed', 'random'],
      ['timeout', '5000'],
      ['deadline', 'none'],
      ['reporter', 'console'],
      ['output', 'reports'],
      ['contract', 'the bundled contract'],
      ['ca', 'none'],
    ] as const) {
      const entry = HELP.slice(HELP.indexOf(`  --${option} `) + 2).split(/\n {2}-/)[0] ?? '';
      assert.ok(entry.includes(`default`) && entry.includes(fallback), `--${option}: ${entry}`);
    }
    for (const name of ['CONFORMANCE_TOKEN', 'NO_COLOR']) assert.match(HELP, new RegExp(`^ {2}${name} `, 'm'));
    for (const code of [0, 1, 2, 3]) assert.match(HELP, new RegExp(`^ {2}${code} {2}\\S`, 'm'));
    assert.ok(
      HELP.includes(
        '  2  a configuration error, one line naming the option to fix: the run could not start (bad options, a\n' +
          '     contract or --ca file that cannot be read or used, nothing listening, TLS/plain-HTTP mismatch, a\n' +
          '     TLS certificate not trusted), or the answers show it (the main order not found, the token refused\n' +
          '     on it, nothing but 401s, an HTML page instead of the API; the summary still lists the checks)\n',
      ),
    );
    assert.ok(
      HELP.includes(
        '--contract FILE                OpenAPI 3.1 contract, .yaml or .json, read by the same loader as\n' +
          '                                 goods-mock --contract (default: the bundled contract)',
      ),
    );
  });

  describe('--contract FILE', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'conformance-args-contract-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('is read as given (the run resolves it from the current folder); absent by default', () => {
      assert.equal(config(['--contract', 'api/openapi.yaml']).contractPath, 'api/openapi.yaml');
      assert.equal(config(['--contract=/abs/openapi.json', '--list-checks']).contractPath, '/abs/openapi.json');
      assert.equal(config([]).contractPath, undefined);
    });

    it('a file that is not there stops the run before anything starts: a StartError (exit 2) naming the file, the reason and the fix', () => {
      const missing = join(dir, 'no-such-contract.yaml');
      const { contractPath } = config(['--contract', relative(process.cwd(), missing)]);
      assert.throws(
        () => loadContract(contractPath),
        (error: unknown) =>
          error instanceof StartError &&
          error.reason.startsWith(`cannot read the contract ${missing}: `) &&
          /ENOENT/.test(error.reason) &&
          /pass --contract with a readable OpenAPI 3\.1 contract \(\.yaml or \.json\)/.test(error.fix),
      );
    });
  });

  it('--reporter console is the console report; spec, its former name, is still accepted for it; the file reporters keep their names', () => {
    assert.deepEqual(config(['--reporter', 'console']).reporters, ['console']);
    assert.deepEqual(config(['--reporter', 'spec']).reporters, ['console']);
    assert.deepEqual(config(['--reporter', 'spec, junit,html']).reporters, ['console', 'junit', 'html']);
    assert.deepEqual(config(['--reporter', 'json']).reporters, ['json']);
    assert.match(HELP, /--reporter NAMES +console, json, junit, html, or a comma-separated list \(default console\)/);
    assert.match(HELP, /spec: the former name of console/);
    assert.throws(
      () => parseConformanceArgs(['--reporter', 'console,xml']),
      (error: unknown) => error instanceof StartError && /must be one of console, json, junit, html .*got "xml"/.test(error.message),
    );
  });

  it('--base-url without --order-number leaves the order number empty (the run refuses it when the contract reads an order); the mock has its default', () => {
    assert.equal(config(['--base-url', 'http://h:1', '--token', 't']).orderNumber, '');
    assert.equal(config(['--base-url', 'http://h:1', '--token', 't', '--order-number', 'A-1']).orderNumber, 'A-1');
    assert.equal(config([]).orderNumber, 'ORD-2026-0001');
  });

  for (const [argv, pattern] of [
    [['--level', 'loose'], /--level must be spec or strict/],
    [['--reporter', 'xml'], /--reporter must be one of/],
    [['--timeout', '0'], /--timeout must be an integer ≥ 1/],
    [['--max-writes', 'many'], /--max-writes must be an integer/],
    [['--base-url', 'not a url', '--token', 't', '--order-number', 'A'], /is not a URL/],
    [['--base-url', 'http://h:1', '--order-number', 'A'], /no token.*CONFORMANCE_TOKEN/],
    [['--bogus'], /bad arguments/],
    [['--deadline', '0'], /--deadline must be an integer ≥ 1/],
    [['--deadline', 'soon'], /--deadline must be an integer/],
    [['--concurrency', '0'], /--concurrency must be an integer ≥ 1/],
    [['--concurrency', '257'], /--concurrency must be at most 256/],
    [['--rejected-token', 'conformance-token'], /--rejected-token equals the token/],
    [['--contract', ''], /--contract is empty; pass a value: --contract VALUE/],
    [['--contract'], /bad arguments/],
  ] as const) {
    it(`refuses ${argv.join(' ')}`, () => {
      assert.throws(
        () => parseConformanceArgs([...argv], {}),
        (error: unknown) => error instanceof StartError && pattern.test(`${error.reason}; ${error.fix}`) && error.fix.length > 0,
      );
    });
  }
});
