/**
 * `prism mock contract/openapi.yaml` serves the contract's examples: it answers order
 * ORD-2026-0001 for every number and echoes nothing, so the suite fails it at the `spec` level.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function startPrism(port: number): Promise<ChildProcess> {
  const child = spawn(
    join(PROJECT_ROOT, 'node_modules/.bin/prism'),
    ['mock', '-h', '127.0.0.1', '-p', String(port), 'contract/openapi.yaml'],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`prism did not start within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (/listening on/i.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code}):\n${output}`));
    });
  });
}

describe('conformance run against `prism mock contract/openapi.yaml`', function () {
  this.timeout(60_000);
  let prism: ChildProcess | undefined;
  let url = '';
  before(async () => {
    const port = await freePort();
    prism = await startPrism(port);
    url = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    if (!prism || prism.exitCode !== null) return;
    const exited = new Promise((resolve) => prism?.once('exit', resolve));
    prism.kill();
    await exited;
  });

  it('fails at the spec level: the same order for every number, the example instead of the created record', async () => {
    const config = resolveConformanceConfig({ baseUrl: url, token: 'any-token', level: 'spec', seed: 1 });
    const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
    assert.equal(exitCode, 1);
    const failed = verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id);
    assert.ok(failed.includes('getOrderInfo.unknown-number-not-another-order'), failed.join(', '));
    assert.ok(failed.includes('createLotTransfer.echo'), failed.join(', '));
  });
});
