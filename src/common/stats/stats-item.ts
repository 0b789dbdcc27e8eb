/**
 * StatsItem (`common/.../stats/StatsItem.java`): one counter (a value and how many times it was
 * added to) and the snapshots that turn it into per-minute, per-hour and per-day figures. The owner
 * samples it every 10 s (the minute's list keeps 7 snapshots), every 10 min (the hour's, 7) and every
 * hour (the day's, 25); each list starts with a zero snapshot one interval before its first sample.
 * Shared by the broker (BrokerStatsManager) and the client (ConsumerStatsManager), as upstream's
 * common module shares it.
 */

/** What one window says: the value added, per second, per add, and the number of adds. */
export interface StatsSnapshot {
  sum: number;
  tps: number;
  avgpt: number;
  times: number;
}

interface CallSnapshot {
  readonly timestamp: number;
  readonly times: number;
  readonly value: number;
}

export function emptyStatsSnapshot(): StatsSnapshot {
  return { sum: 0, tps: 0, avgpt: 0, times: 0 };
}

/**
 * Upstream's sampling periods (StatsItemSet.init): fixed there, not settings. Each window's first
 * snapshot is a zero one period back, so they are also part of the arithmetic.
 */
export const StatsSamplingPeriod = {
  /** samplingInSeconds: the minute's snapshots. */
  SECONDS: 10_000,
  /** samplingInMinutes: the hour's snapshots. */
  MINUTES: 600_000,
  /** samplingInHour: the day's snapshots. */
  HOUR: 3_600_000,
} as const;

function sampleInto(
  list: CallSnapshot[],
  now: number,
  interval: number,
  keep: number,
  item: StatsItem,
): void {
  if (list.length === 0) list.push({ timestamp: now - interval, times: 0, value: 0 });
  list.push({ timestamp: now, times: item.times, value: item.value });
  if (list.length > keep) list.shift();
}

/** Upstream `computeStatsData`: first to last snapshot of the window. */
function compute(list: readonly CallSnapshot[]): StatsSnapshot {
  const first = list[0];
  const last = list.at(-1);
  if (first === undefined || last === undefined) return emptyStatsSnapshot();
  const sum = last.value - first.value;
  const tps = (sum * 1000) / (last.timestamp - first.timestamp);
  const times = last.times - first.times;
  return { sum, tps, avgpt: times > 0 ? sum / times : 0, times };
}

export class StatsItem {
  /** Total added (upstream's LongAdder `value`). */
  value = 0;
  /** How many adds (upstream's `times`). */
  times = 0;
  private readonly csListMinute: CallSnapshot[] = [];
  private readonly csListHour: CallSnapshot[] = [];
  private readonly csListDay: CallSnapshot[] = [];

  constructor(
    readonly statsName: string,
    readonly statsKey: string,
    /** An RTStatsItem: a response time, where only times and avgpt mean something. */
    readonly rt = false,
  ) {}

  add(value: number, times: number): void {
    this.value += value;
    this.times += times;
  }

  samplingInSeconds(now: number): void {
    sampleInto(this.csListMinute, now, StatsSamplingPeriod.SECONDS, 7, this);
  }

  samplingInMinutes(now: number): void {
    sampleInto(this.csListHour, now, StatsSamplingPeriod.MINUTES, 7, this);
  }

  samplingInHour(now: number): void {
    sampleInto(this.csListDay, now, StatsSamplingPeriod.HOUR, 25, this);
  }

  getStatsDataInMinute(): StatsSnapshot {
    return compute(this.csListMinute);
  }

  getStatsDataInHour(): StatsSnapshot {
    return compute(this.csListHour);
  }

  getStatsDataInDay(): StatsSnapshot {
    return compute(this.csListDay);
  }
}
