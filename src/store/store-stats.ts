/**
 * Counters of the store and upstream StoreStatsService's view of them: the put/get totals the hot
 * paths bump (plain numbers, no allocation), a put-latency histogram, and once started a sample of
 * the totals every second (the last 601 kept) from which the runtime info's TPS figures come. Every
 * 60 s the latency histogram is rotated: the runtime info reports the last complete minute.
 */
import type { Clock, TimerHandle } from '../common/clock.js';
import { javaDoubleString, javaFormatFixed, javaGroupedLong } from '../common/java-format.js';

const SAMPLING_INTERVAL = 1000;
const MAX_RECORDS_OF_SAMPLING = 600;
const PRINT_TPS_INTERVAL = 60_000;

/** Upstream PUT_MESSAGE_ENTIRE_TIME_MAX_DESC: the 13 ranges of putMessageDistributeTime. */
const DISTRIBUTE_TIME_DESC = [
  '[<=0ms]',
  '[0~10ms]',
  '[10~50ms]',
  '[50~100ms]',
  '[100~200ms]',
  '[200~500ms]',
  '[500ms~1s]',
  '[1~2s]',
  '[2~3s]',
  '[3~4s]',
  '[4~5s]',
  '[5~10s]',
  '[10s~]',
] as const;
/** Lower bounds (ms) of the ranges after the first two: a put of 0 ms or less is `[<=0ms]`. */
const DISTRIBUTE_TIME_LIMITS = [10, 50, 100, 200, 500, 1000, 2000, 3000, 4000, 5000, 10000];

/** Upper bounds of the latency buckets (ms): 1..20 by 1, ..50 by 2, ..100 by 5, ..200 by 10, ..500 by 50, ..1000 by 100, ..10000 by 1000, then the rest. */
const LATENCY_BUCKETS: readonly number[] = (() => {
  const out: number[] = [];
  let bound = 0;
  for (const [step, count] of [
    [1, 20],
    [2, 15],
    [5, 10],
    [10, 10],
    [50, 6],
    [100, 5],
    [1000, 9],
  ] as const) {
    for (let i = 0; i < count; i++) {
      bound += step;
      out.push(bound);
    }
  }
  out.push(Number.MAX_SAFE_INTEGER);
  return out;
})();

interface CallSnapshot {
  readonly timestamp: number;
  readonly total: number;
}

function tps(begin: CallSnapshot, end: CallSnapshot): number {
  return ((end.total - begin.total) / (end.timestamp - begin.timestamp)) * 1000;
}

export class StoreStats {
  putMessageTimesTotal = 0;
  putMessageSizeTotal = 0;
  putMessageFailedTimes = 0;
  getMessageTimesTotalFound = 0;
  getMessageTimesTotalMiss = 0;
  getMessageTransferedMsgCount = 0;
  getMessageEntireTimeMax = 0;
  /** Longest put (ms) since the store started. */
  putMessageEntireTimeMax = 0;
  /** Upstream's largest reput buffer; dispatch here needs none, so it stays 0. */
  dispatchMaxBuffer = 0;
  /** When the stats service started (upstream: when the store was built). */
  bootTimestamp = 0;
  private distributeTime: number[] = new Array<number>(DISTRIBUTE_TIME_DESC.length).fill(0);
  /** The previous minute's histogram; none before the first minute has passed (upstream prints "null"). */
  private lastDistributeTime: number[] | undefined;
  private buckets: number[] = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  private lastBuckets: number[] | undefined;
  private readonly putTimes: CallSnapshot[] = [];
  private readonly getFound: CallSnapshot[] = [];
  private readonly getMiss: CallSnapshot[] = [];
  private readonly transfered: CallSnapshot[] = [];
  private lastPrintTimestamp = 0;
  private clock: Clock | undefined;
  private timer: TimerHandle | undefined;

  /** Starts sampling every second; the runtime's boot time is now. */
  start(clock: Clock): void {
    if (this.timer !== undefined) return;
    this.clock = clock;
    this.bootTimestamp = clock.now();
    this.lastPrintTimestamp = this.bootTimestamp;
    const tick = (): void => {
      this.timer = clock.setTimeout(tick, SAMPLING_INTERVAL);
      this.sample(clock.now());
    };
    this.timer = clock.setTimeout(tick, SAMPLING_INTERVAL);
  }

  shutdown(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Upstream `setPutMessageEntireTimeMax`: one put took `ms` (histogram, buckets and maximum). */
  recordPutTime(ms: number): void {
    let b = 0;
    while ((LATENCY_BUCKETS[b] ?? Number.MAX_SAFE_INTEGER) < ms) b++;
    this.buckets[b] = (this.buckets[b] ?? 0) + 1;
    let d = 0;
    if (ms > 0) {
      d = 1;
      while (d <= DISTRIBUTE_TIME_LIMITS.length && ms >= (DISTRIBUTE_TIME_LIMITS[d - 1] ?? 0)) d++;
    }
    this.distributeTime[d] = (this.distributeTime[d] ?? 0) + 1;
    if (ms > this.putMessageEntireTimeMax) this.putMessageEntireTimeMax = ms;
  }

  /** One sampling round (upstream `sampling` then `printTps`, which rotates the histograms each minute). */
  sample(now: number): void {
    push(this.putTimes, { timestamp: now, total: this.putMessageTimesTotal });
    push(this.getFound, { timestamp: now, total: this.getMessageTimesTotalFound });
    push(this.getMiss, { timestamp: now, total: this.getMessageTimesTotalMiss });
    push(this.transfered, { timestamp: now, total: this.getMessageTransferedMsgCount });
    if (now > this.lastPrintTimestamp + PRINT_TPS_INTERVAL) {
      this.lastPrintTimestamp = now;
      this.lastDistributeTime = this.distributeTime;
      this.distributeTime = new Array<number>(DISTRIBUTE_TIME_DESC.length).fill(0);
      this.lastBuckets = this.buckets;
      this.buckets = new Array<number>(LATENCY_BUCKETS.length).fill(0);
    }
  }

  /**
   * Upstream `findPutMessageEntireTimePX`: the put latency (ms) below which a fraction `px` of the
   * last minute's puts fell, interpolated inside its bucket.
   */
  putLatency(px: number): number {
    const counts = this.lastBuckets;
    if (counts === undefined) return 0;
    const total = counts.reduce((a, b) => a + b, 0);
    const pxIndex = Math.trunc(total * px);
    let passed = 0;
    for (let i = 0; i < counts.length; i++) {
      const count = counts[i] ?? 0;
      const bound = LATENCY_BUCKETS[i] ?? 0;
      if (pxIndex <= passed + count) {
        const relative = pxIndex - passed;
        if (i === 0) return count === 0 ? 0 : (bound * relative) / count;
        const previous = LATENCY_BUCKETS[i - 1] ?? 0;
        return previous + (count === 0 ? 0 : ((bound - previous) * relative) / count);
      }
      passed += count;
    }
    return 0;
  }

  /**
   * Upstream StoreStatsService.getRuntimeInfo: its 17 keys with upstream's values, in upstream's put
   * order. `now` defaults to the clock the service started with.
   */
  getRuntimeInfo(now = this.clock?.now() ?? this.bootTimestamp): Map<string, string> {
    const totalTimes = this.putMessageTimesTotal === 0 ? 1 : this.putMessageTimesTotal;
    return new Map([
      ['bootTimestamp', String(this.bootTimestamp)],
      ['runtime', formatRuntime(now - this.bootTimestamp)],
      ['putMessageEntireTimeMax', String(this.putMessageEntireTimeMax)],
      ['putMessageTimesTotal', String(totalTimes)],
      ['putMessageFailedTimes', String(this.putMessageFailedTimes)],
      ['putMessageSizeTotal', String(this.putMessageSizeTotal)],
      ['putMessageDistributeTime', this.distributeTimeText()],
      ['putMessageAverageSize', javaDoubleString(this.putMessageSizeTotal / totalTimes)],
      ['dispatchMaxBuffer', String(this.dispatchMaxBuffer)],
      ['getMessageEntireTimeMax', String(this.getMessageEntireTimeMax)],
      ['putTps', tpsText(this.putTimes)],
      ['getFoundTps', tpsText(this.getFound)],
      ['getMissTps', tpsText(this.getMiss)],
      ['getTotalTps', [10, 60, 600].map((t) => javaDoubleString(this.getTotalTps(t))).join(' ')],
      ['getTransferedTps', tpsText(this.transfered)],
      ['putLatency99', javaFormatFixed(this.putLatency(0.99), 2)],
      ['putLatency999', javaFormatFixed(this.putLatency(0.999), 2)],
    ]);
  }

  private distributeTimeText(): string {
    const times = this.lastDistributeTime;
    if (times === undefined) return 'null';
    return DISTRIBUTE_TIME_DESC.map((desc, i) => `${desc}:${times[i] ?? 0} `).join('');
  }

  private getTotalTps(time: number): number {
    return tpsOver(this.getFound, time) + tpsOver(this.getMiss, time);
  }
}

function push(list: CallSnapshot[], s: CallSnapshot): void {
  list.push(s);
  if (list.length > MAX_RECORDS_OF_SAMPLING + 1) list.shift();
}

/** TPS over the last `time` samples, 0 when there are not that many yet. */
function tpsOver(list: readonly CallSnapshot[], time: number): number {
  const last = list.at(-1);
  const before = list[list.length - (time + 1)];
  return last === undefined || before === undefined || list.length <= time ? 0 : tps(before, last);
}

/** "<10 s> <1 min> <10 min>", each empty until enough samples exist (upstream's getPutTps()). */
function tpsText(list: readonly CallSnapshot[]): string {
  return [10, 60, 600].map((t) => (list.length > t ? javaDoubleString(tpsOver(list, t)) : '')).join(' ');
}

/** Upstream `getFormatRuntime`: "[ d days, h hours, m minutes, s seconds ]". */
function formatRuntime(ms: number): string {
  const time = Math.max(0, ms);
  const days = Math.floor(time / 86_400_000);
  const hours = Math.floor((time % 86_400_000) / 3_600_000);
  const minutes = Math.floor((time % 3_600_000) / 60_000);
  const seconds = Math.floor((time % 60_000) / 1000);
  return `[ ${javaGroupedLong(days)} days, ${hours} hours, ${minutes} minutes, ${seconds} seconds ]`;
}
