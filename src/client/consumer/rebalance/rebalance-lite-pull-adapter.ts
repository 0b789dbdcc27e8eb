/**
 * RebalanceLitePullImpl: what rebalancing does for a lite pull consumer. The queues it holds feed its
 * pull tasks (messageQueueChanged); a queue that leaves has its offset persisted; a new queue starts
 * where computePullFromWhere says, and no PullRequest is dispatched (the pull tasks do the pulling).
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ConsumeType } from '../../../common/protocol/heartbeat-data.js';
import type { OffsetStore } from '../offset/offset-store.js';
import type { ProcessQueue } from '../process-queue.js';
import { computePullFromWhere, type PullFromWhereContext } from './compute-pull-from-where.js';
import type { RebalanceAdapter } from './rebalance-impl.js';

export interface LitePullRebalanceHost {
  readonly offsetStore: OffsetStore;
  pullFromWhereContext(): PullFromWhereContext;
  /** The queues of `topic` this member reads changed. */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void;
}

export class RebalanceLitePullAdapter implements RebalanceAdapter {
  private readonly host: LitePullRebalanceHost;

  constructor(host: LitePullRebalanceHost) {
    this.host = host;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_ACTIVELY;
  }

  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    this.host.messageQueueChanged(topic, mqAll, mqDivided);
  }

  async removeUnnecessaryMessageQueue(mq: MessageQueue, _pq: ProcessQueue): Promise<boolean> {
    await this.host.offsetStore.persist(mq);
    this.host.offsetStore.removeOffset(mq);
    return true;
  }

  removeDirtyOffset(mq: MessageQueue): void {
    this.host.offsetStore.removeOffset(mq);
  }

  computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    return computePullFromWhere(this.host.pullFromWhereContext(), mq);
  }

  dispatchPullRequest(): void {}
}
