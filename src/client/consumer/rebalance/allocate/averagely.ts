/**
 * Upstream AllocateMessageQueueAveragely (the default): contiguous blocks of the sorted queues; the
 * first `size % members` members take one queue more. With more members than queues, the members
 * past the queue count get nothing.
 */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { AbstractAllocateMessageQueueStrategy } from './allocate-message-queue-strategy.js';

export class AllocateMessageQueueAveragely extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'AVG';

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return result;

    const index = cidAll.indexOf(currentCID);
    const mod = mqAll.length % cidAll.length;
    const quotient = Math.trunc(mqAll.length / cidAll.length);
    const takesExtra = mod > 0 && index < mod;
    const averageSize = mqAll.length <= cidAll.length ? 1 : takesExtra ? quotient + 1 : quotient;
    const startIndex = takesExtra ? index * averageSize : index * averageSize + mod;
    // Negative once startIndex passes the end (more members than queues): no queue.
    const range = Math.min(averageSize, mqAll.length - startIndex);
    for (let i = 0; i < range; i++) {
      result.push(mqAll[(startIndex + i) % mqAll.length] as MessageQueue);
    }
    return result;
  }
}
