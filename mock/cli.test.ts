import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { PROJECT_ROOT } from '../contract/paths.js';
import { JSON_AUTH, SAMPLES_PATH, TRANSFERS_PATH } from './testing.js';

const CLI = join(PROJECT_ROOT, 'mock', 'cli.ts');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for the start-up banner and answers the base URL. */
async function started(proc: Run): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(proc.stdout());
    if (match?.[1]) return match[1];
    if (proc.child.exitCode !== null) throw new Error(`the CLI exited: ${proc.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the CLI did not start in time');
}

async function stop(proc: Run): Promise<void> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await proc.exited;
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

  it('--help lists every option and exits 0', async () => {
    const proc = run(['--help']);
    running.push(proc);
    assert.equal(await proc.exited, 0);
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
    ]) {
      assert.ok(proc.stdout().includes(option), option);
    }
  });

  it('exits 2 with a one-line message naming the option for an unknown option or a bad value', async () => {
    for (const [args, pattern] of [
      [['--colour'], /unknown option --colour/],
      [['--port', 'abc'], /--port must be a whole number/],
      [['--latency', '-5'], /latency/],
      [['--cors-origin', 'localhost:5173/app'], /--cors-origin must be/],
      [['--token', 'a b'], /b64token/],
      [['extra'], /unexpected argument "extra"/],
    ] as const) {
      const proc = run([...args]);
      running.push(proc);
      assert.equal(await proc.exited, 2, args.join(' '));
      const lines = proc
        .stderr()
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('npm warn'));
      assert.equal(lines.length, 1, proc.stderr());
      assert.match(lines[0] ?? '', pattern);
    }
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
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(proc.stderr(), /GET \/manualProduction\/rest\/v1\/orders\/info\/ORD-2026-0001 200 \d+\.\dms/);
    assert.match(proc.stderr(), /GET \/nope 404 \d+\.\dms/);
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
  });

  it('--quiet prints no request lines', async () => {
    const proc = run(['--port', '0', '--quiet']);
    running.push(proc);
    const url = await started(proc);
    await (await fetch(`${url}/__mock/health`)).text();
    proc.child.kill('SIGINT');
    assert.equal(await proc.exited, 0);
    assert.doesNotMatch(proc.stderr(), /GET \/__mock\/health/);
  });

  it('kill -9 during a burst of creates loses no answered create; ids continue after restart', async () => {
    const stateFile = join(dir, 'crash.jsonl');
    const first = run(['--port', '0', '--quiet', '--state-file', stateFile]);
    running.push(first);
    const url = await started(first);
    const answered: Record<string, unknown>[] = [];
    let stopFlag = false;
    const worker = async (w: number) => {
      for (let n = 0; !stopFlag; n++) {
        const path = n % 2 === 0 ? TRANSFERS_PATH : SAMPLES_PATH;
        const body =
          n % 2 === 0
            ? { fk_lot_id: 2001, source_scancode: `W${w}`, target_scancode: `N${n}`, amount: 1 }
            : { fk_lot_id: 2001, fk_user_id: w + 1 };
        try {
          const response = await fetch(`${url}${path}`, { method: 'POST', headers: JSON_AUTH, body: JSON.stringify(body) });
          if (response.status === 201) answered.push({ path, ...((await response.json()) as Record<string, unknown>) });
        } catch {
          return; // the process was killed mid-request
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    while (answered.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    await first.exited;
    stopFlag = true;
    await Promise.all(workers);

    const second = run(['--port', '0', '--quiet', '--state-file', stateFile]);
    running.push(second);
    const url2 = await started(second);
    const transfers = (await (await fetch(`${url2}/__mock/lot-transfers`)).json()) as Record<string, unknown>[];
    const samples = (await (await fetch(`${url2}/__mock/test-samples`)).json()) as Record<string, unknown>[];
    for (const record of answered) {
      const { path, ...stored } = record;
      const list = path === TRANSFERS_PATH ? transfers : samples;
      const matches = list.filter((r) => JSON.stringify(r) === JSON.stringify(stored));
      assert.equal(matches.length, 1, `answered ${JSON.stringify(stored)} present exactly once`);
    }
    for (const list of [transfers, samples]) {
      const ids = list.map((r) => r['id'] as number);
      assert.equal(new Set(ids).size, ids.length, 'ids unique');
    }
    const maxTransfer = Math.max(...transfers.map((r) => r['id'] as number));
    const next = await fetch(`${url2}${TRANSFERS_PATH}`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ fk_lot_id: 2001, source_scancode: 'A', target_scancode: 'B', amount: 1 }),
    });
    assert.equal(next.status, 201);
    assert.ok(((await next.json()) as { id: number }).id > maxTransfer, 'ids continue after the highest recorded id');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});
