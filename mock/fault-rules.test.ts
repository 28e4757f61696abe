import assert from 'node:assert/strict';
import { checkRuleInput, FaultRules, RULE_LIMITS, ruleView, type FaultRuleInput } from './fault-rules.js';
import { parseFault } from './faults.js';
import { PROBLEMS, ProblemError } from './problems.js';

const OPERATIONS = ['getOrderInfo', 'createLotTransfer', 'createTestSample'];

/** A clock the test moves by hand. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

const input = (fault: string, extra: Partial<FaultRuleInput> = {}): FaultRuleInput => ({
  fault: parseFault(fault, 'test: '),
  operations: [],
  seconds: 60,
  ...extra,
});

/** Asserts `run` throws the catalogue problem `kind` with a detail matching `detail`; answers the problem. */
function throwsProblem(run: () => unknown, kind: (typeof PROBLEMS)[keyof typeof PROBLEMS], detail: RegExp): ProblemError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof ProblemError, `expected a problem, got ${String(thrown)}`);
  assert.equal(thrown.kind, kind);
  assert.match(thrown.detail, detail);
  return thrown;
}

describe('mock/fault-rules: session fault rules', () => {
  it('applies a counted rule to exactly its next N requests, then drops it', () => {
    const rules = new FaultRules(10);
    const rule = rules.add('a', input('status:503', { count: 3 }));
    const taken = [1, 2, 3, 4].map(() => rules.take('a', 'createLotTransfer')?.id);
    assert.deepEqual(taken, [rule.id, rule.id, rule.id, undefined]);
    assert.deepEqual(rules.list('a'), []);
    assert.equal(rules.empty, true, 'a used-up rule leaves nothing behind');
  });

  it('ends a rule after its time, counted or not', () => {
    const time = clock();
    const rules = new FaultRules(10, time.now);
    rules.add('a', input('delay:100', { seconds: 2 }));
    rules.add('a', input('drop', { seconds: 5, count: 100 }));
    assert.equal(rules.take('a', 'getOrderInfo')?.fault.kind, 'delay');
    time.advance(1999);
    assert.equal(rules.take('a', 'getOrderInfo')?.fault.kind, 'delay');
    time.advance(1);
    assert.equal(rules.take('a', 'getOrderInfo')?.fault.kind, 'drop', 'the first rule expired; the next one applies');
    time.advance(3000);
    assert.equal(rules.take('a', 'getOrderInfo'), undefined);
    assert.deepEqual(rules.list('a'), []);
  });

  it('keeps sessions apart: a rule of one session never faults another, nor can it be listed or removed there', () => {
    const rules = new FaultRules(10);
    const rule = rules.add('alice', input('reset'));
    assert.equal(rules.take('bob', 'getOrderInfo'), undefined);
    assert.equal(rules.take('default', 'getOrderInfo'), undefined);
    assert.deepEqual(rules.list('bob'), []);
    assert.equal(rules.remove('bob', rule.id), false);
    assert.equal(rules.clear('bob'), 0);
    assert.equal(rules.take('alice', 'getOrderInfo')?.id, rule.id);
  });

  it('applies a rule only to the operations it names; the oldest matching rule first', () => {
    const rules = new FaultRules(10);
    const creates = rules.add('a', input('status:500', { operations: ['createLotTransfer', 'createTestSample'], count: 2 }));
    const any = rules.add('a', input('status:502'));
    assert.equal(rules.take('a', 'getOrderInfo')?.id, any.id, 'order info: only the rule for every operation');
    assert.equal(rules.take('a', 'createTestSample')?.id, creates.id);
    assert.equal(rules.take('a', 'createLotTransfer')?.id, creates.id);
    assert.equal(rules.take('a', 'createLotTransfer')?.id, any.id, 'the counted rule is used up');
    assert.deepEqual(ruleView(any), {
      id: any.id,
      fault: 'status:502',
      operations: [],
      remaining: null,
      hits: 2,
      expiresAt: new Date(any.expiresAt).toISOString(),
    });
  });

  it('removes one rule or all of a session', () => {
    const rules = new FaultRules(10);
    const first = rules.add('a', input('empty'));
    const second = rules.add('a', input('truncate'));
    assert.equal(rules.remove('a', first.id), true);
    assert.equal(rules.remove('a', first.id), false);
    assert.deepEqual(
      rules.list('a').map((r) => r.id),
      [second.id],
    );
    rules.add('a', input('drip:100'));
    assert.equal(rules.clear('a'), 2);
    assert.equal(rules.empty, true);
  });

  it('bounds the rules of a session and the sessions holding rules (429 fault-rules-full)', () => {
    const time = clock();
    const rules = new FaultRules(2, time.now);
    for (let i = 0; i < RULE_LIMITS.maxRulesPerSession; i++) rules.add('a', input('drop', { seconds: 1 }));
    throwsProblem(() => rules.add('a', input('drop')), PROBLEMS.faultRulesFull, /holds 20 fault rules, its most; DELETE \/__mock\/faults/);
    rules.add('b', input('drop'));
    throwsProblem(() => rules.add('c', input('drop')), PROBLEMS.faultRulesFull, /2 sessions hold fault rules, the most/);
    time.advance(1000); // the rules of "a" expire: room for another session
    rules.add('c', input('drop'));
    assert.equal(rules.list('a').length, 0);
  });

  it('reads a rule from JSON: fault required, operations, count and seconds optional within bounds', () => {
    assert.deepEqual(checkRuleInput({ fault: 'status:503' }, OPERATIONS), {
      fault: { kind: 'status', status: 503 },
      operations: [],
      seconds: RULE_LIMITS.defaultSeconds,
    });
    assert.deepEqual(
      checkRuleInput(
        { fault: 'drip:64', operations: ['getOrderInfo', 'getOrderInfo'], count: RULE_LIMITS.maxCount, seconds: 1 },
        OPERATIONS,
      ),
      { fault: { kind: 'drip', bytesPerSecond: 64 }, operations: ['getOrderInfo'], count: RULE_LIMITS.maxCount, seconds: 1 },
    );
  });

  it('refuses a bad rule with a 400 invalid-fault naming every wrong member by its pointer', () => {
    const cases: [unknown, string[]][] = [
      [null, []],
      [[], []],
      ['status:503', []],
      [{}, ['/fault']],
      [{ fault: 503 }, ['/fault']],
      [{ fault: 'status:418' }, ['/fault']],
      [{ fault: 'drop', operations: 'getOrderInfo' }, ['/operations']],
      [{ fault: 'drop', operations: ['getOrderInfo', 'deleteEverything', 7] }, ['/operations/1', '/operations/2']],
      [{ fault: 'drop', count: 0 }, ['/count']],
      [{ fault: 'drop', count: RULE_LIMITS.maxCount + 1 }, ['/count']],
      [{ fault: 'drop', count: 1.5 }, ['/count']],
      [{ fault: 'drop', seconds: 0 }, ['/seconds']],
      [{ fault: 'drop', seconds: RULE_LIMITS.maxSeconds + 1 }, ['/seconds']],
      [{ fault: 'drop', seconds: '60' }, ['/seconds']],
      [{ fault: 'drop', path: '/x', method: 'GET' }, ['/path', '/method']],
      [{ fault: 'nope', count: -1, seconds: null }, ['/fault', '/count', '/seconds']],
    ];
    for (const [body, pointers] of cases) {
      const error = throwsProblem(() => checkRuleInput(body, OPERATIONS), PROBLEMS.invalidFault, /fault rule/);
      assert.deepEqual(
        (error.errors ?? []).map((e) => e.pointer),
        pointers,
        JSON.stringify(body),
      );
      for (const pointer of pointers) assert.ok(error.detail.includes(pointer), `${error.detail} names ${pointer}`);
    }
    const wrongOperation = throwsProblem(
      () => checkRuleInput({ fault: 'drop', operations: ['nope'] }, OPERATIONS),
      PROBLEMS.invalidFault,
      /\/operations\/0 must be one of getOrderInfo, createLotTransfer, createTestSample/,
    );
    assert.match(wrongOperation.detail, /GET \/__mock\/faults lists the faults and bounds/);
  });
});
