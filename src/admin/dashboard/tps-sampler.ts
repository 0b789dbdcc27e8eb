/**
 * The live TPS series: every broker's runtime info sampled each `tpsSampleIntervalMs` while someone
 * watches (a read of the series within `tpsIdleTimeoutMs`), so an idle dashboard sends nothing.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import { brokerSummaries } from './api-cluster.js';
import type { ApiContext } from './api-context.js';

export interface TpsPoint {
  /** Sample time, ms. */
  t: number;
  /** `brokerName/brokerId` -> put and get TPS (null when the broker did not answer). */
  brokers: Record<string, { putTps: number | null; getTps: number | null }>;
}

export class TpsSampler {
  private readonly points: TpsPoint[] = [];
  private timer: TimerHandle | undefined;
  private lastWatched = 0;
  private sampling: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly ctx: ApiContext,
    private readonly clock: Clock,
  ) {}

  /** The series so far; starts sampling (with one sample now) when it was idle. */
  async series(): Promise<{ intervalMs: number; points: TpsPoint[] }> {
    this.lastWatched = this.clock.now();
    if (this.timer === undefined && !this.closed) {
      this.schedule();
      await this.sample();
    } else if (this.sampling !== undefined) {
      await this.sampling;
    }
    return { intervalMs: this.ctx.settings.tpsSampleIntervalMs, points: [...this.points] };
  }

  /** Whether samples are being taken (someone watched within tpsIdleTimeoutMs). */
  get active(): boolean {
    return this.timer !== undefined;
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      if (this.closed || this.clock.now() - this.lastWatched > this.ctx.settings.tpsIdleTimeoutMs) {
        this.timer = undefined;
        return;
      }
      this.schedule();
      void this.sample();
    }, this.ctx.settings.tpsSampleIntervalMs);
  }

  private sample(): Promise<void> {
    this.sampling ??= (async () => {
      try {
        const brokers = await brokerSummaries(this.ctx);
        const point: TpsPoint = { t: this.clock.now(), brokers: {} };
        for (const b of brokers) {
          point.brokers[`${b.brokerName}/${b.brokerId}`] = { putTps: b.putTps, getTps: b.getTps };
        }
        this.points.push(point);
        if (this.points.length > this.ctx.settings.tpsSeriesLength) this.points.shift();
      } catch {
        // A name server that does not answer leaves a gap in the chart, nothing more.
      } finally {
        this.sampling = undefined;
      }
    })();
    return this.sampling;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.sampling;
  }
}
