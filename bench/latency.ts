/**
 * Latency samples at full resolution (autocannon's own histogram rounds to whole milliseconds, which
 * turns every sub-millisecond answer into "0 ms"): an HdrHistogram (`hdr-histogram-js`) of
 * microseconds with 4 significant digits, so each percentile is exact to 0.01 %.
 */
import { Int32Histogram } from 'hdr-histogram-js';

export class LatencySamples {
  // 1 µs to any latency (it resizes), 4 significant digits; a percentile is read as the lowest value of its bucket
  private readonly histogram = new Int32Histogram(1, 2, 4);

  constructor() {
    this.histogram.autoResize = true;
  }

  /** Adds one latency, in milliseconds. */
  add(ms: number): void {
    this.histogram.recordValue(Math.max(0, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The given percentiles (0 < p ≤ 100) in milliseconds; NaN for each when there are no samples. */
  percentiles(...ps: number[]): number[] {
    if (this.count === 0) return ps.map(() => Number.NaN);
    return ps.map((p) => this.histogram.lowestEquivalentValue(this.histogram.getValueAtPercentile(p)) / 1000);
  }
}
