/** The CLI's exit codes: 0 all passed, 1 a check failed, 2 the run could not start (one line: reason and fix). */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { REFERENCE_TOKEN, startReferenceServer } from './testing/reference-server.js';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'conformance/cli.ts'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('goods-conformance CLI', function () {
  this.timeout(60_000);

  it('exit 0: strict passes against the in-process mock; human lines, seed and run marker printed', async () => {
    const { code, stdout } = await cli(['--level', 'strict', '--seed', '9']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /PASS {2}\[spec\] {3}getOrderInfo\.exact-order/);
    assert.match(stdout, /seed 9 /);
    assert.match(stdout, /run marker CONF-/);
  });

  it('exit 1: a failing check, printed with request, status, answer and rule; the token redacted', async () => {
    const server = await startReferenceServer(['create-200']);
    try {
      const { code, stdout } = await cli(['--base-url', server.url, '--order-number', 'ORD-2026-0001', '--level', 'strict'], {
        CONFORMANCE_TOKEN: REFERENCE_TOKEN,
      });
      assert.equal(code, 1, stdout);
      assert.match(stdout, /FAIL {2}\[strict\] createLotTransfer\.status-201/);
      assert.match(stdout, /request: {2}POST \/goodsReception\/rest\/v1\/lot-transfers\/create/);
      assert.match(stdout, /answer: {3}200 \{/);
      assert.match(stdout, /rule: {5}Profile: create success is 201/);
      assert.doesNotMatch(stdout, new RegExp(REFERENCE_TOKEN));
      assert.match(stdout, /authorization: Bearer <redacted>/);
    } finally {
      await server.close();
    }
  });

  it('exit 2: nothing listening at the base URL, one line with reason and fix', async () => {
    const port = await closedPort();
    const { code, stderr, stdout } = await cli(['--base-url', `http://127.0.0.1:${port}`, '--order-number', 'A', '--token', 't']);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /^goods-conformance: nothing is listening at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start the server, or fix --base-url\n$/,
    );
  });

  it('exit 2: bad arguments', async () => {
    const { code, stderr } = await cli(['--level', 'sloppy']);
    assert.equal(code, 2);
    assert.match(stderr, /--level must be spec or strict.*pass --level spec or --level strict/);
    assert.equal(stderr.trim().split('\n').length, 1);
  });
});
