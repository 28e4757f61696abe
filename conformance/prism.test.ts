/**
 * `prism mock contract/openapi.yaml` serves the contract's examples: it answers order
 * ORD-2026-0001 for every number and echoes nothing, so the suite fails it at the `spec` level.
 */
import assert from 'node:assert/strict';
import { CONTRACT_YAML_PATH } from '../contract/paths.js';
import { startPrism, type PrismProcess } from '../test/support/prism.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';

describe('conformance run against `prism mock contract/openapi.yaml`', function () {
  this.timeout(60_000);
  let prism: PrismProcess | undefined;
  let url = '';
  before(async () => {
    prism = await startPrism(['mock', CONTRACT_YAML_PATH]);
    url = prism.url;
  });
  after(async () => {
    await prism?.stop();
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
