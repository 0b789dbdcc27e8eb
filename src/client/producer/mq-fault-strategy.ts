/**
 * MQFaultStrategy: which queue a send goes to. Without `sendLatencyFaultEnable` (the default) it is
 * the round robin of TopicPublishInfo, skipping the broker that just failed. With it, brokers whose
 * last send was slow or failed are avoided for a while: a send that took at least latencyMax[i] ms
 * isolates its broker for notAvailableDuration[i] ms, and a failed one counts as 30 s of latency.
 */
import type { Clock } from '../../common/clock.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { LatencyFaultTolerance } from './latency-fault-tolerance.js';
import type { TopicPublishInfo } from './topic-publish-info.js';

export const DEFAULT_LATENCY_MAX: readonly number[] = [50, 100, 550, 1000, 2000, 3000, 15000];
export const DEFAULT_NOT_AVAILABLE_DURATION: readonly number[] = [0, 0, 30000, 60000, 120000, 180000, 600000];
/** The latency a failed send is charged (upstream's `isolation ? 30000 : currentLatency`). */
const ISOLATION_LATENCY_MS = 30_000;

export interface FaultStrategyOptions {
  sendLatencyFaultEnable: boolean;
  latencyMax: readonly number[];
  notAvailableDuration: readonly number[];
}

export class MQFaultStrategy {
  readonly options: Readonly<FaultStrategyOptions>;
  readonly latencyFaultTolerance: LatencyFaultTolerance;

  constructor(options: FaultStrategyOptions, clock: Clock) {
    this.options = options;
    this.latencyFaultTolerance = new LatencyFaultTolerance(clock);
  }

  selectOneMessageQueue(info: TopicPublishInfo, lastBrokerName: string | undefined): MessageQueue {
    if (!this.options.sendLatencyFaultEnable) return info.selectOneMessageQueue(lastBrokerName);
    const list = info.messageQueueList;
    let index = info.sendWhichQueue.incrementAndGet();
    for (let i = 0; i < list.length; i++) {
      const mq = list[index++ % list.length] as MessageQueue;
      if (this.latencyFaultTolerance.isAvailable(mq.brokerName)) return mq;
    }
    const notBestBroker = this.latencyFaultTolerance.pickOneAtLeast();
    if (notBestBroker !== undefined) {
      const writeQueueNums = info.getQueueIdByBroker(notBestBroker);
      if (writeQueueNums > 0) {
        const mq = info.selectOneMessageQueue();
        return new MessageQueue(
          mq.topic,
          notBestBroker,
          info.sendWhichQueue.incrementAndGet() % writeQueueNums,
        );
      }
      this.latencyFaultTolerance.remove(notBestBroker);
    }
    return info.selectOneMessageQueue();
  }

  updateFaultItem(brokerName: string, currentLatency: number, isolation: boolean): void {
    if (!this.options.sendLatencyFaultEnable) return;
    const duration = this.computeNotAvailableDuration(isolation ? ISOLATION_LATENCY_MS : currentLatency);
    this.latencyFaultTolerance.updateFaultItem(brokerName, currentLatency, duration);
  }

  private computeNotAvailableDuration(latency: number): number {
    const { latencyMax, notAvailableDuration } = this.options;
    for (let i = latencyMax.length - 1; i >= 0; i--) {
      if (latency >= (latencyMax[i] as number)) return notAvailableDuration[i] ?? 0;
    }
    return 0;
  }
}
