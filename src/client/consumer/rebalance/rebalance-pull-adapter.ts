/**
 * RebalancePullImpl: what rebalancing does for a pull consumer. The application pulls from the
 * offsets it chooses, so rebalancing only says which queues are this member's (messageQueueChanged);
 * a queue that leaves has its offset persisted and forgotten, a new one starts at 0 and gets no
 * PullRequest. The lite pull adapter extends it with where its pull tasks start.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ConsumeType } from '../../../common/protocol/heartbeat-data.js';
import type { OffsetStore } from '../offset/offset-store.js';
import type { ProcessQueue } from '../process-queue.js';
import type { RebalanceAdapter } from './rebalance-impl.js';

export interface PullRebalanceHost {
  readonly offsetStore: OffsetStore;
  /** The queues of `topic` this member reads changed. */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void;
}

export class RebalancePullAdapter implements RebalanceAdapter {
  private readonly pullHost: PullRebalanceHost;

  constructor(host: PullRebalanceHost) {
    this.pullHost = host;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_ACTIVELY;
  }

  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    this.pullHost.messageQueueChanged(topic, mqAll, mqDivided);
  }

  async removeUnnecessaryMessageQueue(mq: MessageQueue, _pq: ProcessQueue): Promise<boolean> {
    await this.pullHost.offsetStore.persist(mq);
    this.pullHost.offsetStore.removeOffset(mq);
    return true;
  }

  removeDirtyOffset(mq: MessageQueue): void {
    this.pullHost.offsetStore.removeOffset(mq);
  }

  /** The application chooses where to pull; rebalancing only decides which queues are ours. */
  async computePullFromWhere(_mq: MessageQueue): Promise<bigint> {
    return 0n;
  }

  dispatchPullRequest(): void {}
}
