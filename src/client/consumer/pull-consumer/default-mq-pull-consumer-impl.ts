/**
 * DefaultMQPullConsumerImpl: the application lists the queues, pulls from the offsets it chooses
 * and stores progress itself or through the offset store (updateConsumeOffset). Registered topics
 * are rebalanced over the group (fetchMessageQueuesInBalance, the message queue listener) with the
 * shared RebalanceImpl; nothing is pulled by the library.
 */
import { forwardAbort } from '../../../common/call-aborts.js';
import { PullSysFlag } from '../../../common/constants.js';
import { ValidationError } from '../../../common/errors.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { ExpressionType } from '../../../common/protocol/subscription-data.js';
import { checkTopicArg } from '../../../common/validators.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import {
  queueWithNamespaceOf,
  queueWithoutNamespaceOf,
  resetTopicOf,
  withNamespaceOf,
} from '../../client-config.js';
import { long } from '../../mq-admin.js';
import { ConsumerCore, type OffsetStoreFactory, type RunningInfoParts } from '../consumer-core.js';
import type { MessageQueueListener } from '../message-queue-listener.js';
import { ReadOffsetType } from '../offset/offset-store.js';
import { DEFAULT_PROCESS_QUEUE_SETTINGS } from '../process-queue.js';
import type { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import type { PullResult } from '../pull/pull-result.js';
import type { RebalanceAdapter } from '../rebalance/rebalance-impl.js';
import { RebalancePullAdapter } from '../rebalance/rebalance-pull-adapter.js';
import { ConsumerStatsManager } from '../stats/consumer-stats-manager.js';
import { type SubscriptionExpression, subscriptionDataOf } from '../subscription-expression.js';
import {
  type PullConsumerOptions,
  type ResolvedPullConsumerOptions,
  resolvePullConsumerOptions,
} from './pull-consumer-options.js';

export interface PullCallOptions {
  /** Client-side cap of the bodies returned, bytes: fewer messages come back and nextBeginOffset follows the last. */
  maxSize?: number | undefined;
  /** ms [consumerPullTimeoutMillis; pullBlockIfNotFound: consumerTimeoutMillisWhenSuspend, keep it above brokerSuspendMaxTimeMillis]. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export class DefaultMQPullConsumerImpl extends ConsumerCore<ResolvedPullConsumerOptions> {
  private messageQueueListener: MessageQueueListener | undefined;

  constructor(options: PullConsumerOptions, offsetStoreFactory: OffsetStoreFactory) {
    super(options, {
      kind: 'PullConsumer',
      loggerName: 'pull-consumer',
      resolve: () => resolvePullConsumerOptions(options),
      processQueue: () => DEFAULT_PROCESS_QUEUE_SETTINGS,
      offsetStoreFactory,
      statsFactory: (clock) => new ConsumerStatsManager(clock),
    });
    this.messageQueueListener = options.messageQueueListener;
    for (const topic of this.options.registerTopics) {
      const wireTopic = withNamespaceOf(this.config, topic);
      this.rebalance.subscriptionInner.set(wireTopic, buildSubscription(wireTopic, '*', undefined));
    }
  }

  protected createRebalanceAdapter(): RebalanceAdapter {
    return new RebalancePullAdapter(this);
  }

  private wire(mq: unknown, call: string): MessageQueue {
    if (!(mq instanceof MessageQueue)) throw new ValidationError(`${call}: mq is null`, -1);
    checkTopicArg(`${call}: mq.topic`, mq.topic);
    return queueWithNamespaceOf(this.config, mq);
  }

  registerMessageQueueListener(topic: string, listener: MessageQueueListener): void {
    const wireTopic = withNamespaceOf(this.config, topic);
    if (!this.rebalance.subscriptionInner.has(wireTopic)) {
      this.rebalance.subscriptionInner.set(wireTopic, buildSubscription(wireTopic, '*', undefined));
    }
    this.messageQueueListener = listener;
  }

  /** Rebalancing changed the queues of `topic` this member holds. */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    this.tellQueueListener(this.messageQueueListener, topic, mqAll, mqDivided);
  }

  /** `pull`: messages of `mq` from `offset`, answered at once when there are none (no long polling). */
  pull(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options: PullCallOptions = {},
  ): Promise<PullResult> {
    return this.pullSyncImpl(mq, expression, offset, maxNums, false, options);
  }

  /** `pullBlockIfNotFound`: the broker holds the pull until a message arrives or brokerSuspendMaxTimeMillis passes. */
  pullBlockIfNotFound(
    mq: MessageQueue,
    expression: SubscriptionExpression,
    offset: bigint | number,
    maxNums: number,
    options: PullCallOptions = {},
  ): Promise<PullResult> {
    return this.pullSyncImpl(mq, expression, offset, maxNums, true, options);
  }

  private async pullSyncImpl(
    queue: MessageQueue,
    expression: SubscriptionExpression,
    offsetInput: bigint | number,
    maxNums: number,
    block: boolean,
    options: PullCallOptions,
  ): Promise<PullResult> {
    this.makeSureStateOK();
    const mq = this.wire(queue, 'pull');
    const offset =
      typeof offsetInput === 'number' && Number.isSafeInteger(offsetInput)
        ? BigInt(offsetInput)
        : offsetInput;
    if (typeof offset !== 'bigint' || offset < 0n) throw new ValidationError('offset < 0', -1);
    if (!Number.isInteger(maxNums) || maxNums <= 0) throw new ValidationError('maxNums <= 0', -1);
    const maxSize = options.maxSize;
    if (maxSize !== undefined && (!Number.isInteger(maxSize) || maxSize <= 0))
      throw new ValidationError('maxSize must be an integer > 0', -1);
    const sub = subscriptionDataOf('pull', queue.topic, mq.topic, expression, BigInt(this.clock.now()));
    this.subscriptionAutomatically(mq.topic);
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0))
      throw new ValidationError('timeoutMs must be a number of ms > 0', -1);
    const timeoutMillis =
      options.timeoutMs ??
      (block ? this.options.consumerTimeoutMillisWhenSuspend : this.options.consumerPullTimeoutMillis);
    // The caller's signal or shutdown, linked for this pull only (see common/call-aborts.ts).
    const link = new AbortController();
    const unlinks = [forwardAbort(options.signal, link), forwardAbort(this.shutdownController.signal, link)];
    const signal = link.signal;
    const wrapper = this.pullAPIWrapper as PullAPIWrapper;
    const begin = this.clock.now();
    const raw = await wrapper
      .pullKernelImpl({
        mq,
        subExpression: sub.subString,
        expressionType: sub.expressionType,
        subVersion: sub.expressionType === ExpressionType.TAG ? 0n : sub.subVersion,
        offset,
        maxNums,
        sysFlag: PullSysFlag.buildSysFlag(false, block, true, false),
        commitOffset: 0n,
        brokerSuspendMaxTimeMillis: this.options.brokerSuspendMaxTimeMillis,
        timeoutMillis,
        signal,
      })
      .catch((error: unknown) => {
        // A pull cut short by shutdown fails as the producer's sends do; the caller's own abort stays.
        if (error instanceof RemotingAbortedError && this.shutdownController.signal.aborted) {
          throw this.stateError(undefined, { topic: queue.topic, cause: error });
        }
        throw error;
      })
      .finally(() => {
        for (const unlink of unlinks) unlink();
      });
    const result = wrapper.processPullResult(mq, raw, sub);
    this.stats.incPullRT(this.consumerGroup, mq.topic, this.clock.now() - begin);
    this.stats.incPullTPS(this.consumerGroup, mq.topic, result.msgFoundList.length);
    const msgs = resetTopicOf(this.config, result.msgFoundList);
    if (maxSize === undefined || msgs.length === 0) return result;
    return capBySize(result, maxSize);
  }

  /** A topic pulled becomes a subscription of the group (its heartbeat names it), as upstream. */
  private subscriptionAutomatically(topic: string): void {
    if (!this.rebalance.subscriptionInner.has(topic)) {
      this.rebalance.subscriptionInner.set(topic, buildSubscription(topic, '*', undefined));
    }
  }

  updateConsumeOffset(queue: MessageQueue, offset: bigint | number): void {
    this.makeSureStateOK();
    this.offsetStore.updateOffset(
      this.wire(queue, 'updateConsumeOffset'),
      long('updateConsumeOffset offset', offset),
      false,
    );
  }

  /** The stored offset of `mq`: from the store (broker or file) with `fromStore`, else memory first. */
  async fetchConsumeOffset(queue: MessageQueue, fromStore: boolean): Promise<bigint> {
    this.makeSureStateOK();
    return this.offsetStore.readOffset(
      this.wire(queue, 'fetchConsumeOffset'),
      fromStore ? ReadOffsetType.READ_FROM_STORE : ReadOffsetType.MEMORY_FIRST_THEN_STORE,
    );
  }

  async sendMessageBack(
    msg: MessageExt,
    delayLevel: number,
    brokerName?: string,
    consumerGroup?: string,
  ): Promise<void> {
    this.makeSureStateOK();
    const group =
      consumerGroup === undefined ? this.consumerGroup : withNamespaceOf(this.config, consumerGroup);
    await this.sendBack(msg, delayLevel, brokerName, group, this.options.maxReconsumeTimes);
  }

  async fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.makeSureStateOK();
    return this.routeQueues(topic);
  }

  /** The queues of `topic` rebalancing gave this member. */
  fetchMessageQueuesInBalance(topic: string): MessageQueue[] {
    this.makeSureStateOK();
    const wireTopic = withNamespaceOf(this.config, topic);
    return [...this.rebalance.processQueueTable.values()]
      .filter((h) => h.mq.topic === wireTopic)
      .map((h) => queueWithoutNamespaceOf(this.config, h.mq));
  }

  // MQConsumerInner

  /**
   * Persists every offset the application set. Upstream persists only the queues rebalancing gave this
   * member and silently drops the rest, so `updateConsumeOffset` without `registerTopics` (or before
   * the first rebalance) was lost at shutdown; a queue rebalanced away has already left the table.
   */
  protected offsetQueues(): MessageQueue[] {
    return this.consumerStatus(undefined).map(([mq]) => mq);
  }

  /** RESET_CONSUMER_CLIENT_OFFSET: the offsets go into the store; the application reads them with fetchConsumeOffset. */
  async resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void> {
    for (const [mq, offset] of offsets)
      if (mq.topic === topic) this.offsetStore.updateOffset(mq, offset, false);
  }

  protected runningInfoParts(): RunningInfoParts {
    const o = this.options;
    return {
      consumerFields: {
        consumerGroup: this.consumerGroup,
        brokerSuspendMaxTimeMillis: o.brokerSuspendMaxTimeMillis,
        consumerTimeoutMillisWhenSuspend: o.consumerTimeoutMillisWhenSuspend,
        consumerPullTimeoutMillis: o.consumerPullTimeoutMillis,
        messageModel: o.messageModel,
        maxReconsumeTimes: o.maxReconsumeTimes,
      },
      consumeOrderly: false,
      threadPoolCoreSize: 0,
      processQueueTable: this.heldQueues(),
    };
  }
}

/** Keeps the first messages whose bodies fit `maxSize` bytes (at least one); the next pull starts after them. */
function capBySize(result: PullResult, maxSize: number): PullResult {
  let size = 0;
  let n = 0;
  for (const msg of result.msgFoundList) {
    size += msg.body.length;
    if (n > 0 && size > maxSize) break;
    n++;
  }
  if (n === result.msgFoundList.length) return result;
  const kept = result.msgFoundList.slice(0, n);
  const last = kept[kept.length - 1] as MessageExt;
  return { ...result, msgFoundList: kept, nextBeginOffset: last.queueOffset + 1n };
}
