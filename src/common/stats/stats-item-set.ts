/**
 * StatsItemSet (`common/.../stats/StatsItemSet.java`): the items of one statistic by key (a topic,
 * `topic@group`, ...), created on first use. The owner calls the sampling methods on upstream's
 * schedule, through startStatsSampling (stats-sampling.ts).
 */
import { emptyStatsSnapshot, StatsItem, type StatsSnapshot } from './stats-item.js';

/**
 * Keys are made of client-chosen names (topics, groups), so a set is bounded: creating a key beyond
 * `maxKeys` drops the oldest-created one (its counts only, statistics are all that is lost). Upstream
 * keeps every key until the topic or group is deleted.
 */
export class StatsItemSet {
  private readonly statsItemTable = new Map<string, StatsItem>();
  /** Keys dropped to stay within maxKeys. */
  evictedCount = 0;

  constructor(
    readonly statsName: string,
    readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  addValue(statsKey: string, incValue: number, incTimes: number): void {
    this.getAndCreateStatsItem(statsKey).add(incValue, incTimes);
  }

  /** Same as addValue for an RTStatsItem (a latency: the key's first use decides the kind). */
  addRTValue(statsKey: string, incValue: number, incTimes: number): void {
    this.getAndCreateRTStatsItem(statsKey).add(incValue, incTimes);
  }

  delValue(statsKey: string): void {
    this.statsItemTable.delete(statsKey);
  }

  /** Drops keys starting with `statsKey + separator` (a topic's `topic@...` keys). */
  delValueByPrefixKey(statsKey: string, separator: string): void {
    this.deleteWhere((k) => k.startsWith(statsKey + separator));
  }

  /** Drops keys containing `separator + statsKey + separator`. */
  delValueByInfixKey(statsKey: string, separator: string): void {
    this.deleteWhere((k) => k.includes(separator + statsKey + separator));
  }

  /** Drops keys ending with `separator + statsKey` (a group's `...@group` keys). */
  delValueBySuffixKey(statsKey: string, separator: string): void {
    this.deleteWhere((k) => k.endsWith(separator + statsKey));
  }

  private deleteWhere(match: (key: string) => boolean): void {
    for (const key of [...this.statsItemTable.keys()]) if (match(key)) this.statsItemTable.delete(key);
  }

  getAndCreateStatsItem(statsKey: string): StatsItem {
    return this.getAndCreateItem(statsKey, false);
  }

  getAndCreateRTStatsItem(statsKey: string): StatsItem {
    return this.getAndCreateItem(statsKey, true);
  }

  private getAndCreateItem(statsKey: string, rt: boolean): StatsItem {
    let item = this.statsItemTable.get(statsKey);
    if (item === undefined) {
      if (this.statsItemTable.size >= this.maxKeys) this.evictOldest();
      item = new StatsItem(this.statsName, statsKey, rt);
      this.statsItemTable.set(statsKey, item);
    }
    return item;
  }

  private evictOldest(): void {
    const oldest = this.statsItemTable.keys().next();
    if (oldest.done === true) return;
    this.statsItemTable.delete(oldest.value);
    this.evictedCount++;
  }

  /** Keys present. */
  get size(): number {
    return this.statsItemTable.size;
  }

  getStatsItem(statsKey: string): StatsItem | undefined {
    return this.statsItemTable.get(statsKey);
  }

  /** The keys present, in creation order. */
  keys(): string[] {
    return [...this.statsItemTable.keys()];
  }

  getStatsDataInMinute(statsKey: string): StatsSnapshot {
    return this.statsItemTable.get(statsKey)?.getStatsDataInMinute() ?? emptyStatsSnapshot();
  }

  getStatsDataInHour(statsKey: string): StatsSnapshot {
    return this.statsItemTable.get(statsKey)?.getStatsDataInHour() ?? emptyStatsSnapshot();
  }

  getStatsDataInDay(statsKey: string): StatsSnapshot {
    return this.statsItemTable.get(statsKey)?.getStatsDataInDay() ?? emptyStatsSnapshot();
  }

  samplingInSeconds(now: number): void {
    for (const item of this.statsItemTable.values()) item.samplingInSeconds(now);
  }

  samplingInMinutes(now: number): void {
    for (const item of this.statsItemTable.values()) item.samplingInMinutes(now);
  }

  samplingInHour(now: number): void {
    for (const item of this.statsItemTable.values()) item.samplingInHour(now);
  }
}

/**
 * MomentStatsItemSet: a last-known value per key (how far a group's pull has fallen behind on disk,
 * in bytes or ms), overwritten rather than summed.
 */
export class MomentStatsItemSet {
  readonly statsItemTable = new Map<string, { value: number }>();

  /** Bounded as StatsItemSet is: the oldest-created key goes first. */
  constructor(
    readonly statsName: string,
    readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  getAndCreateStatsItem(statsKey: string): { value: number } {
    let item = this.statsItemTable.get(statsKey);
    if (item === undefined) {
      if (this.statsItemTable.size >= this.maxKeys) {
        const oldest = this.statsItemTable.keys().next();
        if (oldest.done !== true) this.statsItemTable.delete(oldest.value);
      }
      item = { value: 0 };
      this.statsItemTable.set(statsKey, item);
    }
    return item;
  }

  setValue(statsKey: string, value: number): void {
    this.getAndCreateStatsItem(statsKey).value = value;
  }

  delValueByInfixKey(statsKey: string, separator: string): void {
    for (const key of [...this.statsItemTable.keys()]) {
      if (key.includes(separator + statsKey + separator)) this.statsItemTable.delete(key);
    }
  }

  delValueBySuffixKey(statsKey: string, separator: string): void {
    for (const key of [...this.statsItemTable.keys()]) {
      if (key.endsWith(separator + statsKey)) this.statsItemTable.delete(key);
    }
  }
}
