/**
 * One list of checks, read by all three tools: a check written as ONE module (the fixture
 * `test/support/date-check.ts`) and added to the list with ONE entry is run by the suite,
 * applied by the validating proxy, and its fault is in the self-test's table, served by the reference
 * server and caught by that check alone. And the registered list itself: every module's checks and
 * observations have unique ids, and each check has its fault.
 */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import { CHECK_MODULES, type CheckModule } from '../checks/index.js';
import { createJudge } from '../mock/proxy/judge.js';
import type { ProxyExchange } from '../mock/proxy/exchange.js';
import { CheckContext } from '../conformance/context.js';
import { faultCasesOf } from '../conformance/self-test/faults.js';
import { referenceRunConfig, startReferenceServer } from '../conformance/self-test/reference-server.js';
import { prepareChecks, runCheck } from '../conformance/suite.js';
import { DATE_FAULT, dateHeader } from './support/date-check.js';
import { BUNDLED } from '../conformance/checks/helpers.js';
import { checksOf } from '../conformance/checks/index.js';

const document = readContract();
/** The one entry that adds the new check. */
const WITH_NEW_CHECK = [...CHECK_MODULES, dateHeader];

/** Check id → status of a whole run of the checks of `modules` against the reference server with `faults`. */
async function verdicts(
  faults: readonly string[],
  modules: readonly CheckModule[] = WITH_NEW_CHECK,
  level: Level = 'strict',
): Promise<Map<string, string>> {
  const server = await startReferenceServer(faults, { checks: modules });
  try {
    const ctx = new CheckContext({ config: referenceRunConfig(server.url, level, 7, 'reports/test'), baseUrl: server.url, document });
    const checks = checksOf(BUNDLED, modules);
    ctx.planWrites(checks);
    await prepareChecks(checks, ctx);
    const statuses = new Map<string, string>();
    for (const check of checks) statuses.set(check.id, (await runCheck(check, ctx)).status);
    await ctx.http.close();
    return statuses;
  } finally {
    await server.close();
  }
}

const failing = (map: Map<string, string>): string[] => [...map].filter(([, s]) => s === 'failed').map(([id]) => id);

/** What the proxy saw: an order read answered with `headers`. */
function seen(headers: Record<string, string>): ProxyExchange {
  return {
    method: 'GET',
    target: '/nowhere',
    request: { headers: {}, body: Buffer.alloc(0), complete: true },
    answer: { status: 404, headers: { 'content-type': 'application/problem+json', ...headers }, body: Buffer.alloc(0), complete: true },
    durationMs: 1,
  };
}

describe('the one list of checks (checks/index.ts)', () => {
  it('a new check module with one list entry: the suite lists it, in the whole-server group that runs last', () => {
    const ids = checksOf(BUNDLED, WITH_NEW_CHECK).map((c) => c.id);
    assert.equal(ids.at(-1), 'server.date-header');
    assert.deepEqual(
      ids.slice(0, -1),
      checksOf(BUNDLED).map((c) => c.id),
    );
  });

  it('the suite runs it: it passes against the correct reference server, and its fault fails it alone', async () => {
    const correct = await verdicts([]);
    assert.equal(correct.get('server.date-header'), 'passed');
    assert.deepEqual(failing(correct), []);
    assert.deepEqual(failing(await verdicts([DATE_FAULT])), ['server.date-header']);
    // Without the entry the fault is served by no one: the reference server's answers are as correct ones.
    assert.deepEqual(failing(await verdicts([DATE_FAULT], CHECK_MODULES)), []);
  });

  it('the self-test finds its fault: the fault table of the list has its row', () => {
    assert.deepEqual(
      faultCasesOf(BUNDLED, WITH_NEW_CHECK).filter((f) => f.check === 'server.date-header'),
      [{ check: 'server.date-header', faults: [DATE_FAULT] }],
    );
    assert.equal(
      faultCasesOf(BUNDLED).some((f) => f.check === 'server.date-header'),
      false,
    );
  });

  it('the proxy applies it to traffic it observes (at strict; not at spec, its level being strict)', () => {
    const judge = createJudge(document, 'strict', WITH_NEW_CHECK);
    assert.ok(judge.judgments.some((j) => j.id === 'answer.date-header'));
    const broken = judge.judge(seen({ date: '2026-11-26T10:00:00Z' })).filter((v) => v.rule === 'answer.date-header');
    assert.deepEqual(broken, [
      {
        side: 'server',
        operation: 'unknown',
        rule: 'answer.date-header',
        level: 'strict',
        in: 'header',
        pointer: 'date',
        reason: 'the Date header is "2026-11-26T10:00:00Z"',
      },
    ]);
    assert.deepEqual(
      judge.judge(seen({ date: 'Thu, 26 Nov 2026 10:00:00 GMT' })).filter((v) => v.rule === 'answer.date-header'),
      [],
    );
    assert.equal(
      createJudge(document, 'strict')
        .judge(seen({ date: 'yesterday' }))
        .some((v) => v.rule === 'answer.date-header'),
      false,
    );
    assert.equal(
      createJudge(document, 'spec', WITH_NEW_CHECK).judgments.some((j) => j.id === 'answer.date-header'),
      false,
    );
  });

  it("every check of the suite is a module of the list: the suite runs exactly the modules' checks, in the list's order", () => {
    assert.deepEqual(
      checksOf(BUNDLED).map((c) => c.id),
      CHECK_MODULES.flatMap((m) => m.suite(BUNDLED).map((c) => c.id)),
    );
    // The creates' checks are modules too (their cases built from the data generator the suite hands them).
    assert.ok(checksOf(BUNDLED).some((c) => c.id === 'createLotTransfer.echo'));
    assert.ok(checksOf(BUNDLED).some((c) => c.id === 'createLotTransfer.missing-required-400'));
  });

  it('every registered check and observation has a unique id, each check at least one fault row, each fault row a registered check', () => {
    const checks = CHECK_MODULES.flatMap((m) => m.suite(BUNDLED).map((c) => c.id));
    assert.equal(new Set(checks).size, checks.length);
    const observed = CHECK_MODULES.flatMap((m) => m.observe.map((o) => o.id));
    assert.equal(new Set(observed).size, observed.length);
    const rows = CHECK_MODULES.flatMap((m) => m.faultCases(BUNDLED));
    assert.deepEqual(
      checks.filter((id) => !rows.some((r) => r.check === id)),
      [],
    );
    assert.deepEqual(
      rows.filter((r) => !checks.includes(r.check)),
      [],
    );
  });
});
