/** argv → config: defaults, every option, and a StartError (exit 2) naming the fix for bad input. */
import assert from 'node:assert/strict';
import { parseConformanceArgs } from './args.js';
import { MOCK_ORDER_NUMBER, MOCK_TOKEN } from './config.js';
import { StartError } from './start-error.js';

function config(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseConformanceArgs(argv, env);
  assert.equal(parsed.help, false);
  return parsed.config;
}

describe('conformance command line', () => {
  it('defaults: the in-process mock, its first fixture order and a token, spec level, 50 writes, 5 s', () => {
    const c = config([]);
    assert.equal(c.baseUrl, undefined);
    assert.equal(c.orderNumber, MOCK_ORDER_NUMBER);
    assert.equal(c.token, MOCK_TOKEN);
    assert.equal(c.level, 'spec');
    assert.equal(c.rejectedToken, 'invalid');
    assert.equal(c.maxWrites, 50);
    assert.equal(c.timeoutMs, 5000);
    assert.deepEqual(c.reporters, ['spec']);
    assert.equal(c.outputDir, 'reports');
    assert.equal(c.readOnly, false);
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
    ]);
    assert.deepEqual(
      { ...c, runMarker: '' },
      {
        baseUrl: 'http://127.0.0.1:9000',
        token: 't',
        orderNumber: 'WE 2026-0003',
        level: 'strict',
        rejectedToken: 'nope',
        unknownOrderNumber: 'X-1',
        readOnly: true,
        maxWrites: 3,
        timeoutMs: 250,
        seed: 42,
        reporters: ['junit', 'html'],
        outputDir: 'out',
        listChecks: false,
        runMarker: '',
      },
    );
  });

  it('takes the token from CONFORMANCE_TOKEN; --token wins', () => {
    assert.equal(config(['--base-url', 'http://h:1', '--order-number', 'A'], { CONFORMANCE_TOKEN: 'env' }).token, 'env');
    assert.equal(config(['--base-url', 'http://h:1', '--order-number', 'A', '--token', 'cli'], { CONFORMANCE_TOKEN: 'env' }).token, 'cli');
  });

  for (const [argv, pattern] of [
    [['--level', 'loose'], /--level must be spec or strict/],
    [['--reporter', 'xml'], /--reporter must be one of/],
    [['--timeout', '0'], /--timeout must be an integer ≥ 1/],
    [['--max-writes', 'many'], /--max-writes must be an integer/],
    [['--base-url', 'not a url', '--token', 't', '--order-number', 'A'], /is not a URL/],
    [['--base-url', 'http://h:1', '--order-number', 'A'], /no token.*CONFORMANCE_TOKEN/],
    [['--base-url', 'http://h:1', '--token', 't'], /no order number/],
    [['--bogus'], /bad arguments/],
    [['--rejected-token', 'conformance-token'], /--rejected-token equals the token/],
  ] as const) {
    it(`refuses ${argv.join(' ')}`, () => {
      assert.throws(
        () => parseConformanceArgs([...argv], {}),
        (error: unknown) => error instanceof StartError && pattern.test(`${error.reason}; ${error.fix}`) && error.fix.length > 0,
      );
    });
  }
});
