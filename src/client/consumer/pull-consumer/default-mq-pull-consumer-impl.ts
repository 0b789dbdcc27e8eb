/**
 * DefaultMQPullConsumerImpl: the application lists the queues, pulls from the offsets it chooses
 * and stores progress itself or through the offset store (updateConsumeOffset). Registered topics
 * are rebalanced over the group (fetchMessageQueuesInBalance, the message queue listener) with the
 * shared RebalanceImpl; nothing is pulled by the library.
 */
import { setMaxListeners } from 'node:events';
import { forwardAbort } from '../../../common/call-aborts.js';
import type { Clock } from '../../../common/clock.js';
import { PullSysFlag } from '../../../common/constants.js';
import { ValidationError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { encodeConsumerRunningInfo } from '../../../common/protocol/consumer-running-info.js';
import { ConsumeFromWhere, ConsumeType, type MessageModel } from '../../../common/protocol/heartbeat-data.js';
import { ExpressionType, type SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import {
  type ClientConfig,
  queueWithNamespaceOf,
  queueWithoutNamespaceOf,
  resetTopicOf,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../../client-config.js';
import { ClientStateError, errorText, MQClientError } from '../../errors.js';
import type { MQConsumerInner } from '../../instance/inner.js';
import type { MQClientInstance, ServiceState } from '../../instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../../instance/mq-client-manager.js';
import { topicRouteData2TopicSubscribeInfo } from '../../instance/topic-route.js';
import { long, NamespacedAdmin } from '../../mq-admin.js';
import type { MessageQueueListener, OffsetStoreMaker } from '../lite/default-lite-pull-consumer-impl.js';
import { type OffsetStore, ReadOffsetType } from '../offset/offset-store.js';
import type { ProcessQueue } from '../process-queue.js';
import { DEFAULT_PROCESS_QUEUE_SETTINGS } from '../process-queue.js';
import { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import type { PullResult } from '../pull/pull-result.js';
import { AllocateMessageQueueAveragely } from '../rebalance/allocate/averagely.js';
import { RebalanceImpl, rebalanceHostOf } from '../rebalance/rebalance-impl.js';
import { sendMessageBack } from '../send-message-back.js';
import { buildConsumerRunningInfo } from '../stats/consumer-running-info-builder.js';
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

export class DefaultMQPullConsumerImpl implements MQConsumerInner {
  readonly options: ResolvedPullConsumerOptions;
  readonly consumerGroup: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly queries: NamespacedAdmin;
  readonly rebalance: RebalanceImpl;
  private readonly config: ClientConfig;
  private readonly storeMaker: OffsetStoreMaker;
  private readonly stats: ConsumerStatsManager;
  private readonly shutdownController = new AbortController();
  private readonly startTimestamp: number;
  private messageQueueListener: MessageQueueListener | undefined;
  private state: ServiceState = 'CREATE_JUST';
  private clientInstance: MQClientInstance | undefined;
  private store: OffsetStore | undefined;
  private pullAPIWrapper: PullAPIWrapper | undefined;
  private stopping: Promise<void> | undefined;

  constructor(options: PullConsumerOptions, storeMaker: OffsetStoreMaker) {
    this.config = resolveClientConfig(options, options.messageModel !== 'BROADCASTING');
    this.clock = this.config.clock;
    this.startTimestamp = this.clock.now();
    this.options = resolvePullConsumerOptions(options);
    this.consumerGroup = withNamespaceOf(this.config, this.options.consumerGroup);
    this.logger = this.config.logger.child('pull-consumer');
    this.storeMaker = storeMaker;
    this.stats = new ConsumerStatsManager(this.clock);
    this.messageQueueListener = options.messageQueueListener;
    setMaxListeners(0, this.shutdownController.signal);
    this.rebalance = new RebalanceImpl(
      {
        consumerGroup: this.consumerGroup,
        messageModel: this.options.messageModel,
        strategy:
          this.options.allocateMessageQueueStrategy ??
          new AllocateMessageQueueAveragely({ logger: this.logger }),
        processQueue: DEFAULT_PROCESS_QUEUE_SETTINGS,
      },
      rebalanceHostOf(() => this.instance),
      {
        consumeType: () => ConsumeType.CONSUME_ACTIVELY,
        messageQueueChanged: (topic, mqAll, mqDivided) => this.onMessageQueueChanged(topic, mqAll, mqDivided),
        removeUnnecessaryMessageQueue: async (mq) => {
          await this.offsetStore.persist(mq);
          this.offsetStore.removeOffset(mq);
          return true;
        },
        removeDirtyOffset: (mq) => this.offsetStore.removeOffset(mq),
        // The application chooses where to pull; rebalancing only decides which queues are ours.
        computePullFromWhere: async () => 0n,
        dispatchPullRequest: () => {},
      },
      this.clock,
      this.logger.child('rebalance'),
    );
    for (const topic of this.options.registerTopics) {
      const wireTopic = withNamespaceOf(this.config, topic);
      this.rebalance.subscriptionInner.set(wireTopic, buildSubscription(wireTopic, '*', undefined));
    }
    this.queries = new NamespacedAdmin(this.config, () => {
      this.makeSureStateOK();
      return this.instance.admin;
    });
  }

  get instance(): MQClientInstance {
    if (this.clientInstance === undefined)
      throw new ClientStateError('PullConsumer', this.state, { group: this.consumerGroup });
    return this.clientInstance;
  }

  get offsetStore(): OffsetStore {
    if (this.store === undefined)
      throw new ClientStateError('PullConsumer', this.state, { group: this.consumerGroup });
    return this.store;
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  private makeSureStateOK(): void {
    if (this.state !== 'RUNNING')
      throw new ClientStateError('PullConsumer', this.state, { group: this.consumerGroup });
  }

  private wire(mq: unknown, call: string): MessageQueue {
    if (!(mq instanceof MessageQueue)) throw new ValidationError(`${call}: mq is null`, -1);
    return queueWithNamespaceOf(this.config, mq);
  }

  registerMessageQueueListener(topic: string, listener: MessageQueueListener): void {
    const wireTopic = withNamespaceOf(this.config, topic);
    if (!this.rebalance.subscriptionInner.has(wireTopic)) {
      this.rebalance.subscriptionInner.set(wireTopic, buildSubscription(wireTopic, '*', undefined));
    }
    this.messageQueueListener = listener;
  }

  private onMessageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    const listener = this.messageQueueListener;
    if (listener === undefined) return;
    try {
      listener(
        withoutNamespaceOf(this.config, topic),
        mqAll.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
        mqDivided.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
      );
    } catch (error) {
      this.logger.error('messageQueueChanged listener failed', { topic, error: errorText(error) });
    }
  }

  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') {
      throw new ClientStateError('PullConsumer', `${this.state}, maybe started once`, {
        group: this.consumerGroup,
      });
    }
    this.state = 'START_FAILED';
    const instance = getOrCreateMQClientInstance(this.config);
    this.clientInstance = instance;
    this.pullAPIWrapper = new PullAPIWrapper(instance, this.consumerGroup, this.logger.child('pull'));
    this.store = this.storeMaker(this.options.messageModel === 'BROADCASTING' ? 'local' : 'remote', {
      instance,
      group: this.consumerGroup,
      dir: this.options.localOffsetStoreDir,
    });
    try {
      await this.store.load();
    } catch (error) {
      this.state = 'CREATE_JUST';
      throw error;
    }
    if (!instance.registerConsumer(this.consumerGroup, this)) {
      this.state = 'CREATE_JUST';
      throw new MQClientError(
        `The consumer group[${this.consumerGroup}] has been created before, specify another name please.`,
        undefined,
        {
          group: this.consumerGroup,
        },
      );
    }
    instance.start();
    this.stats.start();
    this.state = 'RUNNING';
    this.logger.info('pull consumer started', { group: this.consumerGroup, clientId: instance.clientId });
    await Promise.all(
      [...this.rebalance.subscriptionInner.keys()].map((t) => instance.updateTopicRouteInfoFromNameServer(t)),
    );
    await instance.sendHeartbeatToAllBrokerWithLock();
    instance.rebalanceImmediately();
  }

  shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const wasRunning = this.state === 'RUNNING';
    this.state = 'SHUTDOWN_ALREADY';
    this.shutdownController.abort(
      new ClientStateError('PullConsumer', 'SHUTDOWN_ALREADY', { group: this.consumerGroup }),
    );
    const instance = this.clientInstance;
    if (instance === undefined) return;
    if (wasRunning) await this.persistConsumerOffset();
    this.stats.shutdown();
    await instance.unregisterConsumer(this.consumerGroup);
    await instance.shutdown();
    this.rebalance.destroy();
    if (wasRunning) this.logger.info('pull consumer shut down', { group: this.consumerGroup });
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
          throw new ClientStateError('PullConsumer', 'SHUTDOWN_ALREADY', {
            group: this.consumerGroup,
            topic: queue.topic,
            cause: error,
          });
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
    await sendMessageBack(
      {
        instance: this.instance,
        consumerGroup:
          consumerGroup === undefined ? this.consumerGroup : withNamespaceOf(this.config, consumerGroup),
        unitMode: this.config.unitMode,
        maxReconsumeTimes: this.options.maxReconsumeTimes,
        logger: this.logger,
        signal: this.shutdownController.signal,
      },
      msg,
      withNamespaceOf(this.config, msg.topic),
      delayLevel,
      brokerName,
    );
  }

  async fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.makeSureStateOK();
    const wireTopic = withNamespaceOf(this.config, topic);
    await this.instance.updateTopicRouteInfoFromNameServer(wireTopic);
    const route = this.instance.topicRouteTable.get(wireTopic);
    const queues = route === undefined ? [] : topicRouteData2TopicSubscribeInfo(topic, route);
    if (queues.length === 0)
      throw new MQClientError(`Can not find Message Queue for this topic, ${topic}`, 17, { topic });
    return queues;
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

  groupName(): string {
    return this.consumerGroup;
  }

  messageModel(): MessageModel {
    return this.options.messageModel;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_ACTIVELY;
  }

  consumeFromWhere(): ConsumeFromWhere {
    return ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
  }

  subscriptions(): readonly SubscriptionData[] {
    return [...this.rebalance.subscriptionInner.values()];
  }

  isUnitMode(): boolean {
    return this.config.unitMode;
  }

  updateTopicSubscribeInfo(topic: string, queues: readonly MessageQueue[]): void {
    this.rebalance.updateTopicSubscribeInfo(topic, queues);
  }

  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return this.rebalance.isSubscribeTopicNeedUpdate(topic);
  }

  async doRebalance(): Promise<void> {
    if (this.state !== 'RUNNING') return;
    await this.rebalance.doRebalance(false);
  }

  /**
   * Persists every offset the application set. Upstream persists only the queues rebalancing gave this
   * member and silently drops the rest, so `updateConsumeOffset` without `registerTopics` (or before
   * the first rebalance) was lost at shutdown; a queue rebalanced away has already left the table.
   */
  async persistConsumerOffset(): Promise<void> {
    if (this.store === undefined) return;
    try {
      await this.store.persistAll(this.store.cloneOffsetTable(undefined).map(([mq]) => mq));
    } catch (error) {
      this.logger.error('persist consumer offset failed', {
        group: this.consumerGroup,
        error: errorText(error),
      });
    }
  }

  /** RESET_CONSUMER_CLIENT_OFFSET: the offsets go into the store; the application reads them with fetchConsumeOffset. */
  async resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void> {
    for (const [mq, offset] of offsets)
      if (mq.topic === topic) this.offsetStore.updateOffset(mq, offset, false);
  }

  consumerStatus(topic: string | undefined): Array<[MessageQueue, bigint]> {
    return this.store?.cloneOffsetTable(topic) ?? [];
  }

  consumerRunningInfo(jstackEnable: boolean): Buffer {
    const o = this.options;
    return encodeConsumerRunningInfo(
      buildConsumerRunningInfo({
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
        consumerStartTimestamp: this.startTimestamp,
        namesrvAddrList: this.instance.api.namesrv.addresses,
        consumeType: ConsumeType.CONSUME_ACTIVELY,
        subscriptions: this.subscriptions(),
        processQueueTable: [...this.rebalance.processQueueTable.values()].map(
          ({ mq, pq }) => [mq, pq as ProcessQueue] as const,
        ),
        commitOffset: (mq) => this.store?.readOffsetInMemory(mq) ?? -1n,
        consumeStatus: (topic) => this.stats.consumeStatus(this.consumerGroup, topic),
        ...(jstackEnable ? { jstack: '' } : {}),
      }),
    );
  }

  async consumeMessageDirectly(): Promise<Buffer> {
    throw new MQClientError('a pull consumer has no listener to consume a message directly', undefined, {
      group: this.consumerGroup,
    });
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
