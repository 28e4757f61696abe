/** The judging queue: judged later, in order, in batches bounded in items and time per turn; a full queue drops and counts. */
import assert from 'node:assert/strict';
import { JudgingQueue, type JudgingLimits } from './judging-queue.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A clock on which each judgment takes 1 ms. */
type Clock = { sliceMs: number; ms: number };

function queue(limits: JudgingLimits, perTurn?: number, clock?: Clock) {
  const judged: string[] = [];
  const errors: string[] = [];
  const drops: string[] = [];
  const q = new JudgingQueue<string>({
    limits,
    judge: (item) => {
      if (clock) clock.ms += 1;
      if (item === 'throws') throw new Error('broken judgment');
      judged.push(item);
    },
    onError: (error, item) => errors.push(`${item}: ${error instanceof Error ? error.message : ''}`),
    onDrop: (item) => drops.push(item),
    ...(perTurn !== undefined ? { perTurn } : {}),
    // Without a clock of its own the test's clock stands still: a busy host's real time never ends a turn early.
    ...(clock ? { sliceMs: clock.sliceMs, now: () => clock.ms } : { now: () => 0 }),
  });
  return { q, judged, errors, drops };
}

const ROOMY: JudgingLimits = { exchanges: 100, bytes: 1_000_000 };

describe('proxy judging queue', () => {
  it('judges nothing while the answer is being sent: later, in a turn of its own, in the order queued', async () => {
    const { q, judged } = queue(ROOMY);
    assert.equal(q.push('a', 10), true);
    assert.equal(q.push('b', 10), true);
    assert.deepEqual(judged, [], 'push never judges');
    assert.equal(q.waiting, 2);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b']);
    assert.equal(q.waiting, 0);
  });

  it('judges at most perTurn items per turn, so I/O is served between batches', async () => {
    const { q, judged } = queue(ROOMY, 2);
    for (const item of ['a', 'b', 'c', 'd', 'e']) q.push(item, 1);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b']);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b', 'c', 'd']);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b', 'c', 'd', 'e']);
  });

  it('ends a turn once its judging time is spent (one item at least), the time growing with the backlog', async () => {
    const { q, judged } = queue({ exchanges: 8, bytes: 1_000_000 }, 100, { sliceMs: 2, ms: 0 });
    for (const item of ['a', 'b', 'c']) q.push(item, 1);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b', 'c'], 'a backlog of 3 of 8: 2 × (1 + 8 × 3/8) = 8 ms, room for all 3');
    for (let i = 0; i < 8; i++) q.push(`full ${i}`, 1);
    await nextTurn();
    assert.equal(judged.length, 3 + 8, 'a full queue: 2 × (1 + 8) = 18 ms, room for all 8');
    const { q: spare, judged: spareJudged } = queue({ exchanges: 1000, bytes: 1_000_000 }, 100, { sliceMs: 1.5, ms: 0 });
    for (const item of ['v', 'w', 'x', 'y', 'z']) spare.push(item, 1);
    await nextTurn();
    assert.deepEqual(spareJudged, ['v', 'w'], 'no backlog to speak of: about 1.5 ms, room to start two 1-ms judgments');
    const { q: none, judged: noneJudged } = queue({ exchanges: 1000, bytes: 1_000_000 }, 100, { sliceMs: 0, ms: 0 });
    for (const item of ['x', 'y']) none.push(item, 1);
    await nextTurn();
    assert.deepEqual(noneJudged, ['x'], 'no time at all: one item a turn, never none');
    await nextTurn();
    assert.deepEqual(noneJudged, ['x', 'y']);
  });

  it('a full queue (exchanges) drops the exchange, counts it and says so; it takes exchanges again once judged', async () => {
    const { q, judged, drops } = queue({ exchanges: 2, bytes: 1_000_000 });
    assert.deepEqual([q.push('a', 1), q.push('b', 1), q.push('c', 1), q.push('d', 1)], [true, true, false, false]);
    assert.equal(q.dropped, 2);
    assert.deepEqual(drops, ['c', 'd']);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b'], 'the dropped ones are never judged');
    assert.equal(q.push('e', 1), true);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b', 'e']);
    assert.equal(q.dropped, 2);
  });

  it('a full queue (bytes of bodies) drops what does not fit and keeps what does', async () => {
    const { q, judged } = queue({ exchanges: 100, bytes: 100 });
    assert.deepEqual([q.push('a', 60), q.push('too big', 60), q.push('b', 40), q.push('c', 1)], [true, false, true, false]);
    assert.equal(q.dropped, 2);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b']);
    assert.equal(q.push('d', 100), true, 'the bytes are free again once judged');
  });

  it('drain() judges everything waiting at once, and nothing twice', async () => {
    const { q, judged } = queue(ROOMY, 1);
    for (const item of ['a', 'b', 'c']) q.push(item, 1);
    q.drain();
    assert.deepEqual(judged, ['a', 'b', 'c']);
    await nextTurn();
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b', 'c']);
  });

  it('a judgment that throws is reported and the queue goes on with the next exchange', async () => {
    const { q, judged, errors } = queue(ROOMY);
    for (const item of ['a', 'throws', 'b']) q.push(item, 1);
    await nextTurn();
    assert.deepEqual(judged, ['a', 'b']);
    assert.deepEqual(errors, ['throws: broken judgment']);
  });
});
