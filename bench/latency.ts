/**
 * Latency samples at full resolution (autocannon's own histogram rounds to whole milliseconds, which
 * turns every sub-millisecond answer into "0 ms"). Samples are kept in a growable Float64Array;
 * percentiles use the nearest-rank method on a sorted copy.
 */
export class LatencySamples {
  private values = new Float64Array(1 << 16);
  private size = 0;

  /** Adds one latency, in milliseconds. */
  add(ms: number): void {
    if (this.size === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.size++] = ms;
  }

  get count(): number {
    return this.size;
  }

  /** The given percentiles (0 < p ≤ 100) in milliseconds; NaN for each when there are no samples. */
  percentiles(...ps: number[]): number[] {
    if (this.size === 0) return ps.map(() => Number.NaN);
    const sorted = this.values.slice(0, this.size).sort();
    return ps.map((p) => sorted[Math.min(this.size - 1, Math.max(0, Math.ceil((p / 100) * this.size) - 1))] ?? Number.NaN);
  }
}
