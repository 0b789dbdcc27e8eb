/**
 * Upstream AllocateMessageQueueAveragely (the default): contiguous blocks of the sorted queues; the
 * first `size % members` members take one queue more. With more members than queues, the members
 * past the queue count get nothing.
 */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { allocateAveragely } from '../../../../common/rebalance/allocate-queues.js';
import { AbstractAllocateMessageQueueStrategy } from './allocate-message-queue-strategy.js';

export class AllocateMessageQueueAveragely extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'AVG';

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return [];
    return allocateAveragely(currentCID, mqAll, cidAll);
  }
}
