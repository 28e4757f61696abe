/**
 * The CLI: exit codes (0 all passed, 1 a check failed, 2 the run could not start: one line with reason
 * and fix), --help, --list-checks, and no secret in any output against a hostile server.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CONTRACT_JSON_PATH, PROJECT_ROOT, shownPath } from '../contract/paths.js';
import { closedPort } from '../support/loopback.js';
import { runToExit } from '../support/processes.js';
import { requireSystemTool } from '../support/system-tools.js';
import { projectCli } from '../support/project-cli.js';
import { HELP } from './args.js';
import { CHECKS } from './checks/index.js';
import { reportProblems } from '../report/schema.js';
import { rawControls } from '../report/verdict-fixture.js';
import { startHostileServer } from './testing/hostile-server.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const { code, stdout, stderr } = await runToExit('goods-conformance', projectCli('conformance/cli', args), {
    env: { ...process.env, ...env, NO_COLOR: '1' },
  });
  return { code, stdout, stderr };
}

const TESTING = join(import.meta.dirname, 'testing');

describe('goods-conformance CLI', function () {
  this.timeout(60_000);

  it('exit 0: strict passes against the in-process mock; human lines, seed and run marker printed', async () => {
    const { code, stdout } = await cli(['--level', 'strict', '--seed', '9']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /PASS {2}\[spec\] {3}getOrderInfo\.exact-order/);
    assert.match(stdout, /seed 9 /);
    assert.match(stdout, /run marker CONF-/);
    // The contract judged against: in the first line (12 hex digits of its SHA-256) and in the summary (all 64).
    const sha256 = createHash('sha256').update(readFileSync(CONTRACT_JSON_PATH)).digest('hex');
    const path = shownPath(CONTRACT_JSON_PATH, PROJECT_ROOT); // the CLI runs in the project folder
    assert.ok(stdout.split('\n')[0]?.includes(`, contract ${path} (sha256 ${sha256.slice(0, 12)}…), seed 9,`), stdout.split('\n')[0]);
    assert.ok(stdout.includes(`\ncontract ${path} (sha256 ${sha256})\n`));
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

  it('exit 2: the line names the URL without its userinfo and shows no credential', async () => {
    const port = await closedPort();
    const { code, stderr } = await cli(['--base-url', `http://gate-user:gate-Pass-1234@127.0.0.1:${port}`, '--order-number', 'A'], {
      CONFORMANCE_TOKEN: 'tok-never-shown-123',
    });
    assert.equal(code, 2);
    assert.match(stderr, new RegExp(`nothing is listening at http://127\\.0\\.0\\.1:${port} `));
    assert.doesNotMatch(stderr, /gate-user|gate-Pass|tok-never/);
  });

  it('exit 2: a --contract file that is not there, one line naming the file, the reason and the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-cli-contract-'));
    try {
      const missing = join(dir, 'openapi.yaml');
      const { code, stdout, stderr } = await cli(['--contract', missing]);
      assert.equal(code, 2, stdout);
      assert.equal(stdout, '');
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.ok(stderr.startsWith(`goods-conformance: cannot read the contract ${missing}: ENOENT`), stderr);
      assert.match(stderr, /; pass --contract with a readable OpenAPI 3\.1 contract \(\.yaml or \.json\), or leave --contract out/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exit 2: a configuration error the answers show (the main order not found): the summary on stdout, one line naming the option on stderr', async () => {
    const server = await startReferenceServer();
    try {
      const { code, stdout, stderr } = await cli(['--base-url', server.url, '--order-number', 'ORD-NOT-THERE'], {
        CONFORMANCE_TOKEN: REFERENCE_TOKEN,
      });
      assert.equal(code, 2, stdout);
      assert.match(stdout, /^CONFIGURATION ERROR: \d+ passed, \d+ failed, \d+ skipped, \d+ not run of \d+ checks/m);
      assert.match(stdout, /^ {2}(PASS|FAIL|SKIP|NRUN) {2}\[spec\] {3}getOrderInfo\.valid-request-2xx/m, 'the checks are listed');
      assert.match(stdout, /\nexit code 2\n/);
      assert.equal(
        stderr,
        'goods-conformance: the main order "ORD-NOT-THERE" was answered 404 (not found); pass --order-number with an existing order with lots on this server\n',
      );
    } finally {
      await server.close();
    }
  });

  it('exit 2: a TLS certificate the run does not trust, one line with the reason and --ca', async () => {
    const server = await startReferenceServer([], {
      tls: { key: readFileSync(join(TESTING, 'tls-test-key.pem')), cert: readFileSync(join(TESTING, 'tls-test-cert.pem')) },
    });
    try {
      const { code, stderr } = await cli(['--base-url', server.url, '--order-number', 'ORD-2026-0001', '--token', 't']);
      assert.equal(code, 2);
      assert.equal(
        stderr,
        `goods-conformance: the TLS certificate of ${server.url} is not trusted (self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)); pass --ca FILE with the PEM certificate of the CA that signed it (e.g. your company CA)\n`,
      );
    } finally {
      await server.close();
    }
  });

  it('exit 2: bad arguments', async () => {
    const { code, stderr } = await cli(['--level', 'sloppy']);
    assert.equal(code, 2);
    assert.match(stderr, /--level must be spec or strict.*pass --level spec or --level strict/);
    assert.equal(stderr.trim().split('\n').length, 1);
  });
});

/** Every way `secret` can be read back from `text`: plain, percent-decoded, JSON-unescaped, base64 decoded at any offset, or a piece of 8 characters. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  const views: [string, string][] = [
    ['plain', text],
    ['JSON-unescaped', text.replace(/\\\//g, '/')],
    ['JSON-\\u-decoded', text.replace(/\\u([0-9A-Fa-f]{4})/g, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)))],
    [
      'percent-decoded',
      text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run;
        }
      }),
    ],
  ];
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
    for (let offset = 0; offset < 4; offset += 1) {
      const chunk = run.slice(offset);
      views.push([`base64 ${chunk}`, Buffer.from(chunk.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1')]);
    }
  }
  for (const [how, view] of views) if (view.includes(secret)) found.push(how);
  for (let i = 0; i + 8 <= secret.length; i += 1) if (text.includes(secret.slice(i, i + 8))) found.push(`piece ${secret.slice(i, i + 8)}`);
  return found;
}

describe('goods-conformance CLI: --help and --list-checks', function () {
  this.timeout(60_000);

  it('--help prints every option, the environment and the exit codes; exit 0', async () => {
    const { code, stdout, stderr } = await cli(['--help']);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `${HELP}\n`);
  });

  it('--list-checks prints every check of the level with its rule, sends nothing; exit 0', async () => {
    const { code, stdout } = await cli([
      '--list-checks',
      '--level',
      'strict',
      '--base-url',
      'http://127.0.0.1:9',
      '--token',
      't',
      '--order-number',
      'A',
    ]);
    assert.equal(code, 0, stdout);
    for (const check of CHECKS) {
      assert.ok(stdout.includes(`${check.id}`), check.id);
      assert.ok(stdout.includes(`rule: ${check.rule}`), check.rule);
    }
    const spec = await cli(['--list-checks']);
    assert.ok(!spec.stdout.includes('[strict]'));
    assert.ok(spec.stdout.includes('[spec]'));
  });
});

describe('goods-conformance CLI against a hostile server: no secret in any output, no raw escape on the console', function () {
  this.timeout(120_000);
  const TOKEN = 'tok-Hostile_Secret.4f9a2c71';
  const REJECTED = 'revoked-Secret-55x0q';
  const USER = 'gate-user-7731';
  const PASSWORD = 'gate-Pass-9876zz';

  it('echoed headers, userinfo, base64/percent/JSON forms (also \\u escapes): redacted in stdout, stderr, JSON, JUnit and HTML', async () => {
    const server = await startHostileServer(TOKEN);
    const output = mkdtempSync(join(tmpdir(), 'hostile-'));
    try {
      const baseUrl = server.url.replace('http://', `http://${USER}:${PASSWORD}@`);
      const { code, stdout, stderr } = await cli(
        [
          '--base-url',
          baseUrl,
          '--order-number',
          'ORD-2026-0001',
          '--level',
          'strict',
          '--rejected-token',
          REJECTED,
          '--reporter',
          'json,junit,html',
          '--output',
          output,
          '--timeout',
          '3000',
        ],
        { CONFORMANCE_TOKEN: TOKEN },
      );
      assert.equal(code, 1, stderr);
      // The secrets did reach the server (and came back in its answers).
      assert.ok(server.received.includes(`Bearer ${TOKEN}`));
      assert.ok(server.received.includes(`Bearer ${REJECTED}`));
      assert.ok(server.received.some((v) => v.startsWith('Basic ')));
      // The create checks ran too (the order has a lot): POST requests with the token, the rejected token and Basic.
      for (const authorization of [`Bearer ${TOKEN}`, `Bearer ${REJECTED}`]) {
        assert.ok(
          server.requests.some((r) => r.method === 'POST' && r.authorization === authorization),
          authorization,
        );
      }
      assert.ok(server.requests.some((r) => r.method === 'POST' && r.authorization.startsWith('Basic ')));
      const files = ['conformance.json', 'junit.xml', 'conformance.html'].map((f) => [f, readFileSync(join(output, f), 'utf8')] as const);
      for (const [where, text] of [['stdout', stdout], ['stderr', stderr], ...files] as const) {
        for (const secret of [TOKEN, REJECTED, USER, PASSWORD]) assert.deepEqual(leaks(text, secret), [], `${secret} in ${where}`);
        if (where !== 'stderr') assert.match(text, /<redacted>|&lt;redacted&gt;/, `${where} shows the echoed answers, redacted`);
      }
      // The console: the answers' escape sequences are shown escaped; no raw control character at all.
      assert.deepEqual(rawControls(stdout), []);
      assert.ok(stdout.includes('\\x1b[32mPASSED: 99 passed, 0 failed\\x1b[0m\\x07'));
      assert.match(stdout, /^FAILED: /m);
      assert.doesNotMatch(stdout, /^PASSED/m);
      assert.ok(stdout.includes(`against ${server.url},`), 'the target is shown without userinfo');
      // The reports are read by their consumers.
      const json = JSON.parse(readFileSync(join(output, 'conformance.json'), 'utf8')) as { target: string; outcome: string };
      assert.deepEqual(reportProblems(json), []);
      assert.equal(json.target, server.url);
      assert.equal(json.outcome, 'failed');
      const py = spawnSync(
        requireSystemTool('python3-junitparser'),
        [
          '-c',
          'import sys; from junitparser import JUnitXml; x = JUnitXml.fromfile(sys.argv[1]); print(sum(1 for s in x for c in s))',
          join(output, 'junit.xml'),
        ],
        { encoding: 'utf8' },
      );
      assert.equal(py.status, 0, py.stderr);
      assert.ok(Number(py.stdout) > 0);
    } finally {
      rmSync(output, { recursive: true, force: true });
      await server.close();
    }
  });
});
