/**
 * ConsumeMessageHook (upstream's): code that runs around every listener call, with upstream's
 * context fields. A hook that throws is logged and skipped; it never fails a consumption.
 */
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';

export interface ConsumeMessageContext {
  readonly consumerGroup: string;
  readonly msgList: readonly MessageExt[];
  readonly mq: MessageQueue;
  readonly namespace: string | undefined;
  /** Set before consumeMessageAfter. */
  success?: boolean | undefined;
  /** The listener's answer (CONSUME_SUCCESS, RECONSUME_LATER, SUCCESS ...), set before consumeMessageAfter. */
  status?: string | undefined;
  /** Free for hooks to pass data from before to after (ConsumeReturnType under `ConsumeContextType`). */
  props: Map<string, string>;
}

export interface ConsumeMessageHook {
  hookName(): string;
  consumeMessageBefore(context: ConsumeMessageContext): void;
  consumeMessageAfter(context: ConsumeMessageContext): void;
}
