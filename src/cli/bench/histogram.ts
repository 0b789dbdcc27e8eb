/**
 * Latency histograms of the bench tools: hdr-histogram-js (the JavaScript port of HdrHistogram, the
 * standard for latency percentiles), its plain-JS variant, values recorded in microseconds and read
 * out in milliseconds.
 */
import { build, type Histogram } from 'hdr-histogram-js';

/** 3 significant digits: 0.1 % error at any magnitude, HdrHistogram's usual setting. */
const SIGNIFICANT_DIGITS = 3;
/** 64-bit counters (a Float64Array): no overflow at any count a run reaches. */
const BUCKET_BITS = 64;

export class LatencyHistogram {
  private readonly histogram: Histogram = build({
    bitBucketSize: BUCKET_BITS,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    // It grows to the largest value seen, so no highest value need be guessed up front.
    autoResize: true,
    useWebAssembly: false,
  });

  /** Records one latency; negative (clocks of two hosts) counts as 0. */
  recordMicros(micros: number): void {
    this.histogram.recordValue(micros > 0 ? Math.round(micros) : 0);
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The value at `percentile` (0..100) in ms; 0 when nothing was recorded. */
  percentileMs(percentile: number): number {
    return this.histogram.totalCount === 0 ? 0 : this.histogram.getValueAtPercentile(percentile) / 1000;
  }

  reset(): void {
    this.histogram.reset();
  }
}
