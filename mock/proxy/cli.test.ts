/**
 * `goods-mock --proxy`: the options parsed into the typed config (bad values refused with the option
 * named), and the real CLI in a child process: banner, one log line per violation, reports written on
 * POST /__mock/report and on SIGTERM (exit 0), no credential in any output; without `--output`, a stop
 * writes `reports/` in the current folder only when an exchange was judged, and says what it did.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, waitForLine } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { parseMockArgs, UsageError } from '../cli-args.js';
import { startMock } from '../testing.js';
import { DEFAULT_OUTPUT_DIR, DEFAULT_PROXY, REPORT_FILES } from './config.js';

describe('goods-mock --proxy: options', () => {
  it('parses --proxy and its options into the config, with the defaults', () => {
    assert.deepEqual(parseMockArgs(['--proxy', 'https://staging.example/api']), {
      kind: 'run',
      config: { proxy: { ...DEFAULT_PROXY, upstream: 'https://staging.example/api' } },
    });
    assert.deepEqual(
      parseMockArgs([
        '--proxy',
        'http://127.0.0.1:8080',
        '--level',
        'strict',
        '--record',
        'rec',
        '--output',
        'out',
        '--keep',
        '7',
        '--proxy-timeout',
        '900',
        '--port',
        '0',
      ]),
      {
        kind: 'run',
        config: {
          port: 0,
          proxy: {
            ...DEFAULT_PROXY,
            upstream: 'http://127.0.0.1:8080',
            level: 'strict',
            recordDir: 'rec',
            outputDir: 'out',
            keep: 7,
            timeoutMs: 900,
          },
        },
      },
    );
  });

  it('refuses bad values, and the proxy options without --proxy, naming the option', () => {
    const cases: [string[], RegExp][] = [
      [['--proxy', 'staging.example'], /--proxy needs an absolute http\(s\) URL/],
      [['--proxy', 'ftp://x.example'], /--proxy needs an http:\/\/ or https:\/\/ URL/],
      [['--proxy', 'http://x.example/?a=1'], /without query/],
      [['--proxy', 'http://x.example', '--level', 'lax'], /--level must be spec or strict/],
      [['--proxy', 'http://x.example', '--keep', '0'], /--keep must be a whole number from 1/],
      [['--proxy', 'http://x.example', '--record', ''], /--record needs a folder/],
      [['--level', 'strict'], /--level works only with --proxy/],
      [['--proxy', 'http://x.example', '--state-file', 's.jsonl'], /--state-file has no effect with --proxy/],
      [['--proxy', 'http://x.example', '--token', 'abc'], /--token has no effect with --proxy/],
      [['--record', 'x'], /--record works only with --proxy/],
    ];
    for (const [args, pattern] of cases) {
      assert.throws(
        () => parseMockArgs(args),
        (error: Error) => error instanceof UsageError && pattern.test(error.message),
        args.join(' '),
      );
    }
  });
});

describe('goods-mock --proxy: the CLI', function () {
  this.timeout(30_000);

  it('logs each violation, writes the reports on POST /__mock/report and on SIGTERM, and never prints the credential', async () => {
    const upstream = await startMock();
    const output = mkdtempSync(join(tmpdir(), 'proxy-cli-'));
    const secret = 'cli-Secret-Token-9';
    const child = startChild(
      'goods-mock --proxy',
      projectCli('mock/cli', [
        '--port',
        '0',
        '--proxy',
        `http://user:${secret}@${upstream.url.slice(7)}`,
        '--level',
        'strict',
        '--output',
        output,
      ]),
    );
    try {
      const url = await waitForLine(child, /proxying (http:\/\/\S+)/);
      const answer = await fetch(`${url}/goodsReception/rest/v1/test-samples/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ fk_lot_id: 2001, fk_user_id: 0, token: secret }),
      });
      assert.equal(answer.status, 400);
      await answer.arrayBuffer();
      const report = await fetch(`${url}/__mock/report`, { method: 'POST' });
      assert.equal(report.status, 200);
      const written = JSON.parse(readFileSync(join(output, REPORT_FILES.json), 'utf8')) as { counts: { failed: number } };
      assert.ok(written.counts.failed > 0);
      process.kill(child.pid, 'SIGTERM');
      const { code } = await child.closed;
      const out = child.stdout();
      const err = child.stderr();
      assert.equal(code, 0, err);
      assert.match(
        err,
        /client violation createTestSample request\.body-schema \[strict\] body \/fk_user_id: the request body breaks the schema at \/fk_user_id: must be >= 1/,
      );
      assert.match(
        err,
        /client violation createTestSample request\.body-schema \[strict\] body \/token: the request body breaks the schema at \/token: is not a member/,
      );
      const json = readFileSync(join(output, REPORT_FILES.json), 'utf8');
      const junit = readFileSync(join(output, REPORT_FILES.junit), 'utf8');
      assert.match(junit, /<testsuites /);
      assert.ok(err.includes(`reports written: ${join(output, REPORT_FILES.json)}, ${join(output, REPORT_FILES.junit)}`), err);
      for (const text of [out, err, json, junit]) assert.ok(!text.includes(secret), 'no credential in the output');
    } finally {
      await child.stop();
      await upstream.close();
    }
  });

  /** The proxy CLI without --output, started in a fresh folder: that folder, and the child. */
  async function proxyInFreshFolder(upstream: string): Promise<{ cwd: string; url: string; stop: () => Promise<string> }> {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'proxy-cwd-')));
    const child = startChild('goods-mock --proxy', projectCli('mock/cli', ['--port', '0', '--proxy', upstream]), { cwd });
    const url = await waitForLine(child, /proxying (http:\/\/\S+)/);
    return {
      cwd,
      url,
      stop: async () => {
        try {
          process.kill(child.pid, 'SIGTERM');
          const { code } = await child.closed;
          assert.equal(code, 0, child.stderr());
          return child.stderr();
        } finally {
          await child.stop();
        }
      },
    };
  }

  it('without --output: a stop after no proxied exchange writes nothing and says so (no reports/ in the current folder)', async () => {
    const upstream = await startMock();
    try {
      const proxy = await proxyInFreshFolder(upstream.url);
      // The control endpoints are no exchange of the contract.
      assert.equal((await fetch(`${proxy.url}/__mock/violations`)).status, 200);
      const err = await proxy.stop();
      assert.match(err, /proxy: no reports written: no exchange of the contract's operations went through the proxy/);
      assert.doesNotMatch(err, /; reports written:/);
      assert.deepEqual(readdirSync(proxy.cwd), [], 'nothing was created in the current folder');
    } finally {
      await upstream.close();
    }
  });

  it('without --output: a stop after one exchange writes reports/ in the current folder and names each file', async () => {
    const upstream = await startMock();
    try {
      const proxy = await proxyInFreshFolder(upstream.url);
      const answer = await fetch(`${proxy.url}/manualProduction/rest/v1/orders/info/ORD-2026-0001`);
      assert.equal(answer.status, 401);
      await answer.arrayBuffer();
      const err = await proxy.stop();
      const files = [REPORT_FILES.json, REPORT_FILES.junit].map((name) => join(proxy.cwd, DEFAULT_OUTPUT_DIR, name));
      assert.ok(err.includes(`proxy: 1 violation(s) in 1 exchange(s); reports written: ${files.join(', ')}`), err);
      for (const file of files) assert.ok(existsSync(file), file);
      const report = JSON.parse(readFileSync(files[0] ?? '', 'utf8')) as { counts: { failed: number; cases: number } };
      assert.deepEqual([report.counts.failed, report.counts.cases], [1, 1]);
    } finally {
      await upstream.close();
    }
  });
});
