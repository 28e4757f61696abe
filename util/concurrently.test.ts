import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eachConcurrently } from './concurrently.js';

describe('util/concurrently: eachConcurrently', () => {
  it('runs every item once, never more than the limit at a time, and uses the limit', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await eachConcurrently([5, 1, 4, 2, 3, 1, 2], 3, async (ms, index) => {
      running++;
      most = Math.max(most, running);
      await sleep(ms);
      seen.push(index);
      running--;
    });
    assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(most, 3);
  });

  it('starts the items in order, one at a time at limit 1 (and at a limit below 1)', async () => {
    for (const limit of [1, 0]) {
      const order: string[] = [];
      await eachConcurrently(['a', 'b', 'c'], limit, async (item) => {
        order.push(`start ${item}`);
        await sleep(1);
        order.push(`end ${item}`);
      });
      assert.deepEqual(order, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    }
  });

  it('rejects with the first failure; nothing for no items', async () => {
    await assert.rejects(
      eachConcurrently([1, 2, 3], 2, async (n) => {
        await sleep(n);
        if (n === 2) throw new Error('two failed');
      }),
      /two failed/,
    );
    let called = false;
    await eachConcurrently([], 4, async () => {
      called = true;
      await Promise.resolve();
    });
    assert.equal(called, false);
  });
});
