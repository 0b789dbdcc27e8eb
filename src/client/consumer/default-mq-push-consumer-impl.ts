/**
 * DefaultMQPushConsumerImpl: a consumer group on a client instance that pulls for its listener.
 * Rebalancing (RebalanceImpl with the push adapter) gives it queues; each held queue has one
 * PullRequest, pulled (long polling, by the PullMessageService) whenever flow control allows, its
 * messages cached in the queue's ProcessQueue and handed to the consume service; progress goes to
 * the offset store.
 */
import { setMaxListeners } from 'node:events';
import type { Clock, TimerHandle } from '../../common/clock.js';
import { MixAll } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { encodeConsumeMessageDirectlyResult } from '../../common/protocol/consume-message-directly-result.js';
import type { ConsumeStatus } from '../../common/protocol/consume-status.js';
import { encodeConsumerRunningInfo } from '../../common/protocol/consumer-running-info.js';
import { ConsumeFromWhere, ConsumeType, type MessageModel } from '../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import { build as buildSubscription } from '../../filter/filter-api.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import {
  type ClientConfig,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../client-config.js';
import { ClientStateError, errorText, MQClientError } from '../errors.js';
import type { InnerProducer, MQConsumerInner } from '../instance/inner.js';
import type { MQAdminImpl } from '../instance/mq-admin-impl.js';
import type { CallOptions } from '../instance/mq-client-api.js';
import type { MQClientInstance, ServiceState } from '../instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../instance/mq-client-manager.js';
import { NamespacedAdmin } from '../mq-admin.js';
import type { ConsumeMessageHook } from './consume/consume-hooks.js';
import { ConsumeMessageConcurrentlyService } from './consume/consume-message-concurrently-service.js';
import {
  ConsumeMessageOrderlyService,
  type OrderlyConsumeHost,
} from './consume/consume-message-orderly-service.js';
import type { ConsumeMessageService } from './consume/consume-message-service.js';
import type { MessageListener } from './listener.js';
import type { OffsetStore } from './offset/offset-store.js';
import { PullAPIWrapper } from './pull/pull-api-wrapper.js';
import { type PullMessageHost, PullMessageService } from './pull/pull-message-service.js';
import type { PullRequest } from './pull/pull-request.js';
import {
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
  resolvePushConsumerOptions,
} from './push-consumer-options.js';
import { AllocateMessageQueueAveragely } from './rebalance/allocate/averagely.js';
import { RebalanceImpl, rebalanceHostOf } from './rebalance/rebalance-impl.js';
import { RebalancePushAdapter } from './rebalance/rebalance-push-adapter.js';
import { innerProducerOf, sendMessageBack } from './send-message-back.js';
import { buildConsumerRunningInfo } from './stats/consumer-running-info-builder.js';
import type { ConsumerStatsRecorder } from './stats/consumer-stats-recorder.js';
import { type SubscriptionExpression, subscriptionDataOf } from './subscription-expression.js';

export type OffsetStoreFactory = (
  kind: 'remote' | 'local',
  context: { instance: MQClientInstance; group: string; dir: string | undefined },
) => OffsetStore;

/** The consumer's stats: what the paths record and what running info reads. */
export type ConsumerStats = ConsumerStatsRecorder & {
  start(): void;
  shutdown(): void;
  consumeStatus(group: string, topic: string): ConsumeStatus;
};

export type StatsFactory = (clock: Clock) => ConsumerStats;

/** Upstream's yyyyMMddHHmmss of consumeTimestamp, in local time. */
function formatConsumeTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}

export class DefaultMQPushConsumerImpl implements MQConsumerInner, OrderlyConsumeHost, PullMessageHost {
  readonly options: ResolvedPushConsumerOptions;
  readonly consumerGroup: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly hooks: ConsumeMessageHook[] = [];
  readonly rebalance: RebalanceImpl;
  readonly stats: ConsumerStats;
  readonly queries: NamespacedAdmin;
  /** The pull loop of the queues held. */
  readonly pullMessageService: PullMessageService;
  private readonly config: ClientConfig;
  private readonly offsetStoreFactory: OffsetStoreFactory;
  private readonly shutdownController = new AbortController();
  private listener: MessageListener | undefined;
  private state: ServiceState = 'CREATE_JUST';
  private paused = false;
  private clientInstance: MQClientInstance | undefined;
  private store: OffsetStore | undefined;
  private pullWrapper: PullAPIWrapper | undefined;
  private consumeService: ConsumeMessageService | undefined;
  private consumeOrderly = false;
  private stopping: Promise<void> | undefined;
  private lockRetryTimer: TimerHandle | undefined;
  private readonly startTimestamp: number;
  private readonly pushAdapter: RebalancePushAdapter;

  constructor(
    options: PushConsumerOptions,
    offsetStoreFactory: OffsetStoreFactory,
    statsFactory: StatsFactory,
  ) {
    this.config = resolveClientConfig(options, options.messageModel !== 'BROADCASTING');
    this.clock = this.config.clock;
    this.startTimestamp = this.clock.now();
    this.options = resolvePushConsumerOptions(options, this.clock.now());
    this.consumerGroup = withNamespaceOf(this.config, this.options.consumerGroup);
    this.logger = this.config.logger.child('consumer');
    this.offsetStoreFactory = offsetStoreFactory;
    this.stats = statsFactory(this.clock);
    setMaxListeners(0, this.shutdownController.signal);
    this.pullMessageService = new PullMessageService(this, this.shutdownController.signal);
    this.pushAdapter = new RebalancePushAdapter(this);
    const strategy =
      this.options.allocateMessageQueueStrategy ?? new AllocateMessageQueueAveragely({ logger: this.logger });
    this.rebalance = new RebalanceImpl(
      {
        consumerGroup: this.consumerGroup,
        messageModel: this.options.messageModel,
        strategy,
        processQueue: {
          lockMaxLiveTime: this.options.lockMaxLiveTime,
          pullMaxIdleTime: this.options.pullMaxIdleTime,
        },
      },
      rebalanceHostOf(() => this.instance),
      this.pushAdapter,
      this.clock,
      this.logger.child('rebalance'),
    );
    this.queries = new NamespacedAdmin(this.config, () => {
      this.makeSureStateOK();
      return this.instance.admin;
    });
  }

  // What the parts read

  get instance(): MQClientInstance {
    if (this.clientInstance === undefined)
      throw new ClientStateError('PushConsumer', this.state, { group: this.consumerGroup });
    return this.clientInstance;
  }

  get offsetStore(): OffsetStore {
    if (this.store === undefined)
      throw new ClientStateError('PushConsumer', this.state, { group: this.consumerGroup });
    return this.store;
  }

  get admin(): MQAdminImpl {
    return this.instance.admin;
  }

  messageModel(): MessageModel {
    return this.options.messageModel;
  }

  get namespace(): string | undefined {
    return this.config.namespace;
  }

  get clientConfig(): ClientConfig {
    return this.config;
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  get startedAt(): number {
    return this.startTimestamp;
  }

  get consumeMessageService(): ConsumeMessageService | undefined {
    return this.consumeService;
  }

  get pullAPIWrapper(): PullAPIWrapper | undefined {
    return this.pullWrapper;
  }

  isConsumeOrderly(): boolean {
    return this.consumeOrderly;
  }

  isRunning(): boolean {
    return this.state === 'RUNNING';
  }

  isPaused(): boolean {
    return this.paused;
  }

  apiCallOptions(): CallOptions {
    return this.instance.apiCallOptions(this.shutdownController.signal);
  }

  maxReconsumeTimes(): number {
    const max = this.options.maxReconsumeTimes;
    if (max !== -1) return max;
    return this.consumeOrderly ? 2147483647 : 16;
  }

  sendHeartbeat(): void {
    void this.clientInstance?.sendHeartbeatToAllBrokerWithLock();
  }

  // Configuration before start

  registerMessageListener(listener: MessageListener): void {
    if (
      listener === null ||
      typeof listener !== 'object' ||
      (listener.type !== 'concurrently' && listener.type !== 'orderly') ||
      typeof listener.consumeMessage !== 'function'
    ) {
      throw new ValidationError(
        "registerMessageListener takes { type: 'concurrently' | 'orderly', consumeMessage(msgs, context) }",
        -1,
      );
    }
    if (this.state !== 'CREATE_JUST')
      throw new ClientStateError('PushConsumer', `${this.state}, the listener is set before start`);
    this.listener = listener;
  }

  registerConsumeMessageHook(hook: ConsumeMessageHook): void {
    this.hooks.push(hook);
    this.logger.info('consume message hook registered', { hook: hook.hookName() });
  }

  /** Subscribes `topic` (again: the expression is replaced); after start the brokers learn it at once. */
  subscribe(topic: string, expression: SubscriptionExpression = '*'): void {
    if (typeof topic !== 'string' || topic.length === 0)
      throw new ValidationError('subscribe: topic must be a non-empty string', -1);
    const wireTopic = withNamespaceOf(this.config, topic);
    const data = subscriptionDataOf('subscribe', topic, wireTopic, expression, BigInt(this.clock.now()));
    this.rebalance.subscriptionInner.set(wireTopic, data);
    this.onSubscriptionChanged();
  }

  unsubscribe(topic: string): void {
    this.rebalance.subscriptionInner.delete(withNamespaceOf(this.config, topic));
    this.onSubscriptionChanged();
  }

  private onSubscriptionChanged(): void {
    if (this.state !== 'RUNNING') return;
    void this.updateTopicSubscribeInfoWhenSubscriptionChanged().then(() => {
      this.sendHeartbeat();
      this.instance.rebalanceImmediately();
    });
  }

  // Lifecycle

  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') {
      throw new ClientStateError('PushConsumer', `${this.state}, maybe started once`, {
        group: this.consumerGroup,
      });
    }
    const listener = this.listener;
    if (listener === undefined)
      throw new MQClientError(
        'messageListener is null: call registerMessageListener() before start()',
        undefined,
        {
          group: this.consumerGroup,
        },
      );
    this.state = 'START_FAILED';
    if (this.options.messageModel === 'CLUSTERING') {
      const retryTopic = MixAll.getRetryTopic(this.consumerGroup);
      this.rebalance.subscriptionInner.set(
        retryTopic,
        buildSubscription(retryTopic, '*', undefined, { subVersion: BigInt(this.clock.now()) }),
      );
    }
    const instance = getOrCreateMQClientInstance(this.config);
    this.clientInstance = instance;
    this.pullWrapper = new PullAPIWrapper(instance, this.consumerGroup, this.logger.child('pull'));
    this.store = this.offsetStoreFactory(this.options.messageModel === 'BROADCASTING' ? 'local' : 'remote', {
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
    this.consumeOrderly = listener.type === 'orderly';
    this.consumeService = this.createConsumeService(listener);
    this.consumeService.start();
    if (!instance.registerConsumer(this.consumerGroup, this)) {
      this.state = 'CREATE_JUST';
      await this.consumeService.shutdown(0);
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
    this.logger.info('push consumer started', {
      group: this.consumerGroup,
      clientId: instance.clientId,
      model: this.options.messageModel,
    });
    await this.updateTopicSubscribeInfoWhenSubscriptionChanged();
    try {
      await instance.checkClientInBroker(this);
    } catch (error) {
      await this.shutdown();
      throw error;
    }
    await instance.sendHeartbeatToAllBrokerWithLock();
    instance.rebalanceImmediately();
  }

  /** Stops pulling, lets running listeners finish (up to awaitTerminationMillisWhenShutdown), persists offsets, leaves the group. */
  shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const wasRunning = this.state === 'RUNNING';
    this.state = 'SHUTDOWN_ALREADY';
    this.shutdownController.abort(
      new ClientStateError('PushConsumer', 'SHUTDOWN_ALREADY', { group: this.consumerGroup }),
    );
    this.pullMessageService.shutdown();
    this.lockRetryTimer?.cancel();
    const instance = this.clientInstance;
    if (instance === undefined) return;
    if (wasRunning) {
      await this.consumeService?.shutdown(this.options.awaitTerminationMillisWhenShutdown);
      await this.persistConsumerOffset();
    }
    this.stats.shutdown();
    await instance.unregisterConsumer(this.consumerGroup);
    await instance.shutdown();
    this.rebalance.destroy();
    if (wasRunning) this.logger.info('push consumer shut down', { group: this.consumerGroup });
  }

  suspend(): void {
    this.paused = true;
    this.logger.info('suspend this consumer', { group: this.consumerGroup });
  }

  resume(): void {
    this.paused = false;
    this.doRebalance().catch(() => undefined);
    this.logger.info('resume this consumer', { group: this.consumerGroup });
  }

  updateCorePoolSize(size: number): void {
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      throw new ValidationError(`consumeConcurrency must be an integer in [1, 1000], got ${size}`, -1);
    }
    this.options.consumeConcurrency = size;
    this.consumeService?.updateCorePoolSize(size);
  }

  /** The topic's readable queues (upstream fetchSubscribeMessageQueues), asking the name servers. */
  async fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.makeSureStateOK();
    const wireTopic = withNamespaceOf(this.config, topic);
    let queues = this.rebalance.topicSubscribeInfoTable.get(wireTopic);
    if (queues === undefined) {
      await this.instance.updateTopicRouteInfoFromNameServer(wireTopic);
      queues = this.rebalance.topicSubscribeInfoTable.get(wireTopic);
    }
    if (queues === undefined || queues.length === 0) {
      throw new MQClientError(`The topic[${topic}] not exist`, ResponseCode.TOPIC_NOT_EXIST, {
        topic,
        group: this.consumerGroup,
      });
    }
    return queues.map((mq) => new MessageQueue(topic, mq.brokerName, mq.queueId));
  }

  private makeSureStateOK(): void {
    if (this.state !== 'RUNNING')
      throw new ClientStateError('PushConsumer', this.state, { group: this.consumerGroup });
  }

  private createConsumeService(listener: MessageListener): ConsumeMessageService {
    if (listener.type === 'concurrently') return new ConsumeMessageConcurrentlyService(this, listener);
    return new ConsumeMessageOrderlyService(this, listener);
  }

  private async updateTopicSubscribeInfoWhenSubscriptionChanged(): Promise<void> {
    await Promise.all(
      [...this.rebalance.subscriptionInner.keys()].map((t) =>
        this.instance.updateTopicRouteInfoFromNameServer(t),
      ),
    );
  }

  // Pulling

  /** RebalancePushImpl.dispatchPullRequest hands each new queue's first pull here. */
  executePullRequestImmediately(request: PullRequest): void {
    this.pullMessageService.executePullRequestImmediately(request);
  }

  /** The orderly pull loop re-reads a queue's start once its lock is first held, with rebalancing's rules. */
  computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    return this.pushAdapter.computePullFromWhere(mq);
  }

  // Sending back

  /**
   * CONSUMER_SEND_MSG_BACK to the broker that stored `msg`; when that fails, the message goes to the
   * group's retry topic through the instance's inner producer, with the retry properties upstream
   * sets. Rejects when both failed (the message is then consumed again locally).
   */
  async sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined): Promise<void> {
    await sendMessageBack(
      {
        instance: this.instance,
        consumerGroup: this.consumerGroup,
        unitMode: this.config.unitMode,
        maxReconsumeTimes: this.maxReconsumeTimes(),
        logger: this.logger,
        signal: this.shutdownController.signal,
      },
      msg,
      withNamespaceOf(this.config, msg.topic),
      delayLevel,
      brokerName,
    );
  }

  innerProducerForDLQ(): Promise<InnerProducer> {
    return innerProducerOf(this.instance);
  }

  resetRetryAndNamespace(msgs: readonly MessageExt[]): void {
    const groupTopic = MixAll.getRetryTopic(this.consumerGroup);
    const namespace = this.config.namespace;
    for (const msg of msgs) {
      const retryTopic = msg.properties.get(MessageConst.PROPERTY_RETRY_TOPIC);
      if (retryTopic !== undefined && msg.topic === groupTopic) msg.topic = retryTopic;
      if (namespace !== undefined) msg.topic = withoutNamespaceOf(this.config, msg.topic);
    }
  }

  // MQConsumerInner

  groupName(): string {
    return this.consumerGroup;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_PASSIVELY;
  }

  consumeFromWhere(): ConsumeFromWhere {
    return this.options.consumeFromWhere ?? ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
  }

  subscriptions(): readonly SubscriptionData[] {
    return [...this.rebalance.subscriptionInner.values()];
  }

  isUnitMode(): boolean {
    return this.config.unitMode;
  }

  updateTopicSubscribeInfo(topic: string, queues: readonly MessageQueue[]): void {
    const changed = this.rebalance.updateTopicSubscribeInfo(topic, queues);
    if (changed && this.state === 'RUNNING') this.clientInstance?.rebalanceImmediately();
  }

  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return this.rebalance.isSubscribeTopicNeedUpdate(topic);
  }

  async doRebalance(): Promise<void> {
    if (this.paused || this.state !== 'RUNNING') return;
    // A topic without a route yet (the retry topic the broker creates on the first heartbeat) is
    // asked for now rather than at the next route poll, so the group holds its queues at once.
    const missing = [...this.rebalance.subscriptionInner.keys()].filter(
      (t) => !this.rebalance.topicSubscribeInfoTable.has(t),
    );
    await Promise.all(missing.map((t) => this.instance.updateTopicRouteInfoFromNameServer(t)));
    await this.rebalance.doRebalance(this.consumeOrderly);
    // Better than upstream (apache/rocketmq#2621, #5465): a queue whose previous owner still held the
    // lock is tried again in a second, not at the next 20 s rebalance; the previous owner unlocks it
    // as soon as its batch in flight is done.
    if (this.rebalance.lockPending && this.lockRetryTimer === undefined && this.state === 'RUNNING') {
      this.lockRetryTimer = this.clock.setTimeout(() => {
        this.lockRetryTimer = undefined;
        this.doRebalance().catch((error: unknown) => {
          this.logger.warn('rebalance to lock a queue failed', {
            group: this.consumerGroup,
            error: errorText(error),
          });
        });
      }, this.options.lockRetryInterval);
    }
  }

  async persistConsumerOffset(): Promise<void> {
    if (this.store === undefined) return;
    try {
      await this.store.persistAll([...this.rebalance.processQueueTable.values()].map((h) => h.mq));
    } catch (error) {
      this.logger.error('persistConsumerOffset failed', {
        group: this.consumerGroup,
        error: errorText(error),
      });
    }
  }

  /** RESET_CONSUMER_CLIENT_OFFSET, as upstream's MQClientInstance.resetOffset: suspend, drop, store, resume. */
  async resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void> {
    this.suspend();
    try {
      const table = new Map(offsets.map(([mq, offset]) => [mq.key, offset]));
      for (const { mq, pq } of this.rebalance.processQueueTable.values()) {
        if (mq.topic === topic && table.has(mq.key)) {
          pq.dropped = true;
          pq.clear();
        }
      }
      for (const [mq, offset] of offsets) {
        if (mq.topic !== topic) continue;
        this.offsetStore.updateOffset(mq, offset, false);
        await this.offsetStore.updateConsumeOffsetToBroker(mq, offset, false).catch((error: unknown) => {
          this.logger.warn('reset offset: update to broker failed', {
            mq: mq.toString(),
            error: errorText(error),
          });
        });
        await this.rebalance.removeProcessQueue(mq);
      }
    } finally {
      this.resume();
    }
  }

  consumerStatus(topic: string | undefined): Array<[MessageQueue, bigint]> {
    return this.store?.cloneOffsetTable(topic) ?? [];
  }

  /** GET_CONSUMER_RUNNING_INFO: settings, subscriptions, every held queue and the consume stats. */
  consumerRunningInfo(jstackEnable: boolean): Buffer {
    const o = this.options;
    const info = buildConsumerRunningInfo({
      consumerFields: {
        consumerGroup: this.consumerGroup,
        messageModel: o.messageModel,
        consumeFromWhere: o.consumeFromWhere,
        consumeTimestamp: formatConsumeTimestamp(o.consumeTimestamp),
        consumeThreadMin: o.consumeConcurrency,
        consumeThreadMax: o.consumeConcurrency,
        consumeConcurrentlyMaxSpan: o.consumeConcurrentlyMaxSpan,
        pullThresholdForQueue: o.pullThresholdForQueue,
        pullThresholdSizeForQueue: o.pullThresholdSizeForQueue,
        pullThresholdForTopic: o.pullThresholdForTopic,
        pullThresholdSizeForTopic: o.pullThresholdSizeForTopic,
        pullInterval: o.pullInterval,
        consumeMessageBatchMaxSize: o.consumeMessageBatchMaxSize,
        pullBatchSize: o.pullBatchSize,
        postSubscriptionWhenPull: o.postSubscriptionWhenPull,
        unitMode: this.config.unitMode,
        maxReconsumeTimes: o.maxReconsumeTimes,
        suspendCurrentQueueTimeMillis: o.suspendCurrentQueueTimeMillis,
        consumeTimeout: o.consumeTimeout,
        awaitTerminationMillisWhenShutdown: o.awaitTerminationMillisWhenShutdown,
        allocateMessageQueueStrategy: this.rebalance.settings.strategy.name,
      },
      consumeOrderly: this.consumeOrderly,
      threadPoolCoreSize: this.consumeService?.getCorePoolSize() ?? o.consumeConcurrency,
      consumerStartTimestamp: this.startTimestamp,
      namesrvAddrList: this.instance.api.namesrv.addresses,
      consumeType: ConsumeType.CONSUME_PASSIVELY,
      subscriptions: this.subscriptions(),
      processQueueTable: [...this.rebalance.processQueueTable.values()].map(
        ({ mq, pq }) => [mq, pq] as const,
      ),
      commitOffset: (mq) => this.store?.readOffsetInMemory(mq) ?? -1n,
      consumeStatus: (topic) => this.stats.consumeStatus(this.consumerGroup, topic),
      ...(jstackEnable ? { jstack: '' } : {}),
    });
    return encodeConsumerRunningInfo(info);
  }

  /** CONSUME_MESSAGE_DIRECTLY: the listener runs on `msg` once, outside the queues' flow. */
  async consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<Buffer> {
    const service = this.consumeService;
    if (service === undefined)
      throw new ClientStateError('PushConsumer', this.state, { group: this.consumerGroup });
    return encodeConsumeMessageDirectlyResult(await service.consumeMessageDirectly(msg, brokerName));
  }
}
