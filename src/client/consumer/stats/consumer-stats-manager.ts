/**
 * ConsumerStatsManager (`client/.../stat/ConsumerStatsManager.java`): what a client instance counts
 * for each `topic@group` its consumers read — pull RT and TPS, consume RT, consumed OK and failed
 * TPS — and the ConsumeStatus GET_CONSUMER_RUNNING_INFO reports per subscribed topic.
 *
 * Who calls what (upstream 4.9.8):
 *  - the pull callback, on FOUND: incPullRT(group, topic, ms since the pull was sent), then, when
 *    messages are left after the client's tag check, incPullTPS(group, topic, their count);
 *  - both consume services after the listener returns: incConsumeRT(group, topic, ms it took);
 *  - concurrent processConsumeResult: CONSUME_SUCCESS → incConsumeOKTPS(ackIndex + 1, ackIndex
 *    capped at the batch's last) and incConsumeFailedTPS(the rest, possibly 0); RECONSUME_LATER →
 *    incConsumeFailedTPS(the whole batch);
 *  - orderly processConsumeResult, autoCommit: SUCCESS (and COMMIT / ROLLBACK, taken as SUCCESS) →
 *    OK for the batch, SUSPEND_CURRENT_QUEUE_A_MOMENT → failed for the batch; without autoCommit:
 *    SUCCESS → OK, SUSPEND → failed, COMMIT and ROLLBACK count nothing.
 *
 * start() samples every set at upstream's schedule (every 10 s, 10 min and hour, first right away)
 * on the instance's clock; shutdown() stops it.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import type { ConsumeStatus } from '../../../common/protocol/consume-status.js';
import type { StatsSnapshot } from '../../../common/stats/stats-item.js';
import { StatsItemSet } from '../../../common/stats/stats-item-set.js';
import { startStatsSampling } from '../../../common/stats/stats-sampling.js';

/** Upstream's set names. */
export const ConsumerStatsName = {
  TOPIC_AND_GROUP_CONSUME_OK_TPS: 'CONSUME_OK_TPS',
  TOPIC_AND_GROUP_CONSUME_FAILED_TPS: 'CONSUME_FAILED_TPS',
  TOPIC_AND_GROUP_CONSUME_RT: 'CONSUME_RT',
  TOPIC_AND_GROUP_PULL_TPS: 'PULL_TPS',
  TOPIC_AND_GROUP_PULL_RT: 'PULL_RT',
} as const;

/**
 * The managers of the consumers running in this process (between start() and shutdown()), for
 * registerClientMetrics, which reads them when a scrape asks.
 */
const running = new Set<ConsumerStatsManager>();

/** The stats of every consumer of this process that is running now. */
export function runningConsumerStats(): ReadonlySet<ConsumerStatsManager> {
  return running;
}

/** Upstream's key: `topic@group`. */
function statsKey(group: string, topic: string): string {
  return `${topic}@${group}`;
}

/** Upstream narrows every figure to a Java int before adding it; `| 0` is that cast. */
function javaInt(n: number): number {
  return n | 0;
}

export class ConsumerStatsManager {
  private readonly clock: Clock;
  readonly topicAndGroupConsumeOKTPS = new StatsItemSet(ConsumerStatsName.TOPIC_AND_GROUP_CONSUME_OK_TPS);
  readonly topicAndGroupConsumeRT = new StatsItemSet(ConsumerStatsName.TOPIC_AND_GROUP_CONSUME_RT);
  readonly topicAndGroupConsumeFailedTPS = new StatsItemSet(
    ConsumerStatsName.TOPIC_AND_GROUP_CONSUME_FAILED_TPS,
  );
  readonly topicAndGroupPullTPS = new StatsItemSet(ConsumerStatsName.TOPIC_AND_GROUP_PULL_TPS);
  readonly topicAndGroupPullRT = new StatsItemSet(ConsumerStatsName.TOPIC_AND_GROUP_PULL_RT);
  private sampling: TimerHandle | undefined;
  /**
   * group -> topic -> `topic@group`. The consume path records three figures per listener call; a key
   * built afresh each time must be hashed each time (a tenth of the push path's CPU in a profile),
   * while the group and topic strings it is looked up by are long-lived and hash once.
   */
  private readonly keys = new Map<string, Map<string, string>>();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** Starts sampling (idempotent). */
  start(): void {
    if (this.sampling !== undefined) return;
    running.add(this);
    this.sampling = startStatsSampling(this.clock, () => [
      this.topicAndGroupConsumeOKTPS,
      this.topicAndGroupConsumeRT,
      this.topicAndGroupConsumeFailedTPS,
      this.topicAndGroupPullTPS,
      this.topicAndGroupPullRT,
    ]);
  }

  /** Stops sampling; the figures stay readable. */
  shutdown(): void {
    this.sampling?.cancel();
    this.sampling = undefined;
    running.delete(this);
  }

  private statsKey(group: string, topic: string): string {
    let byTopic = this.keys.get(group);
    if (byTopic === undefined) {
      byTopic = new Map();
      this.keys.set(group, byTopic);
    }
    let key = byTopic.get(topic);
    if (key === undefined) {
      key = statsKey(group, topic);
      byTopic.set(topic, key);
    }
    return key;
  }

  incPullRT(group: string, topic: string, rt: number): void {
    this.topicAndGroupPullRT.addRTValue(this.statsKey(group, topic), javaInt(rt), 1);
  }

  incPullTPS(group: string, topic: string, msgs: number): void {
    this.topicAndGroupPullTPS.addValue(this.statsKey(group, topic), javaInt(msgs), 1);
  }

  incConsumeRT(group: string, topic: string, rt: number): void {
    this.topicAndGroupConsumeRT.addRTValue(this.statsKey(group, topic), javaInt(rt), 1);
  }

  incConsumeOKTPS(group: string, topic: string, msgs: number): void {
    this.topicAndGroupConsumeOKTPS.addValue(this.statsKey(group, topic), javaInt(msgs), 1);
  }

  incConsumeFailedTPS(group: string, topic: string, msgs: number): void {
    this.topicAndGroupConsumeFailedTPS.addValue(this.statsKey(group, topic), javaInt(msgs), 1);
  }

  /**
   * The figures of `topic@group`: pull RT (average ms per pull) and TPS, consume OK and failed TPS
   * over the last minute; consume RT over the last minute, or the last hour when the minute saw no
   * consumption; failed messages over the last hour.
   */
  consumeStatus(group: string, topic: string): ConsumeStatus {
    const key = statsKey(group, topic);
    return {
      pullRT: this.topicAndGroupPullRT.getStatsDataInMinute(key).avgpt,
      pullTPS: this.topicAndGroupPullTPS.getStatsDataInMinute(key).tps,
      consumeRT: this.getConsumeRT(key).avgpt,
      consumeOKTPS: this.topicAndGroupConsumeOKTPS.getStatsDataInMinute(key).tps,
      consumeFailedTPS: this.topicAndGroupConsumeFailedTPS.getStatsDataInMinute(key).tps,
      consumeFailedMsgs: BigInt(this.topicAndGroupConsumeFailedTPS.getStatsDataInHour(key).sum),
    };
  }

  private getConsumeRT(key: string): StatsSnapshot {
    const minute = this.topicAndGroupConsumeRT.getStatsDataInMinute(key);
    return minute.sum === 0 ? this.topicAndGroupConsumeRT.getStatsDataInHour(key) : minute;
  }
}
