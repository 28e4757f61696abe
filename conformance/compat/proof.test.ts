/**
 * The proof runs (`--prove`) on every pair of `testing/compat-pairs.ts` (about 1 s a pair): the mock of
 * each contract, the suite of the other. Each change's proof status is the expected one and no run
 * disagrees with the static verdict; a wrong static verdict is reported as a disagreement; a contract
 * the mock cannot serve stops the proof (exit 2).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { readContract } from '../../contract/document.js';
import { checksFor } from '../checks/index.js';
import { COMPAT_PAIRS, pairNamed, writePair, type CompatPair } from '../testing/compat-pairs.js';
import { diffContracts } from './diff.js';
import { conclude, type Change, type Proof } from './model.js';
import { clientChecks, prove } from './proof.js';

async function proven(
  pair: CompatPair,
  level: 'spec' | 'strict' = 'strict',
  alter: (changes: Change[]) => Change[] = (c) => c,
): Promise<{ proof: Proof; changes: Change[] }> {
  const paths = writePair(pair);
  try {
    const old = { document: readContract(paths.old), path: paths.old };
    const next = { document: readContract(paths.new), path: paths.new };
    return await prove(old, next, alter(diffContracts(old.document, next.document)), { level, seed: 7 });
  } finally {
    rmSync(paths.dir, { recursive: true, force: true });
  }
}

const JUDGED = { path: 'x', sha256: '0'.repeat(64) };

describe('compat: the proof runs agree with the static verdict', function () {
  this.timeout(60_000);

  it('the clients run keeps the checks of what a client relies on and leaves out those of refused requests', () => {
    const ids = clientChecks(checksFor(readContract())).map((c) => c.id);
    for (const kept of [
      'createLotTransfer.valid-request-2xx',
      'createLotTransfer.echo',
      'createTestSample.defaults',
      'getOrderInfo.answer-shape',
    ])
      assert.ok(ids.includes(kept), kept);
    for (const left of [
      'createLotTransfer.out-of-bounds-400',
      'getOrderInfo.auth-missing-401',
      'createTestSample.unknown-lot-422',
      'server.no-5xx',
    ])
      assert.ok(!ids.includes(left), left);
  });

  for (const pair of COMPAT_PAIRS.filter((p) => p.mockRefuses === undefined)) {
    it(`${pair.name}: each change's proof status, no disagreement`, async () => {
      const { proof, changes } = await proven(pair);
      assert.deepEqual(proof.disagreements, []);
      assert.deepEqual(
        changes.map((c) => [c.id, c.proof]),
        pair.changes.map((e) => [e.id, e.proof]),
      );
      for (const run of proof.runs) {
        assert.equal(run.error, undefined);
        assert.equal(
          run.failures.length > 0,
          changes.some((c) => c[run.side] === 'breaking' && c.proof?.[run.side] === 'confirmed'),
          run.side,
        );
      }
    });
  }

  it('at level spec a profile rule is out of level: both spec-level runs pass', async () => {
    const { proof, changes } = await proven(pairNamed('a default changed'), 'spec');
    assert.deepEqual(
      proof.runs.map((r) => [r.side, r.failures, r.error]),
      [
        ['clients', [], undefined],
        ['servers', [], undefined],
      ],
    );
    assert.deepEqual(changes[0]?.proof, { clients: 'out-of-level', servers: 'out-of-level' });
  });

  it('a static verdict the runs contradict is a disagreement, never hidden: it makes the side breaking (exit 1)', async () => {
    const pair = pairNamed('a request bound narrowed (a maximum added)');
    // A wrong rule: the narrowed bound called compatible for both sides.
    const wrong = (changes: Change[]): Change[] => changes.map((c) => ({ ...c, clients: 'compatible', servers: 'compatible' }));
    const { proof, changes } = await proven(pair, 'strict', wrong);
    assert.deepEqual([...new Set(proof.disagreements.map((d) => d.side))], ['clients', 'servers']);
    assert.ok(proof.disagreements.some((d) => d.check === 'createLotTransfer.valid-request-2xx' && d.changes.length > 0));
    assert.equal(changes[0]?.proof?.clients, 'contradicted');
    const report = conclude({ old: JUDGED, new: JUDGED, level: 'strict', failOn: 'servers', changes, proof });
    assert.deepEqual([report.verdict, report.exitCode], [{ clients: 'breaking', servers: 'breaking' }, 1]);
  });

  it('a contract the mock cannot serve: that run could not be made, named with the fix (exit 2)', async () => {
    const pair = COMPAT_PAIRS.find((p) => p.mockRefuses !== undefined);
    assert.ok(pair);
    const { proof, changes } = await proven(pair);
    const clients = proof.runs.find((r) => r.side === 'clients');
    assert.match(
      clients?.error ?? '',
      /^the mock did not start on the new contract .*new\.json: .*; the proof needs the mock to serve both contracts \(pass --fixtures DIR .*\), or leave --prove out$/,
    );
    assert.deepEqual(
      changes.map((c) => c.proof),
      pair.changes.map((e) => e.proof),
    );
    const report = conclude({ old: JUDGED, new: JUDGED, level: 'strict', failOn: 'clients', changes, proof });
    assert.equal(report.exitCode, 2);
    assert.equal(report.error, clients?.error);
  });
});
