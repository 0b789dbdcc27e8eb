/**
 * TopicPublishInfo: the writable queues of a topic as a producer sees them, and the round robin over
 * them. Built from a route by `topicRouteData2TopicPublishInfo` whenever the route changes.
 */
import { PermName } from '../../common/constants.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { TopicRouteData } from '../../common/protocol/route.js';

const POSITIVE_MASK = 0x7fffffff;

/** Upstream's ThreadLocalIndex with one thread: a counter from a random start, never negative. */
export class SendQueueIndex {
  private value: number;

  constructor(start: number = Math.floor(Math.random() * 0x80000000)) {
    this.value = start | 0;
  }

  incrementAndGet(): number {
    this.value = (this.value + 1) | 0;
    return this.value & POSITIVE_MASK;
  }
}

export class TopicPublishInfo {
  /** Queues come from the route's orderTopicConf (`broker:queues;...`). */
  orderTopic = false;
  /** The name server answered for this topic (as opposed to a placeholder while asking). */
  haveTopicRouterInfo = false;
  readonly messageQueueList: MessageQueue[] = [];
  readonly sendWhichQueue: SendQueueIndex;
  topicRouteData: TopicRouteData | undefined = undefined;

  constructor(sendWhichQueue: SendQueueIndex = new SendQueueIndex()) {
    this.sendWhichQueue = sendWhichQueue;
  }

  ok(): boolean {
    return this.messageQueueList.length > 0;
  }

  /** The next queue in turn, preferring one not on `lastBrokerName` (the broker that just failed). */
  selectOneMessageQueue(lastBrokerName?: string): MessageQueue {
    const list = this.messageQueueList;
    if (lastBrokerName !== undefined) {
      for (let i = 0; i < list.length; i++) {
        const mq = list[this.sendWhichQueue.incrementAndGet() % list.length] as MessageQueue;
        if (mq.brokerName !== lastBrokerName) return mq;
      }
    }
    return list[this.sendWhichQueue.incrementAndGet() % list.length] as MessageQueue;
  }

  /** Write queue count of `brokerName` in the route, -1 when the route has no writable queues there. */
  getQueueIdByBroker(brokerName: string): number {
    const qd = this.topicRouteData?.queueDatas.find(
      (q) => PermName.isWriteable(q.perm) && q.brokerName === brokerName,
    );
    return qd === undefined ? -1 : qd.writeQueueNums;
  }
}
