/** A check's status from its cases, and the write budget reserved per operation for its spec cases. */
import assert from 'node:assert/strict';
import { aggregate, type CaseOutcome } from './cases.js';
import { WriteBudget } from './context.js';

const o = (status: CaseOutcome['status'], extra = false): CaseOutcome => ({ name: status, status, ...(extra ? { extra } : {}) });

describe('check status from its cases', () => {
  it('failed beats not-run beats passed beats skipped; seeded extra cases left out do not make a check incomplete', () => {
    assert.equal(aggregate([o('passed'), o('failed'), o('not-run')]).status, 'failed');
    assert.equal(aggregate([o('passed'), o('not-run')]).status, 'not-run');
    assert.equal(aggregate([o('passed'), o('skipped')]).status, 'passed');
    assert.equal(aggregate([o('skipped')]).status, 'skipped');
    assert.equal(aggregate([o('passed'), o('not-run', true)]).status, 'passed');
    assert.equal(aggregate([o('passed'), o('failed', true)]).status, 'failed');
  });
});

describe('write budget', () => {
  it('reserves the budget per operation, in turn, for its spec cases; other writes use only what is left', () => {
    const budget = new WriteBudget(
      3,
      new Map([
        ['createLotTransfer', 5],
        ['createTestSample', 5],
      ]),
    );
    // The lot-transfer checks run first: two spec writes, then an extra one is refused (the rest is reserved).
    assert.equal(budget.take('createLotTransfer', true), true);
    assert.equal(budget.take('createLotTransfer', true), true);
    assert.equal(budget.take('createLotTransfer', false), false);
    assert.equal(budget.take('createLotTransfer', true), false);
    // The test-sample spec case still gets its reserved write.
    assert.equal(budget.take('createTestSample', true), true);
    assert.equal(budget.take('createTestSample', true), false);
    assert.equal(budget.used, 3);
  });

  it('leaves the rest to extra cases once every spec case is served', () => {
    const budget = new WriteBudget(
      5,
      new Map([
        ['createLotTransfer', 1],
        ['createTestSample', 1],
      ]),
    );
    assert.equal(budget.take('createLotTransfer', false), true);
    assert.equal(budget.take('createLotTransfer', false), true);
    assert.equal(budget.take('createLotTransfer', false), true);
    assert.equal(budget.take('createLotTransfer', false), false, 'two writes stay reserved');
    assert.equal(budget.take('createLotTransfer', true), true);
    assert.equal(budget.take('createTestSample', true), true);
  });
});

describe('write budget: planned writes', () => {
  it('reserves the planned writes in check order after the spec cases, whatever order they are asked for in', () => {
    const needs = new Map([
      ['createLotTransfer', 2],
      ['createTestSample', 2],
    ] as const);
    const budget = new WriteBudget(6, needs, ['extra/a', 'read-only/a', 'extra/a', 'extra/b']);
    // extra/b comes last in check order: only two of the three planned writes fit.
    assert.equal(budget.takeExtra('extra/b'), false, 'asked first, but planned after what fits');
    assert.equal(budget.takeExtra('read-only/a'), true);
    assert.equal(budget.takeExtra('extra/a'), true);
    assert.equal(budget.takeExtra('extra/a'), false, 'a planned write is taken once');
    for (const op of ['createLotTransfer', 'createTestSample'] as const) {
      assert.equal(budget.take(op, true), true);
      assert.equal(budget.take(op, true), true);
    }
    assert.equal(budget.used, 6);
  });

  it('a write nobody planned uses only what no one reserved', () => {
    const budget = new WriteBudget(3, new Map([['createLotTransfer', 1]]), ['extra/a']);
    assert.equal(budget.takeExtra('unplanned'), true);
    assert.equal(budget.takeExtra('unplanned-too'), false, 'the rest is reserved');
    assert.equal(budget.takeExtra('extra/a'), true);
    assert.equal(budget.take('createLotTransfer', true), true);
  });
});
