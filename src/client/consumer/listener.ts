/**
 * What a push consumer's listener is given and may answer (upstream MessageListenerConcurrently and
 * MessageListenerOrderly with their contexts and statuses). A listener may be a plain or an async
 * function; one that throws, rejects or answers anything else counts as a failure (RECONSUME_LATER, or
 * SUSPEND_CURRENT_QUEUE_A_MOMENT for orderly), as upstream counts a thrown exception or null.
 */
import type { MessageExt } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';

export const ConsumeConcurrentlyStatus = {
  CONSUME_SUCCESS: 'CONSUME_SUCCESS',
  RECONSUME_LATER: 'RECONSUME_LATER',
} as const;
export type ConsumeConcurrentlyStatus =
  (typeof ConsumeConcurrentlyStatus)[keyof typeof ConsumeConcurrentlyStatus];

export const ConsumeOrderlyStatus = {
  SUCCESS: 'SUCCESS',
  SUSPEND_CURRENT_QUEUE_A_MOMENT: 'SUSPEND_CURRENT_QUEUE_A_MOMENT',
  /** Deprecated upstream: with autoCommit false, commit what was consumed so far. */
  COMMIT: 'COMMIT',
  /** Deprecated upstream: with autoCommit false, consume the batch again. */
  ROLLBACK: 'ROLLBACK',
} as const;
export type ConsumeOrderlyStatus = (typeof ConsumeOrderlyStatus)[keyof typeof ConsumeOrderlyStatus];

/** Upstream ConsumeReturnType, as consume hooks and stats see it. */
export const ConsumeReturnType = {
  SUCCESS: 'SUCCESS',
  TIME_OUT: 'TIME_OUT',
  EXCEPTION: 'EXCEPTION',
  RETURNNULL: 'RETURNNULL',
  FAILED: 'FAILED',
} as const;
export type ConsumeReturnType = (typeof ConsumeReturnType)[keyof typeof ConsumeReturnType];

export interface ConsumeConcurrentlyContext {
  readonly messageQueue: MessageQueue;
  /**
   * Delay level of the retry when the batch fails: 0 lets the broker choose by reconsume count
   * (3 + reconsumeTimes: 10 s, 30 s, 1 m ...); -1 sends the failed messages to the DLQ at once.
   */
  delayLevelWhenNextConsume: number;
  /** Index of the last message consumed successfully when answering CONSUME_SUCCESS [all]. */
  ackIndex: number;
}

export interface ConsumeOrderlyContext {
  readonly messageQueue: MessageQueue;
  /** Commit the offset after every SUCCESS [true]; false leaves commits to COMMIT answers. */
  autoCommit: boolean;
  /** Pause after SUSPEND_CURRENT_QUEUE_A_MOMENT, ms; -1 takes suspendCurrentQueueTimeMillis. */
  suspendCurrentQueueTimeMillis: number;
}

/**
 * What consumeMessage returns, from a plain or an async function. The promise may carry any string
 * besides the statuses because TypeScript widens the one literal an async function returns when the
 * expected return type is a union: without it an async `return 'CONSUME_SUCCESS'` would not
 * type-check. A plain function is checked strictly; at run time an answer that is no status counts
 * as a failure, as upstream counts null.
 */
export type ListenerAnswer<S extends string> = S | Promise<S | (string & Record<never, never>)>;

export interface MessageListenerConcurrently {
  readonly type: 'concurrently';
  consumeMessage(
    msgs: MessageExt[],
    context: ConsumeConcurrentlyContext,
  ): ListenerAnswer<ConsumeConcurrentlyStatus>;
}

export interface MessageListenerOrderly {
  readonly type: 'orderly';
  consumeMessage(msgs: MessageExt[], context: ConsumeOrderlyContext): ListenerAnswer<ConsumeOrderlyStatus>;
}

export type MessageListener = MessageListenerConcurrently | MessageListenerOrderly;
