/** PopRequest (upstream's): one queue this member pops, and how a new group starts on it. */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { PopProcessQueue } from './pop-process-queue.js';

/** ConsumeInitMode: where a group without progress starts popping. */
export const ConsumeInitMode = { MIN: 0, MAX: 1 } as const;
export type ConsumeInitMode = (typeof ConsumeInitMode)[keyof typeof ConsumeInitMode];

export class PopRequest {
  constructor(
    readonly consumerGroup: string,
    readonly messageQueue: MessageQueue,
    readonly popProcessQueue: PopProcessQueue,
    readonly initMode: ConsumeInitMode,
  ) {}

  toString(): string {
    return `PopRequest [consumerGroup=${this.consumerGroup}, messageQueue=${this.messageQueue.toString()}]`;
  }
}
