/** The violation log stays bounded however many exchanges it sees: the latest `keep` kept, counters per rule and operation. */
import assert from 'node:assert/strict';
import type { ProxyExchange, Violation } from './exchange.js';
import { LearningRedactor } from '../../redaction/redactor.js';
import { ViolationLog } from './violations.js';

const exchange = (i: number): ProxyExchange => ({
  method: 'GET',
  target: `/orders/info/N-${i}`,
  request: { headers: {}, body: Buffer.alloc(0), complete: true },
  answer: { status: 200, headers: {}, body: Buffer.from('x'.repeat(10_000)), complete: true },
  durationMs: 1,
});
const violation = (i: number): Violation => ({
  side: i % 2 === 0 ? 'server' : 'client',
  operation: 'getOrderInfo',
  rule: `rule-${i % 3}`,
  level: 'spec',
  in: 'body',
  pointer: `/n/${i}`,
  reason: `reason ${i}`,
});

describe('proxy violation log', () => {
  it('keeps the latest N exchanges, cut bodies and bounded tallies after 20,000 exchanges', () => {
    const log = new ViolationLog({ level: 'spec', upstream: 'http://u', keep: 5, bodyChars: 100, redactor: new LearningRedactor() });
    for (let i = 0; i < 20_000; i++) log.add(exchange(i), 'getOrderInfo', i % 4 === 0 ? [] : [violation(i)]);
    const snapshot = log.snapshot();
    assert.equal(snapshot.exchanges, 20_000);
    assert.equal(snapshot.total, 15_000);
    assert.equal(snapshot.client + snapshot.server, 15_000);
    assert.deepEqual(Object.keys(snapshot.byRule).sort(), ['rule-0', 'rule-1', 'rule-2']);
    assert.equal(snapshot.recent.length, 5);
    assert.deepEqual(
      snapshot.recent.map((e) => e.seq),
      [20_000, 19_999, 19_998, 19_996, 19_995],
    );
    assert.ok(snapshot.recent.every((e) => e.answer.body.length <= 101 && e.answer.truncated));
    assert.equal(log.ruleTallies().length, 3);
    assert.ok(log.ruleTallies().every((t) => t.latest.length <= 5));
  });
});
