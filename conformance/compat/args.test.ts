/** argv of `goods-conformance compat` → CompatConfig, and every refusal naming the argument and the fix. */
import assert from 'node:assert/strict';
import { StartError } from '../start-error.js';
import { COMPAT_HELP, COMPAT_OPTION_NAMES, parseCompatArgs, type CompatConfig } from './args.js';

function config(argv: string[]): CompatConfig {
  const parsed = parseCompatArgs(argv);
  assert.equal(parsed.help, false);
  return parsed.config;
}

function refused(argv: string[], reason: RegExp, fix: RegExp): void {
  assert.throws(
    () => parseCompatArgs(argv),
    (error: unknown) => error instanceof StartError && reason.test(error.reason) && fix.test(error.fix),
    argv.join(' '),
  );
}

describe('compat: the command line', () => {
  it('two contracts and the defaults: fail on clients, every change counted (strict), no proof, console only', () => {
    assert.deepEqual(config(['v1.yaml', 'v2.yaml']), {
      oldPath: 'v1.yaml',
      newPath: 'v2.yaml',
      failOn: 'clients',
      level: 'strict',
      prove: false,
      seed: 1,
      timeoutMs: 5000,
      reporters: [],
      outputDir: 'reports',
    });
  });

  it('every option', () => {
    assert.deepEqual(
      config([
        'a.json',
        '--fail-on',
        'any',
        'b.json',
        '--level=spec',
        '--prove',
        '--seed',
        '42',
        '--fixtures',
        'orders',
        '--timeout',
        '2000',
        '--reporter',
        'markdown, json,markdown',
        '--output',
        'out',
      ]),
      {
        oldPath: 'a.json',
        newPath: 'b.json',
        failOn: 'any',
        level: 'spec',
        prove: true,
        seed: 42,
        fixturesDir: 'orders',
        timeoutMs: 2000,
        reporters: ['markdown', 'json'],
        outputDir: 'out',
      },
    );
    assert.deepEqual(parseCompatArgs(['--help']), { help: true });
  });

  it('refuses what it cannot use, naming it and the fix', () => {
    refused([], /two contracts, OLD and NEW; got none/, /compat main\/openapi.yaml contract\/openapi.yaml/);
    refused(['only.yaml'], /got "only.yaml"/, /compat main\/openapi.yaml/);
    refused(['a', 'b', 'c'], /got "a", "b", "c"/, /pass e.g./);
    refused(['a', 'b', '--fail-on', 'frontends'], /--fail-on must be clients, servers or any, got "frontends"/, /--fail-on clients/);
    refused(['a', 'b', '--level', 'loose'], /--level must be spec or strict/, /--level spec/);
    refused(['a', 'b', '--reporter', 'html'], /--reporter must be json, markdown or json,markdown, got "html"/, /--reporter markdown/);
    refused(['a', 'b', '--seed', '-1'], /option --seed needs a value/, /--help/);
    refused(['a', 'b', '--seed', '1.5'], /--seed must be an integer ≥ 0, got "1.5"/, /--seed 1/);
    refused(['a', 'b', '--timeout', '0'], /--timeout must be an integer ≥ 1/, /--timeout 1/);
    refused(['a', 'b', '--fixtures', ''], /--fixtures is empty/, /--fixtures VALUE/);
    refused(['a', 'b', '--base-url', 'http://x'], /unknown option --base-url/, /compat --help/);
    refused(['a', '  '], /the NEW contract path is empty/, /NEW contract file/);
  });

  it('--help documents every option and every exit code', () => {
    for (const name of COMPAT_OPTION_NAMES) assert.match(COMPAT_HELP, new RegExp(`^ +(?:-h, )?--${name}\\b`, 'm'), `--${name}`);
    for (const code of [0, 1, 2]) assert.match(COMPAT_HELP, new RegExp(`^ {2}${code} {2}\\S`, 'm'));
  });
});
