import assert from 'node:assert/strict';
import { LatencySamples } from './load.js';

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
