/**
 * conformance/suite.ts with small checks of its own (no server: the checks send nothing): which
 * checks a level runs, their groups, one check to its result (preconditions, cases, a check that
 * throws), and the mocha run: results in registration order whatever order checks end in, all at
 * once above --concurrency 1, one by one at 1, the whole-server checks after every other.
 */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import { withOrder } from '../contract/operations-model.js';
import type { Check } from './checks/types.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from './config.js';
import { CheckContext } from './context.js';
import { CheckFailure, CheckNotRun, CheckSkipped } from './failure.js';
import type { OperationGroup } from '../report/results.js';
import { checksOfLevel, groups, runCheck, runSuite } from './suite.js';

const document = readContract();
const NOWHERE = 'http://127.0.0.1:1';

function context(config: ConformanceConfigInput = {}, deadline?: number): CheckContext {
  return new CheckContext({
    config: resolveConformanceConfig({ baseUrl: NOWHERE, token: 't', ...config }),
    baseUrl: NOWHERE,
    document,
    ...(deadline !== undefined ? { deadline } : {}),
  });
}

const ctx0 = context();
const orderOp = withOrder(ctx0.model).orderInfo.operationId;
const [order, transfers] = [orderOp, ctx0.model.createIds[0] ?? orderOp];

function check(id: string, run: Check['run'], options: { level?: Level; operation?: OperationGroup; write?: boolean } = {}): Check {
  return {
    id,
    level: options.level ?? 'spec',
    operations: options.operation === undefined ? [order] : [options.operation],
    title: `title of ${id}`,
    rule: `rule of ${id}`,
    ...(options.write !== undefined ? { write: options.write } : {}),
    cases: ['the case'],
    run,
  };
}

const passes = (id: string, options: Parameters<typeof check>[2] = {}) =>
  check(id, (_ctx, t) => t.run('the case', () => undefined), options);

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('conformance/suite', () => {
  it('checksOfLevel: spec runs the spec checks, strict runs every check', () => {
    const checks = [passes('a', { level: 'spec' }), passes('b', { level: 'strict' }), passes('c', { level: 'spec' })];
    assert.deepEqual(
      checksOfLevel(checks, 'spec').map((c) => c.id),
      ['a', 'c'],
    );
    assert.deepEqual(
      checksOfLevel(checks, 'strict').map((c) => c.id),
      ['a', 'b', 'c'],
    );
  });

  it('groups: by first operation in order of registration, the whole-server checks last', () => {
    const noOperation: Check = { ...passes('none'), operations: [] };
    const grouped = groups([
      passes('s1', { operation: 'server' }),
      passes('t1', { operation: transfers }),
      passes('o1'),
      noOperation,
      passes('t2', { operation: transfers }),
    ]);
    assert.deepEqual(
      [...grouped].map(([target, checks]) => [target, checks.map((c) => c.id)]),
      [
        [transfers, ['t1', 't2']],
        [order, ['o1']],
        ['server', ['s1', 'none']],
      ],
    );
  });

  it('runCheck: every case recorded; a failure names how many cases failed and which', async () => {
    const ctx = context();
    const result = await runCheck(
      check('mixed', async (_ctx, t) => {
        await t.run('good', () => undefined);
        await t.run('bad', () => {
          throw new CheckFailure({ rule: 'r', expected: 'e', actual: 'first wrong' });
        });
        await t.run('worse', () => {
          throw new CheckFailure({ rule: 'r', expected: 'e', actual: 'second wrong' });
        });
        await t.run('left out', () => {
          throw new CheckSkipped('not for this server');
        });
      }),
      ctx,
    );
    assert.equal(result.status, 'failed');
    assert.deepEqual(
      result.cases.map((c) => [c.name, c.status]),
      [
        ['good', 'passed'],
        ['bad', 'failed'],
        ['worse', 'failed'],
        ['left out', 'skipped'],
      ],
    );
    // Grouped: the count, then each failed case (at most three) spelled out with its whole failure.
    assert.match(
      result.message ?? '',
      /^2 of 4 case\(s\) failed:\n1\) bad\n {3}first wrong\n {3}expected: e\n {3}rule: {5}r\n2\) worse\n {3}second wrong\n/,
    );
    assert.doesNotMatch(result.message ?? '', /more failed/);
    assert.deepEqual(
      result.failures?.map((f) => f.actual),
      ['first wrong', 'second wrong'],
    );
    assert.equal(result.rule, 'rule of mixed');
  });

  it('runCheck: a check failing many cases spells out three (every failure kept) and names the others', async () => {
    const ctx = context();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const result = await runCheck(
      check('many', async (_ctx, t) => {
        for (const name of names)
          await t.run(name, () => {
            throw new CheckFailure({ rule: 'r', expected: 'e', actual: `${name} wrong` });
          });
        await t.run('fine', () => undefined);
      }),
      ctx,
    );
    const message = result.message ?? '';
    assert.match(message, /^5 of 6 case\(s\) failed; the first 3:\n1\) a\n {3}a wrong\n/);
    assert.match(message, /\n3\) c\n {3}c wrong\n/);
    assert.doesNotMatch(message, /d wrong|e wrong/, 'the others are only named');
    assert.match(message, /\n… and 2 more failed: d; e \(every failed case, with its reproduction, is in conformance\.json/);
    assert.deepEqual(
      result.failures?.map((f) => f.actual),
      names.map((n) => `${n} wrong`),
      'every failure is kept in the results',
    );
  });

  it('runCheck: a check that throws fails as a setup case; one that cannot run says what blocked it', async () => {
    const ctx = context();
    const thrown = await runCheck(
      check('throws', () => Promise.reject(new Error('boom'))),
      ctx,
    );
    assert.equal(thrown.status, 'failed');
    assert.deepEqual(thrown.cases, [{ name: 'setup', status: 'failed', message: 'the case could not complete: boom' }]);
    const notRun = await runCheck(
      check('blocked', () => Promise.reject(new CheckNotRun('no lots', 'no-lots', 'GET order X'))),
      ctx,
    );
    assert.deepEqual([notRun.status, notRun.reason, notRun.blockedBy], ['not-run', 'no-lots', 'GET order X']);
  });

  it('runCheck: preconditions (--read-only, an earlier time-out of the operation, the deadline) stop a check before it runs', async () => {
    let ran = 0;
    const counted = (id: string, options: Parameters<typeof check>[2] = {}) =>
      check(
        id,
        async (_ctx, t) => {
          ran++;
          await t.run('the case', () => undefined);
        },
        options,
      );
    const readOnly = await runCheck(counted('writes', { write: true }), context({ readOnly: true }));
    assert.deepEqual([readOnly.status, readOnly.reason], ['skipped', 'read-only']);
    const reads = await runCheck(counted('reads'), context({ readOnly: true }));
    assert.equal(reads.status, 'passed', '--read-only leaves checks that only read');
    const timedOut = context();
    timedOut.http.timedOut.set(order, { request: 'GET /order', by: 'first.check' });
    const blocked = await runCheck(counted('second.check'), timedOut);
    assert.deepEqual(
      [blocked.status, blocked.reason, blocked.blockedBy],
      ['not-run', 'timed-out-operation', 'first.check (GET /order timed out)'],
    );
    assert.equal((await runCheck(counted('first.check'), timedOut)).status, 'passed', 'the check that timed out is not blocked by itself');
    const late = await runCheck(counted('late'), context({}, Date.now() - 1));
    assert.deepEqual([late.status, late.reason], ['not-run', 'deadline']);
    assert.equal(ran, 2, 'only the read check and the one that timed out ran');
  });

  it('runSuite above --concurrency 1: checks run at once, results in registration order, server checks after all others', async () => {
    const ctx = context({ concurrency: 4 });
    const ended: string[] = [];
    const { opened, open } = gate();
    const waitsForLater = check('order.first', async (_ctx, t) => {
      // Ends only once a check registered after it has run: only possible when they run at once.
      await opened;
      ended.push('order.first');
      await t.run('the case', () => undefined);
    });
    const opens = check(
      'transfer.second',
      async (_ctx, t) => {
        open();
        ended.push('transfer.second');
        await t.run('the case', () => {
          throw new CheckFailure({ rule: 'r', expected: 'e', actual: 'wrong' });
        });
      },
      { operation: transfers },
    );
    let endedBeforeServer: string[] = [];
    const server = check(
      'server.last',
      async (_ctx, t) => {
        endedBeforeServer = [...ended];
        await t.run('the case', () => undefined);
      },
      { operation: 'server' },
    );
    const skipped = check('order.skipped', () => Promise.reject(new CheckSkipped('nothing to judge')));
    const written: string[] = [];
    const run = await runSuite({ checks: [server, waitsForLater, opens, skipped], ctx, write: (text) => written.push(text), color: false });
    assert.deepEqual(ended, ['transfer.second', 'order.first']);
    assert.deepEqual(endedBeforeServer, ['transfer.second', 'order.first']);
    assert.deepEqual(
      run.results.map((r) => [r.id, r.status]),
      [
        ['order.first', 'passed'],
        ['order.skipped', 'skipped'],
        ['transfer.second', 'failed'],
        ['server.last', 'passed'],
      ],
    );
    assert.equal(run.failures, 1, 'a failed check is a mocha failure; skipped is not');
    const report = written.join('');
    for (const id of ['order.first', 'order.skipped', 'transfer.second', 'server.last']) assert.ok(report.includes(id), report);
  });

  it('runSuite at --concurrency 1: one check at a time, each after the one before ended', async () => {
    const ctx = context({ concurrency: 1 });
    let running = 0;
    let most = 0;
    const steps: string[] = [];
    const slow = (id: string, operation: OperationGroup) =>
      check(
        id,
        async (_ctx, t) => {
          running++;
          most = Math.max(most, running);
          steps.push(`start ${id}`);
          await new Promise((resolve) => setImmediate(resolve));
          await t.run('the case', () => undefined);
          steps.push(`end ${id}`);
          running--;
        },
        { operation },
      );
    const run = await runSuite({
      checks: [slow('a', transfers), slow('b', transfers), slow('c', 'server'), slow('d', order)],
      ctx,
      write: () => undefined,
      color: false,
    });
    assert.equal(most, 1);
    assert.deepEqual(steps, ['start a', 'end a', 'start b', 'end b', 'start d', 'end d', 'start c', 'end c']);
    assert.equal(run.failures, 0);
  });
});
