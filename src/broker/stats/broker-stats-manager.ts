/**
 * BrokerStatsManager (`store/.../stats/BrokerStatsManager.java`): the broker's named counters, each a
 * StatsItemSet keyed by topic, `topic@group`, `topic@queueId`... The send and pull paths bump them;
 * VIEW_BROKER_STATS_DATA reads one item's minute/hour/day figures and GET_CONSUME_STATS a group's
 * get TPS. start() samples every set every 10 s, 10 min and hour (first right away), as upstream's
 * sets do from their construction; shutdown() stops that.
 *
 * Who calls what (upstream 4.9.8):
 *  - SEND_MESSAGE / SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE, on PUT_OK (and the other OK statuses):
 *    incTopicPutNums(topic, msgNum, 1), incTopicPutSize(topic, wroteBytes), incBrokerPutNums(msgNum);
 *    for the SCHEDULE_TOPIC_XXXX topic also incQueuePutNums(topic, queueId, msgNum, 1) and
 *    incQueuePutSize(topic, queueId, wroteBytes).
 *  - CONSUMER_SEND_MSG_BACK, on PUT_OK: incSendBackNums(group, original topic (its RETRY_TOPIC
 *    property if set)); when the message went to SCHEDULE_TOPIC_XXXX also incTopicPutNums(schedule
 *    topic), incTopicPutSize, incQueuePutNums(topic, queueId), incQueuePutSize.
 *  - PULL_MESSAGE answered SUCCESS (messages found): incGroupGetNums(group, topic, messageCount),
 *    incGroupGetSize(group, topic, bufferTotalSize), incBrokerGetNums(messageCount), and, as the body
 *    is copied (transferMsgByHeap), incGroupGetLatency(group, topic, queueId, now - begin of the
 *    request) and recordDiskFallBehindTime(group, topic, queueId, now - storeTimestamp of the last
 *    message returned).
 *  - Topic deletion: onTopicDeleted(topic); subscription group deletion: onGroupDeleted(group).
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { StatsItem } from '../../common/stats/stats-item.js';
import { MomentStatsItemSet, StatsItemSet } from '../../common/stats/stats-item-set.js';
import { startStatsSampling } from '../../common/stats/stats-sampling.js';
import { Stats } from './stats-names.js';

/** Upstream COMMERCIAL_OWNER: the request ext field naming a commercial owner. */
export const COMMERCIAL_OWNER = 'Owner';
/** Upstream SIZE_PER_COUNT: bytes one commercial "call" covers. */
export const SIZE_PER_COUNT = 64 * 1024;

/** Upstream's buildStatsKey overloads: the parts joined by `@`. */
export function buildStatsKey(...parts: ReadonlyArray<string | number>): string {
  return parts.join('@');
}

/** Upstream buildCommercialStatsKey: `owner@topic@group@type`. */
export function buildCommercialStatsKey(owner: string, topic: string, group: string, type: string): string {
  return `${owner}@${topic}@${group}@${type}`;
}

export interface BrokerStatsManagerOptions {
  /** The cluster name: the key of BROKER_PUT_NUMS and BROKER_GET_NUMS. */
  clusterName: string;
  /** Upstream enableDetailStat [true]: keep the per-queue sets and key latency by queue. */
  enableQueueStat?: boolean;
  clock: Clock;
  /** Keys each statistic keeps (broker.conf maxStatsItemsPerSet) [DEFAULT_MAX_STATS_ITEMS_PER_SET]. */
  maxStatsItemsPerSet?: number;
}

/**
 * Keys (topic, topic@group, queue@topic@group...) one statistic keeps before it drops its
 * oldest-created; each key costs about a kilobyte of samples. Our setting: upstream has no bound.
 */
export const DEFAULT_MAX_STATS_ITEMS_PER_SET = 100_000;

export class BrokerStatsManager {
  readonly clusterName: string;
  readonly enableQueueStat: boolean;
  private readonly clock: Clock;
  private readonly statsTable = new Map<string, StatsItemSet>();
  readonly momentStatsItemSetFallSize: MomentStatsItemSet;
  readonly momentStatsItemSetFallTime: MomentStatsItemSet;
  private sampling: TimerHandle | undefined;

  constructor(options: BrokerStatsManagerOptions) {
    this.clusterName = options.clusterName;
    this.enableQueueStat = options.enableQueueStat ?? true;
    this.clock = options.clock;
    const maxKeys = options.maxStatsItemsPerSet ?? DEFAULT_MAX_STATS_ITEMS_PER_SET;
    this.momentStatsItemSetFallSize = new MomentStatsItemSet(Stats.GROUP_GET_FALL_SIZE, maxKeys);
    this.momentStatsItemSetFallTime = new MomentStatsItemSet(Stats.GROUP_GET_FALL_TIME, maxKeys);
    const names: string[] = [];
    if (this.enableQueueStat) {
      names.push(Stats.QUEUE_PUT_NUMS, Stats.QUEUE_PUT_SIZE, Stats.QUEUE_GET_NUMS, Stats.QUEUE_GET_SIZE);
    }
    names.push(
      Stats.TOPIC_PUT_NUMS,
      Stats.TOPIC_PUT_SIZE,
      Stats.GROUP_GET_NUMS,
      Stats.GROUP_GET_SIZE,
      Stats.GROUP_GET_LATENCY,
      Stats.SNDBCK_PUT_NUMS,
      Stats.BROKER_PUT_NUMS,
      Stats.BROKER_GET_NUMS,
      Stats.GROUP_GET_FROM_DISK_NUMS,
      Stats.GROUP_GET_FROM_DISK_SIZE,
      Stats.BROKER_GET_FROM_DISK_NUMS,
      Stats.BROKER_GET_FROM_DISK_SIZE,
      Stats.COMMERCIAL_SEND_TIMES,
      Stats.COMMERCIAL_RCV_TIMES,
      Stats.COMMERCIAL_SEND_SIZE,
      Stats.COMMERCIAL_RCV_SIZE,
      Stats.COMMERCIAL_RCV_EPOLLS,
      Stats.COMMERCIAL_SNDBCK_TIMES,
      Stats.COMMERCIAL_PERM_FAILURES,
    );
    for (const name of names) this.statsTable.set(name, new StatsItemSet(name, maxKeys));
  }

  /** Starts sampling (idempotent). */
  start(): void {
    if (this.sampling !== undefined) return;
    this.sampling = startStatsSampling(this.clock, () => this.statsTable.values());
  }

  shutdown(): void {
    this.sampling?.cancel();
    this.sampling = undefined;
  }

  /** The named set, if this manager keeps it (the QUEUE_* sets only with enableQueueStat). */
  getStatsItemSet(statsName: string): StatsItemSet | undefined {
    return this.statsTable.get(statsName);
  }

  getStatsItem(statsName: string, statsKey: string): StatsItem | undefined {
    return this.statsTable.get(statsName)?.getStatsItem(statsKey);
  }

  private set(name: string): StatsItemSet | undefined {
    return this.statsTable.get(name);
  }

  onTopicDeleted(topic: string): void {
    this.set(Stats.TOPIC_PUT_NUMS)?.delValue(topic);
    this.set(Stats.TOPIC_PUT_SIZE)?.delValue(topic);
    for (const name of [
      Stats.QUEUE_PUT_NUMS,
      Stats.QUEUE_PUT_SIZE,
      Stats.GROUP_GET_NUMS,
      Stats.GROUP_GET_SIZE,
      Stats.QUEUE_GET_NUMS,
      Stats.QUEUE_GET_SIZE,
      Stats.SNDBCK_PUT_NUMS,
    ]) {
      this.set(name)?.delValueByPrefixKey(topic, '@');
    }
    this.set(Stats.GROUP_GET_LATENCY)?.delValueByInfixKey(topic, '@');
    this.momentStatsItemSetFallSize.delValueByInfixKey(topic, '@');
    this.momentStatsItemSetFallTime.delValueByInfixKey(topic, '@');
  }

  onGroupDeleted(group: string): void {
    for (const name of [
      Stats.GROUP_GET_NUMS,
      Stats.GROUP_GET_SIZE,
      Stats.QUEUE_GET_NUMS,
      Stats.QUEUE_GET_SIZE,
      Stats.SNDBCK_PUT_NUMS,
      Stats.GROUP_GET_LATENCY,
    ]) {
      this.set(name)?.delValueBySuffixKey(group, '@');
    }
    this.momentStatsItemSetFallSize.delValueBySuffixKey(group, '@');
    this.momentStatsItemSetFallTime.delValueBySuffixKey(group, '@');
  }

  /** Messages put into one queue (`topic@queueId`); kept only with enableQueueStat. */
  incQueuePutNums(topic: string, queueId: number, num = 1, times = 1): void {
    this.set(Stats.QUEUE_PUT_NUMS)?.addValue(buildStatsKey(topic, queueId), num, times);
  }

  incQueuePutSize(topic: string, queueId: number, size: number): void {
    this.set(Stats.QUEUE_PUT_SIZE)?.addValue(buildStatsKey(topic, queueId), size, 1);
  }

  /** Messages a group got from one queue (`topic@queueId@group`); kept only with enableQueueStat. */
  incQueueGetNums(group: string, topic: string, queueId: number, incValue: number): void {
    this.set(Stats.QUEUE_GET_NUMS)?.addValue(buildStatsKey(topic, queueId, group), incValue, 1);
  }

  incQueueGetSize(group: string, topic: string, queueId: number, incValue: number): void {
    this.set(Stats.QUEUE_GET_SIZE)?.addValue(buildStatsKey(topic, queueId, group), incValue, 1);
  }

  /** `num` messages put into `topic` by `times` requests. */
  incTopicPutNums(topic: string, num = 1, times = 1): void {
    this.set(Stats.TOPIC_PUT_NUMS)?.addValue(topic, num, times);
  }

  /** Bytes written to the commit log for `topic`. */
  incTopicPutSize(topic: string, size: number): void {
    this.set(Stats.TOPIC_PUT_SIZE)?.addValue(topic, size, 1);
  }

  /** Messages one pull of `group` returned from `topic` (key `topic@group`). */
  incGroupGetNums(group: string, topic: string, incValue: number): void {
    this.set(Stats.GROUP_GET_NUMS)?.addValue(buildStatsKey(topic, group), incValue, 1);
  }

  /** Bytes one pull of `group` returned from `topic`. */
  incGroupGetSize(group: string, topic: string, incValue: number): void {
    this.set(Stats.GROUP_GET_SIZE)?.addValue(buildStatsKey(topic, group), incValue, 1);
  }

  /** How long (ms) a pull took; keyed `queueId@topic@group` with enableQueueStat, else `topic@group`. */
  incGroupGetLatency(group: string, topic: string, queueId: number, incValue: number): void {
    const key = this.enableQueueStat ? buildStatsKey(queueId, topic, group) : buildStatsKey(topic, group);
    this.set(Stats.GROUP_GET_LATENCY)?.addRTValue(key, incValue, 1);
  }

  /** Messages put into the broker (key: the cluster name); adds without counting a time, as upstream. */
  incBrokerPutNums(incValue = 1): void {
    const item = this.set(Stats.BROKER_PUT_NUMS)?.getAndCreateStatsItem(this.clusterName);
    if (item !== undefined) item.value += incValue;
  }

  /** Messages pulled from the broker (key: the cluster name). */
  incBrokerGetNums(incValue: number): void {
    const item = this.set(Stats.BROKER_GET_NUMS)?.getAndCreateStatsItem(this.clusterName);
    if (item !== undefined) item.value += incValue;
  }

  /** One message sent back by `group` (key `topic@group`, the message's original topic). */
  incSendBackNums(group: string, topic: string): void {
    this.set(Stats.SNDBCK_PUT_NUMS)?.addValue(buildStatsKey(topic, group), 1, 1);
  }

  /** Messages per second `group` got from `topic` over the last minute (GET_CONSUME_STATS's consumeTps). */
  tpsGroupGetNums(group: string, topic: string): number {
    return this.set(Stats.GROUP_GET_NUMS)?.getStatsDataInMinute(buildStatsKey(topic, group)).tps ?? 0;
  }

  /** How far behind (ms) the last pull of `group` read, keyed `queueId@topic@group`. */
  recordDiskFallBehindTime(group: string, topic: string, queueId: number, fallBehind: number): void {
    this.momentStatsItemSetFallTime.setValue(buildStatsKey(queueId, topic, group), fallBehind);
  }

  /** How far behind (bytes) the last pull of `group` read, keyed `queueId@topic@group`. */
  recordDiskFallBehindSize(group: string, topic: string, queueId: number, fallBehind: number): void {
    this.momentStatsItemSetFallSize.setValue(buildStatsKey(queueId, topic, group), fallBehind);
  }

  /** A commercial counter (`key` one of the COMMERCIAL_* names), keyed `owner@topic@group@type`. */
  incCommercialValue(
    key: string,
    owner: string,
    group: string,
    topic: string,
    type: string,
    incValue: number,
  ): void {
    this.set(key)?.addValue(buildCommercialStatsKey(owner, topic, group, type), incValue, 1);
  }
}
