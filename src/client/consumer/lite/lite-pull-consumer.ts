/**
 * The public lite pull consumer: `createLitePullConsumer(options)` returns a LitePullConsumer
 * (upstream DefaultLitePullConsumer). The application drives: subscribe (the group shares the
 * queues) or assign (no rebalance), then poll, or iterate:
 *
 * ```js
 * const consumer = createLitePullConsumer({ namesrvAddr, consumerGroup: 'lp' });
 * consumer.subscribe('Orders', '*');
 * await consumer.start();
 * for await (const msg of consumer) { handle(msg); }   // `break` ends it
 * await consumer.shutdown();
 * ```
 *
 * An iterator asks for the next batch only when the loop wants more, so a slow loop leaves pulls
 * paused at the flow thresholds; with autoCommit, what the loop has passed is what gets committed
 * (a message counts as consumed once the loop asks for the one after it).
 */
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { MQAdmin } from '../../mq-admin.js';
import { ConsumerFacade } from '../consumer-facade.js';
import type { MessageQueueListener } from '../message-queue-listener.js';
import { createOffsetStore } from '../offset/create-offset-store.js';
import type { SubscriptionExpression } from '../subscription-expression.js';
import { DefaultLitePullConsumerImpl } from './default-lite-pull-consumer-impl.js';
import type {
  LitePullConsumerOptions,
  ResolvedLitePullConsumerOptions,
} from './lite-pull-consumer-options.js';
import type { TopicMessageQueueChangeListener } from './message-queue-change-monitor.js';

export type { MessageQueueListener, TopicMessageQueueChangeListener };

/** How long a poll waits [pollTimeoutMillis], and a signal that ends the wait. */
export interface PollOptions {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface LitePullConsumer extends MQAdmin, AsyncIterable<MessageExt>, AsyncDisposable {
  readonly consumerGroup: string;
  readonly clientId: string | undefined;
  /** Group rebalance over the topic's queues; `listener` hears the queues held change. */
  subscribe(topic: string, expression?: SubscriptionExpression, listener?: MessageQueueListener): void;
  unsubscribe(topic: string): void;
  /** These queues only, no rebalance (exclusive with subscribe). */
  assign(queues: readonly MessageQueue[]): void;
  /** Assign mode: the tag expression of `topic`'s pulls [*]; before start. */
  setSubExpressionForAssign(topic: string, expression: string): void;
  registerTopicMessageQueueChangeListener(topic: string, listener: TopicMessageQueueChangeListener): void;
  start(): Promise<void>;
  /** Commits what was polled (autoCommit), persists offsets, stops pulling and leaves the group. */
  shutdown(): Promise<void>;
  /** `await using`: calls shutdown() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * The next batch (empty after `timeoutMs`, default pollTimeoutMillis); its messages count as
   * consumed. An aborted `signal` rejects with its reason.
   */
  poll(options?: PollOptions): Promise<MessageExt[]>;
  /**
   * Batches as poll returns them; a batch counts as consumed once the loop asks for the next. An
   * aborted `signal` ends a wait for the next batch by throwing its reason.
   */
  batches(options?: PollOptions): AsyncIterable<MessageExt[]>;
  seek(mq: MessageQueue, offset: bigint | number): Promise<void>;
  seekToBegin(mq: MessageQueue): Promise<void>;
  seekToEnd(mq: MessageQueue): Promise<void>;
  pause(queues: readonly MessageQueue[]): void;
  resume(queues: readonly MessageQueue[]): void;
  /** Commits what poll handed out for every queue and persists it now. */
  commitSync(): Promise<void>;
  /** Commits these offsets (persisted now unless `persist` is false). */
  commit(offsets: ReadonlyArray<readonly [MessageQueue, bigint | number]>, persist?: boolean): Promise<void>;
  committed(mq: MessageQueue): Promise<bigint>;
  /** The first offset of `mq` stored at or after `timestamp` (upstream offsetForTimestamp). */
  offsetForTimestamp(mq: MessageQueue, timestamp: number | bigint): Promise<bigint>;
  fetchMessageQueues(topic: string): Promise<MessageQueue[]>;
  /** The queues read now. */
  assignment(): MessageQueue[];
}

class LitePullConsumerFacade
  extends ConsumerFacade<ResolvedLitePullConsumerOptions, DefaultLitePullConsumerImpl>
  implements LitePullConsumer
{
  subscribe(topic: string, expression?: SubscriptionExpression, listener?: MessageQueueListener): void {
    this.impl.subscribe(topic, expression, listener);
  }

  unsubscribe(topic: string): void {
    this.impl.unsubscribe(topic);
  }

  assign(queues: readonly MessageQueue[]): void {
    this.impl.assign(queues);
  }

  setSubExpressionForAssign(topic: string, expression: string): void {
    this.impl.setSubExpressionForAssign(topic, expression);
  }

  registerTopicMessageQueueChangeListener(topic: string, listener: TopicMessageQueueChangeListener): void {
    this.impl.registerTopicMessageQueueChangeListener(topic, listener);
  }

  poll(options: PollOptions = {}): Promise<MessageExt[]> {
    return this.impl.poll(options.timeoutMs, options.signal);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<MessageExt> {
    const impl = this.impl;
    // Iterating a consumer not started or already shut down is a mistake; one shut down while
    // iterating just ends the loop.
    impl.makeSureStateOK();
    while (impl.serviceState === 'RUNNING') {
      const request = await impl.takeRequest(impl.options.pollTimeoutMillis);
      if (request === undefined) continue;
      const msgs = impl.resetTopic(request.messages);
      let passed = 0;
      try {
        for (const msg of msgs) {
          // A seek (or a rebalance) since the batch was pulled: the rest of it is stale.
          if (!impl.holds(request, msg)) break;
          yield msg;
          impl.markConsumed(request, [msg]);
          passed++;
        }
      } finally {
        // The loop stopped (break, throw, or return) inside this batch: the rest goes back.
        if (passed < msgs.length) impl.giveBack(request, msgs.slice(passed));
      }
    }
  }

  async *batches(options: PollOptions = {}): AsyncIterable<MessageExt[]> {
    const impl = this.impl;
    impl.makeSureStateOK();
    while (impl.serviceState === 'RUNNING') {
      const request = await impl.takeRequest(
        options.timeoutMs ?? impl.options.pollTimeoutMillis,
        options.signal,
      );
      if (request === undefined) continue;
      let passed = false;
      try {
        yield impl.resetTopic(request.messages);
        impl.markConsumed(request, request.messages);
        passed = true;
      } finally {
        if (!passed) impl.giveBack(request, request.messages);
      }
    }
  }

  seek(mq: MessageQueue, offset: bigint | number): Promise<void> {
    return this.impl.seek(mq, offset);
  }

  seekToBegin(mq: MessageQueue): Promise<void> {
    return this.impl.seekToBegin(mq);
  }

  seekToEnd(mq: MessageQueue): Promise<void> {
    return this.impl.seekToEnd(mq);
  }

  pause(queues: readonly MessageQueue[]): void {
    this.impl.pause(queues);
  }

  resume(queues: readonly MessageQueue[]): void {
    this.impl.resume(queues);
  }

  commitSync(): Promise<void> {
    return this.impl.commitSync();
  }

  commit(offsets: ReadonlyArray<readonly [MessageQueue, bigint | number]>, persist?: boolean): Promise<void> {
    return this.impl.commit(offsets, persist);
  }

  committed(mq: MessageQueue): Promise<bigint> {
    return this.impl.committed(mq);
  }

  offsetForTimestamp(mq: MessageQueue, timestamp: number | bigint): Promise<bigint> {
    return this.impl.queries.searchOffset(mq, timestamp);
  }

  fetchMessageQueues(topic: string): Promise<MessageQueue[]> {
    return this.impl.fetchMessageQueues(topic);
  }

  assignment(): MessageQueue[] {
    return this.impl.assignment();
  }
}

/** A lite pull consumer of `options.consumerGroup`; throws a ValidationError naming a bad option. */
export function createLitePullConsumer(options: LitePullConsumerOptions): LitePullConsumer {
  return new LitePullConsumerFacade(new DefaultLitePullConsumerImpl(options, createOffsetStore));
}
