/**
 * A server that follows the specification but not the profile (200 on create, plain-text errors,
 * 403 instead of 401, other date formats) passes `spec` and fails `strict`.
 */
import assert from 'node:assert/strict';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer, type ReferenceServer } from './self-test/reference-server.js';

const SPEC_ONLY = ['create-200', 'plain-text-errors', 'auth-403', 'order-date-format', 'created-format'];

describe('a server that follows the specification but not the profile', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startReferenceServer(SPEC_ONLY);
  });
  after(() => server.close());

  const run = (level: 'spec' | 'strict') =>
    runConformance(resolveConformanceConfig({ baseUrl: server.url, token: REFERENCE_TOKEN, level, seed: 3 }), { write: () => undefined });

  it('passes the spec level', async () => {
    const { exitCode, verdict } = await run('spec');
    assert.deepEqual(
      verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message ?? ''}`),
      [],
    );
    assert.equal(exitCode, 0);
  });

  it('fails the strict level, naming each profile rule it breaks', async () => {
    const { exitCode, verdict } = await run('strict');
    assert.equal(exitCode, 1);
    const failed = new Set(verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id));
    for (const id of [
      'createLotTransfer.status-201',
      'createTestSample.status-201',
      'server.problem-details',
      'getOrderInfo.auth-missing-401',
      'createTestSample.auth-rejected-401',
      'getOrderInfo.strict-shape',
      'createLotTransfer.strict-shape',
    ]) {
      assert.ok(failed.has(id), `${id} fails`);
    }
    assert.ok(
      verdict.checks.filter((c) => c.level === 'spec').every((c) => c.status === 'passed'),
      'the spec checks still pass',
    );
  });
});
