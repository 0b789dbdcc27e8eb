/**
 * The public pull consumer: `createPullConsumer(options)` returns a PullConsumer (upstream
 * DefaultMQPullConsumer). The application lists queues, pulls from offsets it chooses and stores its
 * progress itself or with updateConsumeOffset.
 *
 * ```js
 * const consumer = createPullConsumer({ namesrvAddr, consumerGroup: 'pc' });
 * await consumer.start();
 * for (const mq of await consumer.fetchSubscribeMessageQueues('Orders')) {
 *   const r = await consumer.pull(mq, '*', await consumer.fetchConsumeOffset(mq, true), 32);
 *   // r.pullStatus, r.msgFoundList, r.nextBeginOffset
 * }
 * ```
 */
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { MQAdmin } from '../../mq-admin.js';
import { ConsumerFacade } from '../consumer-facade.js';
import type { MessageQueueListener } from '../message-queue-listener.js';
import { createOffsetStore } from '../offset/create-offset-store.js';
import type { PullResult } from '../pull/pull-result.js';
import type { SubscriptionExpression } from '../subscription-expression.js';
import { DefaultMQPullConsumerImpl, type PullCallOptions } from './default-mq-pull-consumer-impl.js';
import type { PullConsumerOptions, ResolvedPullConsumerOptions } from './pull-consumer-options.js';

export type { PullCallOptions };

export interface PullConsumer extends MQAdmin, AsyncDisposable {
  readonly consumerGroup: string;
  readonly clientId: string | undefined;
  start(): Promise<void>;
  /** Persists the offsets of the queues held, leaves the group and closes what no other client shares. */
  shutdown(): Promise<void>;
  /** `await using`: calls shutdown() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Messages of `mq` from `offset` (answered at once when there are none). */
  pull(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options?: PullCallOptions,
  ): Promise<PullResult>;
  /** The same, long-polled: the broker holds it until a message comes or brokerSuspendMaxTimeMillis passes. */
  pullBlockIfNotFound(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options?: PullCallOptions,
  ): Promise<PullResult>;
  /** Stores the group's offset of `mq` (in memory; persisted every persistConsumerOffsetInterval and at shutdown). */
  updateConsumeOffset(mq: MessageQueue, offset: bigint | number): void;
  /** The group's offset of `mq`: from the broker (or file) with `fromStore`, else memory first; -1 when none. */
  fetchConsumeOffset(mq: MessageQueue, fromStore: boolean): Promise<bigint>;
  /** Sends `msg` back to be consumed again after `delayLevel` (to `consumerGroup`'s retry topic). */
  sendMessageBack(
    msg: MessageExt,
    delayLevel: number,
    brokerName?: string,
    consumerGroup?: string,
  ): Promise<void>;
  fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]>;
  /** The queues of a registered topic rebalancing gave this member. */
  fetchMessageQueuesInBalance(topic: string): MessageQueue[];
  /** Registers `topic` for rebalancing and `listener` for its changes. */
  registerMessageQueueListener(topic: string, listener: MessageQueueListener): void;
}

class PullConsumerFacade
  extends ConsumerFacade<ResolvedPullConsumerOptions, DefaultMQPullConsumerImpl>
  implements PullConsumer
{
  pull(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options?: PullCallOptions,
  ): Promise<PullResult> {
    return this.impl.pull(mq, expression, offset, maxNums, options);
  }

  pullBlockIfNotFound(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options?: PullCallOptions,
  ): Promise<PullResult> {
    return this.impl.pullBlockIfNotFound(mq, expression, offset, maxNums, options);
  }

  updateConsumeOffset(mq: MessageQueue, offset: bigint | number): void {
    this.impl.updateConsumeOffset(mq, offset);
  }

  fetchConsumeOffset(mq: MessageQueue, fromStore: boolean): Promise<bigint> {
    return this.impl.fetchConsumeOffset(mq, fromStore);
  }

  sendMessageBack(
    msg: MessageExt,
    delayLevel: number,
    brokerName?: string,
    consumerGroup?: string,
  ): Promise<void> {
    return this.impl.sendMessageBack(msg, delayLevel, brokerName, consumerGroup);
  }

  fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    return this.impl.fetchSubscribeMessageQueues(topic);
  }

  fetchMessageQueuesInBalance(topic: string): MessageQueue[] {
    return this.impl.fetchMessageQueuesInBalance(topic);
  }

  registerMessageQueueListener(topic: string, listener: MessageQueueListener): void {
    this.impl.registerMessageQueueListener(topic, listener);
  }
}

/** A pull consumer of `options.consumerGroup`; throws a ValidationError naming a bad option. */
export function createPullConsumer(options: PullConsumerOptions): PullConsumer {
  return new PullConsumerFacade(new DefaultMQPullConsumerImpl(options, createOffsetStore));
}
