/** Upstream AllocateMessageQueueAveragelyByCircle: queue i goes to member i mod size, dealt like cards. */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { AbstractAllocateMessageQueueStrategy } from './allocate-message-queue-strategy.js';

export class AllocateMessageQueueAveragelyByCircle extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'AVG_BY_CIRCLE';

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return result;

    // indexOf finds the first copy of a duplicated id, so every copy takes the same queues.
    const index = cidAll.indexOf(currentCID);
    for (let i = index; i < mqAll.length; i += cidAll.length) {
      result.push(mqAll[i] as MessageQueue);
    }
    return result;
  }
}
