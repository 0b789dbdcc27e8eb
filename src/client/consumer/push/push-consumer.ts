/**
 * The public push consumer: `createPushConsumer(options)` returns a PushConsumer (upstream
 * DefaultMQPushConsumer). The library pulls (long polling), caches per queue within the flow-control
 * thresholds, runs the listener and keeps the group's progress.
 *
 * ```js
 * const consumer = createPushConsumer({ namesrvAddr: '127.0.0.1:9876', consumerGroup: 'cg' });
 * consumer.subscribe('Orders', 'TagA || TagB');
 * consumer.registerMessageListener({
 *   type: 'concurrently',
 *   async consumeMessage(msgs, ctx) { return 'CONSUME_SUCCESS'; },
 * });
 * await consumer.start();
 * ```
 */

import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { MQAdmin } from '../../mq-admin.js';
import type { ConsumeMessageHook } from '../consume/consume-hooks.js';
import { ConsumerFacade } from '../consumer-facade.js';
import type { MessageListener } from '../listener.js';
import { createOffsetStore } from '../offset/create-offset-store.js';
import { ConsumerStatsManager } from '../stats/consumer-stats-manager.js';
import type { SubscriptionExpression } from '../subscription-expression.js';
import { DefaultMQPushConsumerImpl } from './default-mq-push-consumer-impl.js';
import type { PushConsumerOptions, ResolvedPushConsumerOptions } from './push-consumer-options.js';

export interface PushConsumer extends MQAdmin, AsyncDisposable {
  /** The group as given (without namespace). */
  readonly consumerGroup: string;
  /** `ip@instanceName[@unitName]` once started. */
  readonly clientId: string | undefined;
  /** Listeners running at most at once; setting it while running takes effect at once. */
  consumeConcurrency: number;
  /** True between suspend() and resume(). */
  readonly paused: boolean;
  /** `*`, `TagA || TagB`, or `{ type: 'SQL92' | 'NAMED' | 'TAG', expression }`; again replaces it. */
  subscribe(topic: string, expression?: SubscriptionExpression): void;
  unsubscribe(topic: string): void;
  /** Before start: `{ type: 'concurrently' | 'orderly', consumeMessage(msgs, context) }`. */
  registerMessageListener(listener: MessageListener): void;
  registerConsumeMessageHook(hook: ConsumeMessageHook): void;
  /**
   * Joins the group: routes read, SQL92 subscriptions checked by a broker (a bad expression rejects
   * here), heartbeat sent, rebalance run. Rejects when the group runs in this client already.
   */
  start(): Promise<void>;
  /**
   * Stops pulling, waits for running listeners up to awaitTerminationMillisWhenShutdown, persists
   * offsets, unlocks orderly queues, leaves the group and closes what no other client shares.
   */
  shutdown(): Promise<void>;
  /** `await using`: calls shutdown() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
  /** Pulls pause (held queues stay held); resume() pulls again and rebalances. */
  suspend(): void;
  resume(): void;
  /** The topic's readable queues. */
  fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]>;
  /** Sends `msg` back to be consumed again after `delayLevel` (0: by its reconsume count), as a failed listener does. */
  sendMessageBack(msg: MessageExt, delayLevel: number, brokerName?: string): Promise<void>;
}

class PushConsumerFacade
  extends ConsumerFacade<ResolvedPushConsumerOptions, DefaultMQPushConsumerImpl>
  implements PushConsumer
{
  get consumeConcurrency(): number {
    return this.impl.options.consumeConcurrency;
  }

  set consumeConcurrency(value: number) {
    this.impl.updateCorePoolSize(value);
  }

  get paused(): boolean {
    return this.impl.isPaused();
  }

  subscribe(topic: string, expression?: SubscriptionExpression): void {
    this.impl.subscribe(topic, expression);
  }

  unsubscribe(topic: string): void {
    this.impl.unsubscribe(topic);
  }

  registerMessageListener(listener: MessageListener): void {
    this.impl.registerMessageListener(listener);
  }

  registerConsumeMessageHook(hook: ConsumeMessageHook): void {
    this.impl.registerConsumeMessageHook(hook);
  }

  suspend(): void {
    this.impl.suspend();
  }

  resume(): void {
    this.impl.resume();
  }

  fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    return this.impl.fetchSubscribeMessageQueues(topic);
  }

  sendMessageBack(msg: MessageExt, delayLevel: number, brokerName?: string): Promise<void> {
    return this.impl.sendMessageBack(msg, delayLevel, brokerName);
  }
}

/** A push consumer of `options.consumerGroup`; throws a ValidationError naming a bad option. */
export function createPushConsumer(options: PushConsumerOptions): PushConsumer {
  const impl = new DefaultMQPushConsumerImpl(
    options,
    createOffsetStore,
    (clock) => new ConsumerStatsManager(clock),
  );
  return new PushConsumerFacade(impl);
}
