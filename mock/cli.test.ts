import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startChild, waitForLine, type Child } from '../support/processes.js';
import { projectCli } from '../support/project-cli.js';
import { startRedis } from '../support/redis.js';
import { until } from '../support/wait.js';
import { HELP } from './cli-args.js';

interface Run {
  child: Child;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = startChild('goods-mock', projectCli('mock/cli', args), { env: { ...process.env, ...env } });
  const exited = child.closed.then(({ code }) => code);
  return { child, stdout: () => child.stdout(), stderr: () => child.stderr(), exited };
}

/** Waits for the start-up banner and answers the base URL. */
function started(proc: Run): Promise<string> {
  return waitForLine(proc.child, /listening on (http:\/\/\S+)/);
}

async function stop(proc: Run): Promise<void> {
  await proc.child.stop();
}

describe('goods-mock CLI (spawned process)', () => {
  let dir: string;
  const running: Run[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'goods-mock-cli-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map(stop));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // The messages of every bad option are tested in-process (cli-args.test.ts); here what only a process shows.
  it('--help prints the help text on stdout and exits 0', async () => {
    const proc = run(['--help']);
    running.push(proc);
    assert.equal(await proc.exited, 0);
    assert.equal(proc.stdout(), `${HELP}\n`);
  });

  it('exits 2 with a one-line message naming the option for a bad option', async () => {
    const proc = run(['--colour']);
    running.push(proc);
    assert.equal(await proc.exited, 2);
    const lines = proc
      .stderr()
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('npm warn'));
    assert.equal(lines.length, 1, proc.stderr());
    assert.match(lines[0] ?? '', /unknown option --colour/);
  });

  it('exits 1 naming the file, pointer and reason when a fixture is invalid', async () => {
    const fixtures = join(dir, 'bad-fixtures');
    mkdirSync(fixtures);
    writeFileSync(join(fixtures, 'broken.json'), JSON.stringify({ order: { id: 'x' }, containers: [], charges: [], lots: [] }));
    const proc = run(['--port', '0', '--fixtures', fixtures]);
    running.push(proc);
    assert.equal(await proc.exited, 1);
    assert.match(proc.stderr(), /broken\.json at \/order\/id: must be of type integer/);
  });

  it('prints the URL, the fixture orders and a working curl line; logs one line per request; stops on SIGTERM', async () => {
    const proc = run(['--token', 'frontend-1'], { PORT: '0' });
    running.push(proc);
    const url = await started(proc);
    const banner = proc.stdout();
    assert.match(banner, /ORD-2026-0001, ORD-2026-0002, WE 2026-0003/);
    const curl = /curl -H 'Authorization: Bearer ([^']+)' (\S+)/.exec(banner);
    assert.ok(curl?.[1] && curl[2], banner);
    assert.equal(curl[1], 'frontend-1');
    assert.ok(curl[2].startsWith(url));
    const response = await fetch(curl[2], { headers: { Authorization: `Bearer ${curl[1]}` } });
    assert.equal(response.status, 200);
    await (await fetch(`${url}/nope`)).text();
    await until(() => /GET \/nope 404/.test(proc.stderr()), { what: 'the request log lines' });
    assert.match(proc.stderr(), /GET \/manualProduction\/rest\/v1\/orders\/info\/ORD-2026-0001 200 \d+\.\dms/);
    assert.match(proc.stderr(), /GET \/nope 404 \d+\.\dms/);
    proc.child.process.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
  });

  it('--token: the banner prints the dashboard link with the token in its fragment, once; the request log never shows a token it knows', async () => {
    const proc = run(['--port', '0', '--token', 'frontend-1', '--admin-token', 'admin-secret-2']);
    running.push(proc);
    const url = await started(proc);
    const banner = proc.stdout();
    assert.equal(
      banner
        .split('\n')
        .filter((line) => line.startsWith('Dashboard: '))
        .join('\n'),
      `Dashboard: ${url}/__mock/#token=frontend-1`,
    );
    assert.equal(banner.split(`${url}/__mock/#token=frontend-1`).length - 1, 1, 'the link is printed once');
    // Tokens typed into URLs by mistake: hidden in the log, known ones anywhere, unknown ones where credentials go.
    for (const target of ['/__mock/?token=frontend-1', '/nope/frontend-1', '/nope?access_token=unknown-credential', '/x/admin-secret-2'])
      await (await fetch(`${url}${target}`)).text();
    await until(() => (proc.stderr().match(/ 404 /g) ?? []).length >= 3, { what: 'the request log lines' });
    const log = proc.stderr();
    for (const secret of ['frontend-1', 'admin-secret-2', 'unknown-credential'])
      assert.ok(!log.includes(secret), `${secret} in the log:\n${log}`);
    assert.match(log, /GET \/__mock\/\?token=<redacted> 200 /);
    assert.match(log, /GET \/nope\/<redacted> 404 /);
    assert.match(log, /GET \/nope\?access_token=<redacted> 404 /);
  });

  it('names the store in the banner: memory, the journal and its file, Redis and its key prefix (a password never shown)', async () => {
    const memory = run(['--port', '0', '--quiet']);
    running.push(memory);
    await started(memory);
    assert.match(memory.stdout(), /^Store: memory \(lost when the mock stops; --state-file FILE keeps it\)$/m);
    const journal = run(['--port', '0', '--quiet', '--state-file', join(dir, 'banner.jsonl')]);
    running.push(journal);
    await started(journal);
    assert.ok(journal.stdout().includes(`Store: journal ${join(dir, 'banner.jsonl')} (`), journal.stdout());
    const redis = await startRedis();
    try {
      const password = 'banner-s3cret-pw';
      const admin = new Redis(redis.url);
      await admin.config('SET', 'requirepass', password);
      admin.disconnect();
      const shared = run(['--port', '0', '--store', `redis://:${password}@127.0.0.1:${redis.port}/0`, '--store-prefix', 'team-a']);
      running.push(shared);
      const url = await started(shared);
      assert.match(
        shared.stdout(),
        new RegExp(`^Store: Redis redis://<redacted>@127\\.0\\.0\\.1:${redis.port}/0, key prefix team-a$`, 'm'),
      );
      const health = (await (await fetch(`${url}/__mock/health`)).json()) as { store: { up: boolean; detail: string } };
      assert.equal(health.store.up, true, 'the password in the URL was used');
      assert.equal(health.store.detail, `Redis at redis://<redacted>@127.0.0.1:${redis.port}/0, key prefix team-a`);
      await stop(shared);
      assert.ok(!`${shared.stdout()}${shared.stderr()}`.includes(password), 'the password is never printed');
    } finally {
      await redis.dispose();
    }
  });

  it('--quiet prints no request lines', async () => {
    const proc = run(['--port', '0', '--quiet']);
    running.push(proc);
    const url = await started(proc);
    assert.match(
      proc.stdout(),
      new RegExp(`^Dashboard: ${url.replace(/[.]/g, '\\.')}/__mock/$`, 'm'),
      'without --token, no token in the link',
    );
    await (await fetch(`${url}/__mock/health`)).text();
    proc.child.process.kill('SIGINT');
    assert.equal(await proc.exited, 0);
    assert.doesNotMatch(proc.stderr(), /GET \/__mock\/health/);
  });
});
