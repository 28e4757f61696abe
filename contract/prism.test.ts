/**
 * The contract works with the ecosystem's standard mock: `prism mock contract/openapi.yaml` serves
 * every operation from the contract's examples, and each answer is valid at the strict level.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject, readContract } from './document.js';
import { CONTRACT_YAML_PATH, PROJECT_ROOT } from './paths.js';
import { compileContract } from './schemas.js';

const PRISM = join(PROJECT_ROOT, 'node_modules', '.bin', 'prism');
const READY_WITHIN_MS = 60_000;

/** A port that was free a moment ago (the OS picks it). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  assert.ok(address && typeof address === 'object');
  return address.port;
}

/** Stops the process group of `child` (prism and anything it started): TERM, then KILL. */
async function stop(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const grace = new AbortController();
  const result = await Promise.race([
    exited.then(() => 'exited'),
    sleep(5_000, 'timeout', { signal: grace.signal }).catch(() => 'cancelled'),
  ]);
  grace.abort();
  if (result === 'timeout') {
    signal('SIGKILL');
    await exited;
  }
}

describe('prism mock serves the contract (npx prism mock contract/openapi.yaml)', function () {
  this.timeout(READY_WITHIN_MS + 30_000);
  const strict = compileContract(readContract(), 'strict');
  let child: ChildProcess | undefined;
  let base = '';
  let output = '';

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(PRISM, ['mock', CONTRACT_YAML_PATH, '-p', String(port), '-h', '127.0.0.1'], {
      cwd: PROJECT_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer): void => {
      output = `${output}${chunk.toString('utf8')}`.slice(-20_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (child.exitCode !== null) assert.fail(`prism exited with code ${child.exitCode} before answering:\n${output}`);
      try {
        await fetch(`${base}/`, { signal: AbortSignal.timeout(2_000) });
        return;
      } catch {
        if (Date.now() > deadline) assert.fail(`prism did not answer on ${base} within ${READY_WITHIN_MS} ms:\n${output}`);
        await sleep(250);
      }
    }
  });

  after(async () => {
    if (child) await stop(child);
  });

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { Authorization: 'Bearer t' }) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      assert.fail(`${method} ${path}: the answer is not JSON (${response.status}): ${text.slice(0, 200)}`);
    }
    return { status: response.status, type: response.headers.get('content-type') ?? '', json };
  }

  const check = (schema: string, value: unknown) =>
    assert.deepEqual(strict.validator({ $ref: `#/components/schemas/${schema}` })(value), [], `a valid ${schema} at strict`);

  it('GET order info: 200 application/json with the four members, valid at strict', async () => {
    const answer = await call('GET', '/manualProduction/rest/v1/orders/info/ORD-2026-0001');
    assert.equal(answer.status, 200);
    assert.match(answer.type, /^application\/json/);
    assert.ok(isObject(answer.json));
    assert.deepEqual(Object.keys(answer.json).sort(), ['charges', 'containers', 'lots', 'order']);
    check('OrderInfo', answer.json);
  });

  it('POST lot transfer: 201 application/json, a valid LotTransfer', async () => {
    const body = { fk_lot_id: 2001, source_scancode: 'SRC-0001', target_scancode: 'TGT-0001', amount: 12.5 };
    const answer = await call('POST', '/goodsReception/rest/v1/lot-transfers/create', body);
    assert.equal(answer.status, 201);
    assert.match(answer.type, /^application\/json/);
    check('LotTransfer', answer.json);
  });

  it('POST test sample: 201 application/json, a valid TestSample', async () => {
    const answer = await call('POST', '/goodsReception/rest/v1/test-samples/create', { fk_lot_id: 2001, fk_user_id: 42 });
    assert.equal(answer.status, 201);
    assert.match(answer.type, /^application\/json/);
    check('TestSample', answer.json);
  });

  it('without credentials prism answers the contract 401 problem', async () => {
    const answer = await call('GET', '/manualProduction/rest/v1/orders/info/ORD-2026-0001', undefined, {});
    assert.equal(answer.status, 401);
    check('Problem', answer.json);
  });
});
