import assert from 'node:assert/strict';
import { LatencySamples, roundOrder } from './load.js';

describe('bench/load: LatencySamples', () => {
  it('answers nearest-rank percentiles of the samples, whatever the insertion order', () => {
    const samples = new LatencySamples();
    const values = Array.from({ length: 1000 }, (_, i) => (i + 1) / 10); // 0.1 .. 100.0
    for (let i = values.length - 1; i >= 0; i--) samples.add(values[i] ?? 0);
    assert.equal(samples.count, 1000);
    assert.deepEqual(samples.percentiles(50, 99, 100), [50, 99, 100]);
  });

  it('grows past its initial capacity without losing samples', () => {
    const samples = new LatencySamples();
    for (let i = 0; i < 70000; i++) samples.add(i < 69999 ? 1 : 500);
    assert.equal(samples.count, 70000);
    assert.deepEqual(samples.percentiles(50, 100), [1, 500]);
  });

  it('answers NaN when there are no samples', () => {
    assert.ok(new LatencySamples().percentiles(50).every(Number.isNaN));
  });
});

describe('bench/load: roundOrder', () => {
  it('runs the servers forward in even rounds and backward in odd ones, so that neighbours always run back to back', () => {
    const servers = ['prism', 'mock', 'bare', 'floor', 'proxy'];
    assert.deepEqual(
      [0, 1, 2].map((round) => roundOrder(servers, round).join(' ')),
      ['prism mock bare floor proxy', 'proxy floor bare mock prism', 'prism mock bare floor proxy'],
    );
    assert.deepEqual(servers, ['prism', 'mock', 'bare', 'floor', 'proxy'], 'the list itself is left as it was');
  });
});
