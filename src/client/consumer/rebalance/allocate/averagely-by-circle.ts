/** Upstream AllocateMessageQueueAveragelyByCircle: queue i goes to member i mod size, dealt like cards. */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { allocateAveragelyByCircle } from '../../../../common/rebalance/allocate-queues.js';
import { AbstractAllocateMessageQueueStrategy } from './allocate-message-queue-strategy.js';

export class AllocateMessageQueueAveragelyByCircle extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'AVG_BY_CIRCLE';

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return [];
    return allocateAveragelyByCircle(currentCID, mqAll, cidAll);
  }
}
