/**
 * The self-test of contracts the hand-written reference server cannot serve (support/grown-contracts.ts:
 * the bundled contract grown with reads, lists, changes, an action, a delete, a new create and an API-key
 * scheme, with and without its declared link, with its paths in another order; the small books API with
 * an ISBN as key): the mock is the correct server, and every fault is a front applying one override of
 * the table. In `npm test`: the reference passes at both levels, every fault of the record and credential
 * kinds is killed, and one fault of each kind and keyword of the schema faults (the whole table of
 * every contract: `test/self-test-grown.check.ts`, `npm run check:self-test`); a variant of a contract (without
 * its link, its paths in another order) gives the same faults and the same checks. A
 * server lying across exchanges, or accepting any credential, fails a plain conformance run (exit 1).
 */
import assert from 'node:assert/strict';
import type { OpenApiDocument } from '../../contract/document.js';
import { judgeContexts } from '../../judgments/context.js';
import { RECORDS } from '../../judgments/rules.js';
import { booksContract, contractFile, grownContract } from '../../support/grown-contracts.js';
import { checksFor } from '../checks/index.js';
import { MOCK_ORDER_NUMBER, resolveConformanceConfig } from '../config.js';
import { runConformance } from '../run.js';
import { generatedFaults, referenceBase, type GeneratedFault } from './generated-faults.js';
import { startMockReference } from './mock-reference.js';
import { REFERENCE_TOKEN } from './reference-server.js';
import { renderSelfTest, runSelfTest, selfTestExitCode } from './run.js';

/**
 * The contracts, with the override kinds each must have faults of (what its operations model gives).
 * `variantOf`: the same API as another contract of the list (without the link, the paths in another
 * order): it must give the same faults and the same checks; the faults are run on the contract it
 * varies (on the variant itself by `npm run check:self-test`).
 */
const CONTRACTS: { label: string; make: () => OpenApiDocument; kinds: string[]; variantOf?: () => OpenApiDocument }[] = [
  { label: 'the grown contract (a link declared)', make: () => grownContract(), kinds: grownKinds() },
  {
    label: 'the grown contract without the link',
    make: () => grownContract({ links: false }),
    kinds: grownKinds(),
    variantOf: () => grownContract(),
  },
  {
    label: 'the grown contract, its paths in another order',
    make: () => grownContract({ reversed: true }),
    kinds: grownKinds(),
    variantOf: () => grownContract(),
  },
  {
    label: 'the books API (no lots, an ISBN as key)',
    make: () => booksContract(),
    kinds: [
      'read-other',
      'unknown-key-answered',
      'list-ignores-filters',
      'delete-not-done',
      'delete-again-done',
      'duplicate-key-accepted',
      'scheme-not-enforced',
      'other-scheme-accepted',
      'auth-403',
    ],
  },
];

function grownKinds(): string[] {
  return [
    'read-other',
    'unknown-key-answered',
    'list-ignores-filters',
    'list-ignores-paging',
    'change-not-stored',
    'refused-change-applied',
    'action-repeatable',
    'action-not-stored',
    'delete-not-done',
    'delete-again-done',
    'deleted-id-reused',
    'scheme-not-enforced',
    'other-scheme-accepted',
    'api-key-any-place',
    'auth-403',
  ];
}

const kindOf = (fault: GeneratedFault): string => fault.fault.split('|')[0] ?? '';

/** Every record fault, the first of each credential kind, and the first of each kind and keyword of the schema faults. */
function sample(faults: readonly GeneratedFault[]): GeneratedFault[] {
  const seen = new Set<string>();
  return faults.filter((f) => {
    if (f.kind === 'record') return true;
    const family = `${kindOf(f)}|${f.kind === 'auth' ? '' : (f.fault.split('|')[3] ?? '')}`;
    if (seen.has(family)) return false;
    seen.add(family);
    return true;
  });
}

/** The lies across exchanges the liar server tells: reads answer another record, lists ignore filters, changes, actions and deletes do not stick. */
const CROSS_EXCHANGE_LIES = ['read-other', 'list-ignores-filters', 'change-not-stored', 'action-not-stored', 'delete-not-done'];

/** A conformance run, as `goods-conformance --contract FILE --base-url URL` makes it, against a server with `faults`. */
async function runAgainstLiar(document: OpenApiDocument, faults: readonly string[], level: 'spec' | 'strict') {
  const server = await startMockReference(document, faults);
  try {
    const model = judgeContexts(document).strict.model;
    return await runConformance(
      resolveConformanceConfig({
        contractPath: contractFile(document, 'liar'),
        baseUrl: server.url,
        token: REFERENCE_TOKEN,
        ...(model.orderInfo !== undefined ? { orderNumber: MOCK_ORDER_NUMBER } : {}),
        level,
        seed: 5,
        outputDir: 'reports',
        reporters: ['console'],
      }),
      { write: () => undefined },
    );
  } finally {
    await server.close();
  }
}

for (const { label, make, kinds, variantOf } of CONTRACTS)
  describe(`the self-test of ${label}`, function () {
    // A guard against a hang, not a speed goal: inside a whole `npm test` on two busy cores one of these
    // has taken over a minute of wall time for under half of that in CPU.
    this.timeout(300_000);
    const document = make();
    const faults = generatedFaults(document);

    it('is made on the mock, with a fault of every override kind the contract has, each once', () => {
      assert.equal(referenceBase(judgeContexts(document).strict.model), 'mock');
      const present = new Set(faults.filter((f) => f.kind === 'record' || f.kind === 'auth').map(kindOf));
      assert.deepEqual([...present].sort(), [...kinds].sort());
      assert.equal(new Set(faults.map((f) => f.fault)).size, faults.length, 'each fault once');
      assert.deepEqual([...new Set(faults.map((f) => f.kind))].sort(), ['answer', 'auth', 'record', 'request']);
      if (variantOf !== undefined)
        assert.deepEqual(
          faults.map((f) => `${f.fault} at ${f.level}`).sort(),
          generatedFaults(variantOf())
            .map((f) => `${f.fault} at ${f.level}`)
            .sort(),
          'the same faults as the contract it varies',
        );
    });

    if (variantOf !== undefined) {
      it('derives the same checks as the contract it varies (their kills: npm run check:self-test)', () => {
        const mine = checksFor(document).map((c) => `${c.id} at ${c.level}: ${c.cases.join(' | ')}`);
        const theirs = checksFor(variantOf()).map((c) => `${c.id} at ${c.level}: ${c.cases.join(' | ')}`);
        assert.deepEqual([...mine].sort(), [...theirs].sort());
      });
      return;
    }

    it('the reference passes at both levels; every record fault, a fault of each credential kind and of each schema keyword is killed', async () => {
      const chosen = sample(faults);
      const result = await runSelfTest(document, { faults: chosen });
      assert.equal(result.base, 'mock');
      assert.ok(result.reference.spec.passed, `the reference at spec: ${result.reference.spec.failed.join(', ')}`);
      assert.ok(result.reference.strict.passed, `the reference at strict: ${result.reference.strict.failed.join(', ')}`);
      assert.deepEqual(
        result.survivors.map((s) => `${s.fault}: ${s.description}`),
        [],
      );
      assert.equal(result.killed, chosen.length);
      assert.equal(selfTestExitCode(result), 0);
      // Each record fault is killed by a check of its own operation.
      for (const f of chosen.filter((c) => c.kind === 'record'))
        assert.ok(
          result.killedBy.get(f.fault)?.startsWith(`${f.operation}.`),
          `${f.fault} killed by ${result.killedBy.get(f.fault) ?? 'none'}`,
        );
      assert.match(renderSelfTest(result, label), new RegExp(`killed ${chosen.length}/${chosen.length} faults \\(100\\.0%\\)`));
    });

    it('a server lying across exchanges (reads another record, ignores filters, changes, actions and deletes not kept) fails the suite at strict (exit 1) on exactly those rules', async () => {
      const lies = faults.filter((f) => CROSS_EXCHANGE_LIES.includes(kindOf(f))).map((f) => f.fault);
      assert.ok(lies.length >= 3, lies.join(', '));
      const run = await runAgainstLiar(document, lies, 'strict');
      assert.equal(run.verdict.exitCode, 1);
      const failed = run.verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id);
      // Every lie is caught by its own rule, and nothing else fails: each answer on its own keeps every rule.
      const wanted = faults
        .filter((f) => CROSS_EXCHANGE_LIES.includes(kindOf(f)))
        .map(
          (f) =>
            ({
              'read-other': 'read-back',
              'list-ignores-filters': 'filters',
              'change-not-stored': 'change-sticks',
              'action-not-stored': 'applies',
              'delete-not-done': 'deletes',
            })[kindOf(f)],
        )
        .filter((aspect): aspect is string => aspect !== undefined);
      for (const aspect of new Set(wanted))
        assert.ok(
          failed.some((id) => id.endsWith(`.${aspect}`)),
          `a .${aspect} check fails: ${failed.join(', ')}`,
        );
      const acrossExchanges = new Set<string>(Object.values(RECORDS).filter((rule) => rule !== RECORDS.answers));
      const single = run.verdict.checks.filter((c) => c.status === 'failed' && !acrossExchanges.has(c.rule)).map((c) => c.id);
      assert.deepEqual(single, [], 'no check of single exchanges fails');
    });

    it('a server accepting any credential fails the suite (exit 1) on the credential checks of every secured operation', async () => {
      const secured = faults.filter((f) => kindOf(f) === 'scheme-not-enforced');
      assert.ok(secured.length > 0);
      const run = await runAgainstLiar(
        document,
        secured.map((f) => f.fault),
        'spec',
      );
      assert.equal(run.verdict.exitCode, 1);
      const failed = new Set(run.verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id));
      for (const f of secured) assert.ok(failed.has(`${f.operation}.auth-missing-no-2xx`), `${f.operation}: credentials missing, yet 2xx`);
    });
  });
