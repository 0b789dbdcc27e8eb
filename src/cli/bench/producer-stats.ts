/**
 * What `rmq bench producer` counts. Running totals feed upstream's interval line (its Max RT and
 * failure counts are totals since the start); a second set counts only sends begun after the warm-up
 * and gives the summary. Times are performance.now() milliseconds; RTs are recorded in microseconds.
 */
import { LatencyHistogram } from './histogram.js';
import type { ProducerInterval, ProducerSummary, ProgressFigures } from './report.js';
import { round3 } from './report.js';

interface Totals {
  sends: number;
  messages: number;
  sendFailed: number;
  responseFailed: number;
  failedMessages: number;
  rtTotalUs: number;
  maxRtUs: number;
}

function zero(): Totals {
  return {
    sends: 0,
    messages: 0,
    sendFailed: 0,
    responseFailed: 0,
    failedMessages: 0,
    rtTotalUs: 0,
    maxRtUs: 0,
  };
}

interface Snapshot {
  readonly at: number;
  readonly sends: number;
  readonly messages: number;
  readonly rtTotalUs: number;
}

export type SendFailure = 'send' | 'response';

export interface ProducerShape {
  readonly topic: string;
  readonly threadCount: number;
  readonly inFlight: number;
  readonly messageSize: number;
  readonly batchSize: number;
}

export class ProducerStats {
  private readonly total = zero();
  private readonly measured = zero();
  private readonly intervalRt = new LatencyHistogram();
  private readonly measuredRt = new LatencyHistogram();
  /** Sends begun at or after this count in the summary; none until the warm-up ends. */
  private measureFrom = Number.POSITIVE_INFINITY;
  private lastInterval: Snapshot;
  private lastProgress: Snapshot;

  constructor(
    private readonly startedAt: number,
    private readonly shape: ProducerShape,
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

  /** Successful send calls since the start (warm-up included). */
  get sends(): number {
    return this.total.sends;
  }

  /** A send call begun at `beganAt` that returned after `rtUs` with `messages` messages. */
  recordSuccess(beganAt: number, rtUs: number, messages: number): void {
    this.intervalRt.recordMicros(rtUs);
    addSuccess(this.total, rtUs, messages);
    if (beganAt >= this.measureFrom) {
      addSuccess(this.measured, rtUs, messages);
      this.measuredRt.recordMicros(rtUs);
    }
  }

  recordFailure(beganAt: number, kind: SendFailure, messages: number): void {
    addFailure(this.total, kind, messages);
    if (beganAt >= this.measureFrom) addFailure(this.measured, kind, messages);
  }

  /** The figures of upstream's interval line since the previous call; starts the next interval. */
  interval(now: number, epochMs: number): ProducerInterval {
    const prev = this.lastInterval;
    const cur = this.snapshot(now);
    this.lastInterval = cur;
    const figures: ProducerInterval = {
      nowMs: epochMs,
      sendTps: ((cur.messages - prev.messages) / (cur.at - prev.at)) * 1000,
      maxRtMs: this.total.maxRtUs / 1000,
      avgRtMs: (cur.rtTotalUs - prev.rtTotalUs) / (cur.sends - prev.sends) / 1000,
      sendFailed: this.total.sendFailed,
      responseFailed: this.total.responseFailed,
      p50Ms: this.intervalRt.percentileMs(50),
      p99Ms: this.intervalRt.percentileMs(99),
      p999Ms: this.intervalRt.percentileMs(99.9),
    };
    this.intervalRt.reset();
    return figures;
  }

  /** The figures of the live line since its previous call. */
  progress(now: number): ProgressFigures {
    const prev = this.lastProgress;
    const cur = this.snapshot(now);
    this.lastProgress = cur;
    return {
      elapsedS: (now - this.startedAt) / 1000,
      total: cur.messages,
      ratePerS: ((cur.messages - prev.messages) / (cur.at - prev.at)) * 1000,
      avgMs: (cur.rtTotalUs - prev.rtTotalUs) / (cur.sends - prev.sends) / 1000,
      failed: this.total.sendFailed + this.total.responseFailed,
    };
  }

  /** Messages of failed sends in the measured window (upstream's [Complete] Send Total counts them). */
  get measuredFailedMessages(): number {
    return this.measured.failedMessages;
  }

  /** The summary of the measured window, which ended at `endedAt`. */
  summary(endedAt: number): ProducerSummary {
    const m = this.measured;
    const measuredMs = this.measuring ? Math.max(0, endedAt - this.measureFrom) : 0;
    const perSecond = (n: number): number => (measuredMs > 0 ? (n / measuredMs) * 1000 : 0);
    return {
      tool: 'rmq',
      role: 'producer',
      topic: this.shape.topic,
      threads: this.shape.threadCount,
      inFlight: this.shape.inFlight,
      messageSize: this.shape.messageSize,
      batchSize: this.shape.batchSize,
      measuredMs: round3(measuredMs),
      sends: m.sends,
      messages: m.messages,
      sendFailed: m.sendFailed,
      responseFailed: m.responseFailed,
      tps: round3(perSecond(m.messages)),
      sendTps: round3(perSecond(m.sends)),
      avgRtMs: round3(m.sends > 0 ? m.rtTotalUs / m.sends / 1000 : 0),
      maxRtMs: round3(m.maxRtUs / 1000),
      p50Ms: round3(this.measuredRt.percentileMs(50)),
      p99Ms: round3(this.measuredRt.percentileMs(99)),
      p999Ms: round3(this.measuredRt.percentileMs(99.9)),
    };
  }

  private snapshot(at: number): Snapshot {
    return {
      at,
      sends: this.total.sends,
      messages: this.total.messages,
      rtTotalUs: this.total.rtTotalUs,
    };
  }
}

function addSuccess(t: Totals, rtUs: number, messages: number): void {
  t.sends++;
  t.messages += messages;
  t.rtTotalUs += rtUs;
  if (rtUs > t.maxRtUs) t.maxRtUs = rtUs;
}

function addFailure(t: Totals, kind: SendFailure, messages: number): void {
  if (kind === 'send') t.sendFailed++;
  else t.responseFailed++;
  t.failedMessages += messages;
}
