/**
 * What `rmq bench consumer` counts, per message as it reaches the listener: born-to-consume (now -
 * bornTimestamp) and store-to-consume (now - storeTimestamp) latency, in ms from the epoch clocks
 * as upstream. Running totals feed upstream's interval line (its maxima reset at each print); a
 * second set counts only what arrived after the warm-up and gives the summary.
 */
import { LatencyHistogram } from './histogram.js';
import type { ConsumerInterval, ConsumerSummary, ProgressFigures } from './report.js';
import { round3 } from './report.js';

interface Totals {
  messages: number;
  failed: number;
  b2cTotalMs: number;
  s2cTotalMs: number;
  maxB2CMs: number;
  maxS2CMs: number;
}

function zero(): Totals {
  return { messages: 0, failed: 0, b2cTotalMs: 0, s2cTotalMs: 0, maxB2CMs: 0, maxS2CMs: 0 };
}

interface Snapshot {
  readonly at: number;
  readonly messages: number;
  readonly failed: number;
  readonly b2cTotalMs: number;
  readonly s2cTotalMs: number;
}

export class ConsumerStats {
  private readonly total = zero();
  private readonly measured = zero();
  private intervalMaxB2CMs = 0;
  private intervalMaxS2CMs = 0;
  private readonly intervalS2C = new LatencyHistogram();
  private readonly measuredS2C = new LatencyHistogram();
  private measureFrom = Number.POSITIVE_INFINITY;
  private lastInterval: Snapshot;
  private lastProgress: Snapshot;
  /** Messages answered CONSUME_SUCCESS since the start: what --count counts. */
  succeeded = 0;

  constructor(
    private readonly startedAt: number,
    private readonly shape: { readonly topic: string; readonly group: string },
  ) {
    this.lastInterval = this.snapshot(startedAt);
    this.lastProgress = this.lastInterval;
  }

  get measuring(): boolean {
    return this.measureFrom !== Number.POSITIVE_INFINITY;
  }

  startMeasuring(at: number): void {
    this.measureFrom = at;
  }

  /** Messages received since the start (warm-up included). */
  get messages(): number {
    return this.total.messages;
  }

  /**
   * One message reached the listener at `at` (a performance.now() time, for the window) and
   * `nowMs` (the epoch, for the latencies).
   */
  recordMessage(at: number, nowMs: number, bornMs: number, storeMs: number): void {
    // Born and store times come from other hosts' clocks; a skew must not make a latency negative.
    const b2c = Math.max(0, nowMs - bornMs);
    const s2c = Math.max(0, nowMs - storeMs);
    add(this.total, b2c, s2c);
    if (b2c > this.intervalMaxB2CMs) this.intervalMaxB2CMs = b2c;
    if (s2c > this.intervalMaxS2CMs) this.intervalMaxS2CMs = s2c;
    this.intervalS2C.recordMicros(s2c * 1000);
    if (at >= this.measureFrom) {
      add(this.measured, b2c, s2c);
      this.measuredS2C.recordMicros(s2c * 1000);
    }
  }

  /** `count` messages received at `at` were answered RECONSUME_LATER. */
  recordFailed(at: number, count: number): void {
    this.total.failed += count;
    if (at >= this.measureFrom) this.measured.failed += count;
  }

  /** The figures of upstream's interval line since the previous call; starts the next interval. */
  interval(now: number, epochMs: number): ConsumerInterval {
    const prev = this.lastInterval;
    const cur = this.snapshot(now);
    this.lastInterval = cur;
    const received = cur.messages - prev.messages;
    const figures: ConsumerInterval = {
      nowMs: epochMs,
      tps: (received / (cur.at - prev.at)) * 1000,
      fail: cur.failed - prev.failed,
      avgB2CMs: (cur.b2cTotalMs - prev.b2cTotalMs) / received,
      avgS2CMs: (cur.s2cTotalMs - prev.s2cTotalMs) / received,
      maxB2CMs: this.intervalMaxB2CMs,
      maxS2CMs: this.intervalMaxS2CMs,
      p99S2CMs: this.intervalS2C.percentileMs(99),
    };
    this.intervalMaxB2CMs = 0;
    this.intervalMaxS2CMs = 0;
    this.intervalS2C.reset();
    return figures;
  }

  progress(now: number): ProgressFigures {
    const prev = this.lastProgress;
    const cur = this.snapshot(now);
    this.lastProgress = cur;
    const received = cur.messages - prev.messages;
    return {
      elapsedS: (now - this.startedAt) / 1000,
      total: cur.messages,
      ratePerS: (received / (cur.at - prev.at)) * 1000,
      avgMs: (cur.s2cTotalMs - prev.s2cTotalMs) / received,
      failed: cur.failed,
    };
  }

  summary(endedAt: number): ConsumerSummary {
    const m = this.measured;
    const measuredMs = this.measuring ? Math.max(0, endedAt - this.measureFrom) : 0;
    const mean = (sum: number): number => (m.messages > 0 ? sum / m.messages : 0);
    return {
      tool: 'rmq',
      role: 'consumer',
      topic: this.shape.topic,
      group: this.shape.group,
      measuredMs: round3(measuredMs),
      messages: m.messages,
      failed: m.failed,
      tps: round3(measuredMs > 0 ? (m.messages / measuredMs) * 1000 : 0),
      avgB2CMs: round3(mean(m.b2cTotalMs)),
      avgS2CMs: round3(mean(m.s2cTotalMs)),
      maxB2CMs: m.maxB2CMs,
      maxS2CMs: m.maxS2CMs,
      p99S2CMs: round3(this.measuredS2C.percentileMs(99)),
    };
  }

  private snapshot(at: number): Snapshot {
    return {
      at,
      messages: this.total.messages,
      failed: this.total.failed,
      b2cTotalMs: this.total.b2cTotalMs,
      s2cTotalMs: this.total.s2cTotalMs,
    };
  }
}

function add(t: Totals, b2c: number, s2c: number): void {
  t.messages++;
  t.b2cTotalMs += b2c;
  t.s2cTotalMs += s2c;
  if (b2c > t.maxB2CMs) t.maxB2CMs = b2c;
  if (s2c > t.maxS2CMs) t.maxS2CMs = s2c;
}
