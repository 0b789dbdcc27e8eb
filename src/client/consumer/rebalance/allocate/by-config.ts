/**
 * Upstream AllocateMessageQueueByConfig: a fixed list of queues, whatever the group looks like. Like
 * upstream it skips the input check, so it never throws and ignores every argument.
 */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import type { AllocateMessageQueueStrategy } from './allocate-message-queue-strategy.js';

export class AllocateMessageQueueByConfig implements AllocateMessageQueueStrategy {
  readonly name = 'CONFIG';
  readonly messageQueueList: readonly MessageQueue[];

  constructor(messageQueueList: readonly MessageQueue[]) {
    this.messageQueueList = [...messageQueueList];
  }

  allocate(
    _consumerGroup: string,
    _currentCID: string,
    _mqAll: readonly MessageQueue[],
    _cidAll: readonly string[],
  ): MessageQueue[] {
    return [...this.messageQueueList];
  }
}
