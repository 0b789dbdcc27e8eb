/** The options of one send or query call: its wait (timeout, signal) and the queue it goes to. */
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { MessageQueueSelector } from './message-queue-selector.js';

/** `{ timeoutMs, signal }` of a call that waits. */
export interface WaitOptions {
  /** Overrides sendMsgTimeout (or mqClientApiTimeout for queries) for this call, ms. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface SendOptions extends WaitOptions {
  /** Send to this queue (upstream `send(msg, mq)`): one attempt, no retry. */
  messageQueue?: MessageQueue | undefined;
  /** Choose the queue (upstream `send(msg, selector, arg)`), for ordered messages: one attempt. */
  selector?: MessageQueueSelector | undefined;
  /** What `selector` gets as its third argument (an order id, a user id...). */
  arg?: unknown;
  /**
   * The retry rules to follow [SYNC]: one call serves both styles in Node (await each send, or keep
   * many in flight); ASYNC applies upstream's async send rules (retryTimesWhenSendAsyncFailed,
   * transport failures only).
   */
  communicationMode?: 'SYNC' | 'ASYNC' | undefined;
}
