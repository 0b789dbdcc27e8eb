/** PullRequest: the one pull of a queue in flight or scheduled, and where it starts. */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { ProcessQueue } from '../process-queue.js';

export class PullRequest {
  readonly consumerGroup: string;
  readonly messageQueue: MessageQueue;
  readonly processQueue: ProcessQueue;
  nextOffset: bigint;
  /** Orderly: the start offset was re-read from the offset store after the lock was first held. */
  previouslyLocked = false;

  constructor(
    consumerGroup: string,
    messageQueue: MessageQueue,
    processQueue: ProcessQueue,
    nextOffset: bigint,
  ) {
    this.consumerGroup = consumerGroup;
    this.messageQueue = messageQueue;
    this.processQueue = processQueue;
    this.nextOffset = nextOffset;
  }

  toString(): string {
    return `PullRequest [consumerGroup=${this.consumerGroup}, messageQueue=${this.messageQueue.toString()}, nextOffset=${this.nextOffset}]`;
  }
}
