/**
 * The contract drives the suite: for each of seven contract changes of the kind an API
 * team makes between versions, with no code change between them,
 * - the suite given the evolved contract (`contractPath`, as `--contract FILE`) passes the mock given
 *   the same contract at both levels;
 * - it fails (exit 1) the mock still on the old contract at the level of the change;
 * - the self-test kills every fault the change adds (the faults both contracts share are run for the
 *   bundled contract in self-test.test.ts), and the reference server of the evolved contract passes.
 */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { createMockServer } from '../mock/index.js';
import { resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import { generatedFaults } from './self-test/generated-faults.js';
import { runSelfTest } from './self-test/run.js';
import { EVOLUTIONS, writeEvolvedContract } from './testing/evolved.js';

const TOKEN = 'evolved-token';

async function startMock(contractPath?: string): Promise<{ url: string; close(): Promise<void> }> {
  return createMockServer({
    host: '127.0.0.1',
    port: 0,
    quiet: true,
    tokens: [TOKEN],
    rejectTokens: ['invalid'],
    ...(contractPath !== undefined ? { contractPath } : {}),
  });
}

async function suiteExit(url: string, contractPath: string, level: 'spec' | 'strict'): Promise<{ exitCode: number; failed: string[] }> {
  const config = resolveConformanceConfig({ baseUrl: url, token: TOKEN, level, seed: 11, contractPath, outputDir: 'reports/test' });
  const { exitCode, verdict } = await runConformance(config, { write: () => undefined });
  return { exitCode, failed: verdict.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}=${c.status}: ${c.message ?? ''}`) };
}

describe('evolved contracts drive the suite with no code change', function () {
  this.timeout(120_000);
  let old: { url: string; close(): Promise<void> };
  const bundledFaults = new Set(generatedFaults(readContract()).map((f) => f.fault));
  before(async () => {
    old = await startMock();
  });
  after(async () => {
    await old.close();
  });

  for (const evolution of EVOLUTIONS) {
    describe(evolution.name, () => {
      const path = writeEvolvedContract(evolution);

      it('the evolved suite passes the mock on the evolved contract at both levels', async () => {
        const mock = await startMock(path);
        try {
          for (const level of ['spec', 'strict'] as const) {
            const run = await suiteExit(mock.url, path, level);
            assert.deepEqual(run.failed, [], `${level}: every check passes`);
            assert.equal(run.exitCode, 0, level);
          }
        } finally {
          await mock.close();
        }
      });

      it(`the evolved suite fails the mock still on the old contract at ${evolution.level} (exit 1)`, async () => {
        const run = await suiteExit(old.url, path, evolution.level);
        assert.equal(run.exitCode, 1, run.failed.join('\n'));
      });

      it('the self-test of the evolved contract: the reference passes at both levels, every fault the change adds is killed', async () => {
        const document = readContract(path);
        const added = generatedFaults(document).filter((f) => !bundledFaults.has(f.fault));
        assert.ok(added.length > 0, 'the change adds faults');
        const result = await runSelfTest(document, { faults: added });
        assert.ok(result.reference.spec.passed && result.reference.strict.passed, JSON.stringify(result.reference));
        assert.deepEqual(
          result.survivors.map((s) => s.description),
          [],
        );
        assert.equal(result.killed, added.length);
      });
    });
  }
});
