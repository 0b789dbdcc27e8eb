/**
 * DefaultMQPushConsumerImpl: a consumer group on a client instance that pulls for its listener.
 * Rebalancing (RebalanceImpl with the push adapter) gives it queues; each held queue has one
 * PullRequest, pulled (long polling, by the PullMessageService) whenever flow control allows, its
 * messages cached in the queue's ProcessQueue and handed to the consume service; progress goes to
 * the offset store.
 */
import type { TimerHandle } from '../../../common/clock.js';
import { MixAll } from '../../../common/constants.js';
import { ValidationError } from '../../../common/errors.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { encodeConsumeMessageDirectlyResult } from '../../../common/protocol/consume-message-directly-result.js';
import { ConsumeFromWhere } from '../../../common/protocol/heartbeat-data.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { withNamespaceOf, withoutNamespaceOf } from '../../client-config.js';
import { errorText, MQClientError } from '../../errors.js';
import type { InnerProducer } from '../../instance/inner.js';
import type { ConsumeMessageHook } from '../consume/consume-hooks.js';
import { ConsumeMessageConcurrentlyService } from '../consume/consume-message-concurrently-service.js';
import {
  ConsumeMessageOrderlyService,
  type OrderlyConsumeHost,
} from '../consume/consume-message-orderly-service.js';
import { ConsumeMessagePopConcurrentlyService } from '../consume/consume-message-pop-concurrently-service.js';
import type { ConsumeMessageService } from '../consume/consume-message-service.js';
import {
  ConsumerCore,
  type OffsetStoreFactory,
  type RunningInfoParts,
  type StatsFactory,
} from '../consumer-core.js';
import type { MessageListener } from '../listener.js';
import type { PopAckHost } from '../pop/pop-ack.js';
import { type PopMessageHost, PopMessageService } from '../pop/pop-message-service.js';
import type { PopRequest } from '../pop/pop-request.js';
import { type PullMessageHost, PullMessageService } from '../pull/pull-message-service.js';
import type { PullRequest } from '../pull/pull-request.js';
import type { RebalanceAdapter } from '../rebalance/rebalance-impl.js';
import { RebalancePushAdapter } from '../rebalance/rebalance-push-adapter.js';
import { innerProducerOf } from '../send-message-back.js';
import { type SubscriptionExpression, subscriptionDataOf } from '../subscription-expression.js';
import {
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
  resolvePushConsumerOptions,
} from './push-consumer-options.js';

/** Upstream's yyyyMMddHHmmss of consumeTimestamp, in local time. */
function formatConsumeTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}

export class DefaultMQPushConsumerImpl
  extends ConsumerCore<ResolvedPushConsumerOptions>
  implements OrderlyConsumeHost, PullMessageHost, PopMessageHost
{
  readonly hooks: ConsumeMessageHook[] = [];
  /** The pull loop of the queues held. */
  readonly pullMessageService: PullMessageService;
  /** The pop loop of the queues the broker assigned in POP mode (clientRebalance off). */
  readonly popMessageService: PopMessageService;
  private popService: ConsumeMessagePopConcurrentlyService | undefined;
  private listener: MessageListener | undefined;
  private paused = false;
  private consumeService: ConsumeMessageService | undefined;
  private consumeOrderly = false;
  private lockRetryTimer: TimerHandle | undefined;

  constructor(
    options: PushConsumerOptions,
    offsetStoreFactory: OffsetStoreFactory,
    statsFactory: StatsFactory,
  ) {
    super(options, {
      kind: 'PushConsumer',
      loggerName: 'consumer',
      resolve: (now) => resolvePushConsumerOptions(options, now),
      processQueue: (o) => ({ lockMaxLiveTime: o.lockMaxLiveTime, pullMaxIdleTime: o.pullMaxIdleTime }),
      offsetStoreFactory,
      statsFactory,
    });
    this.pullMessageService = new PullMessageService(this, this.shutdownController.signal);
    this.popMessageService = new PopMessageService(this, this.shutdownController.signal);
  }

  protected createRebalanceAdapter(): RebalanceAdapter {
    return new RebalancePushAdapter(this);
  }

  // What the parts read

  get consumeMessageService(): ConsumeMessageService | undefined {
    return this.consumeService;
  }

  get popConsumeService(): ConsumeMessagePopConcurrentlyService | undefined {
    return this.popService;
  }

  /** What acks and invisible-time changes go through: the instance's brokers and route. */
  get popAckHost(): PopAckHost {
    const instance = this.instance;
    return {
      api: instance.api,
      logger: this.logger,
      findBrokerAddressInSubscribe: (name, id, only) => instance.findBrokerAddressInSubscribe(name, id, only),
      updateTopicRouteInfoFromNameServer: (topic) => instance.updateTopicRouteInfoFromNameServer(topic),
    };
  }

  isConsumeOrderly(): boolean {
    return this.consumeOrderly;
  }

  isPaused(): boolean {
    return this.paused;
  }

  maxReconsumeTimes(): number {
    const max = this.options.maxReconsumeTimes;
    if (max !== -1) return max;
    return this.consumeOrderly ? 2147483647 : 16;
  }

  sendHeartbeat(): void {
    void this.startedInstance?.sendHeartbeatToAllBrokerWithLock();
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
    if (this.state !== 'CREATE_JUST') throw this.stateError('the listener is set before start');
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

  protected override prepareStart(): void {
    if (this.listener === undefined)
      throw new MQClientError(
        'messageListener is null: call registerMessageListener() before start()',
        undefined,
        { group: this.consumerGroup },
      );
    if (this.options.messageModel === 'CLUSTERING') {
      const retryTopic = MixAll.getRetryTopic(this.consumerGroup);
      this.rebalance.subscriptionInner.set(
        retryTopic,
        buildSubscription(retryTopic, '*', undefined, { subVersion: BigInt(this.clock.now()) }),
      );
    }
  }

  /** Its work comes from the brokers, not from calls the application awaits: it runs until shut down. */
  protected override keepsProcessAlive(): boolean {
    return true;
  }

  protected override async onStarting(): Promise<void> {
    const listener = this.listener as MessageListener;
    this.consumeOrderly = listener.type === 'orderly';
    this.consumeService = this.createConsumeService(listener);
    this.consumeService.start();
    // As upstream: POP consumption serves concurrently listeners (orderly ones never leave client rebalance).
    if (listener.type === 'concurrently')
      this.popService = new ConsumeMessagePopConcurrentlyService(this, listener);
  }

  protected override async onStartFailed(): Promise<void> {
    await this.consumeService?.shutdown(0);
    await this.popService?.shutdown();
  }

  protected override stopServices(): void {
    this.pullMessageService.shutdown();
    this.popMessageService.shutdown();
    this.lockRetryTimer?.cancel();
  }

  /** Running listeners may finish, up to awaitTerminationMillisWhenShutdown. */
  protected override async drain(): Promise<void> {
    await this.consumeService?.shutdown(this.options.awaitTerminationMillisWhenShutdown);
    // Popped messages not consumed come back after their invisible time: nothing to wait for.
    void this.popService?.shutdown();
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
    this.popService?.updateCorePoolSize(size);
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

  private createConsumeService(listener: MessageListener): ConsumeMessageService {
    if (listener.type === 'concurrently') return new ConsumeMessageConcurrentlyService(this, listener);
    return new ConsumeMessageOrderlyService(this, listener);
  }

  // Pulling

  /** RebalancePushImpl.dispatchPullRequest hands each new queue's first pull here. */
  executePullRequestImmediately(request: PullRequest): void {
    this.pullMessageService.executePullRequestImmediately(request);
  }

  /** RebalancePushImpl.dispatchPopPullRequest hands each new POP queue's first pop here. */
  executePopRequestImmediately(request: PopRequest): void {
    this.popMessageService.executePopRequestImmediately(request);
  }

  /** The orderly pull loop re-reads a queue's start once its lock is first held, with rebalancing's rules. */
  computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    return (this.rebalanceAdapter as RebalancePushAdapter).computePullFromWhere(mq);
  }

  // Sending back

  /**
   * CONSUMER_SEND_MSG_BACK to the broker that stored `msg`; when that fails, the message goes to the
   * group's retry topic through the instance's inner producer, with the retry properties upstream
   * sets. Rejects when both failed (the message is then consumed again locally).
   */
  async sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined): Promise<void> {
    await this.sendBack(msg, delayLevel, brokerName, this.consumerGroup, this.maxReconsumeTimes());
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

  override consumeFromWhere(): ConsumeFromWhere {
    return this.options.consumeFromWhere ?? ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
  }

  override updateTopicSubscribeInfo(topic: string, queues: readonly MessageQueue[]): void {
    const changed = this.rebalance.updateTopicSubscribeInfo(topic, queues);
    if (changed && this.state === 'RUNNING') this.startedInstance?.rebalanceImmediately();
  }

  protected override rebalances(): boolean {
    return !this.paused && this.state === 'RUNNING';
  }

  protected override consumesOrderly(): boolean {
    return this.consumeOrderly;
  }

  override async doRebalance(): Promise<void> {
    await super.doRebalance();
    if (!this.rebalances()) return;
    // Better than upstream (apache/rocketmq#2621, #5465): a queue whose previous owner still held the
    // lock is tried again in a second, not at the next 20 s rebalance; the previous owner unlocks it
    // as soon as its batch in flight is done.
    if (this.rebalance.lockPending && this.lockRetryTimer === undefined && this.state === 'RUNNING') {
      this.lockRetryTimer = this.clock.setTimeout(() => {
        this.lockRetryTimer = undefined;
        this.doRebalance().catch((error: unknown) => {
          this.logger.warn(
            'rebalance to lock a queue failed',
            {
              group: this.consumerGroup,
              error: errorText(error),
            },
            error,
          );
        });
      }, this.options.lockRetryInterval);
    }
  }

  protected offsetQueues(): MessageQueue[] {
    return [...this.rebalance.processQueueTable.values()].map((h) => h.mq);
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
          this.logger.warn(
            'reset offset: update to broker failed',
            {
              mq: mq.toString(),
              error: errorText(error),
            },
            error,
          );
        });
        await this.rebalance.removeProcessQueue(mq);
      }
    } finally {
      this.resume();
    }
  }

  protected runningInfoParts(): RunningInfoParts {
    const o = this.options;
    return {
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
      processQueueTable: this.heldQueues(),
    };
  }

  /** CONSUME_MESSAGE_DIRECTLY: the listener runs on `msg` once, outside the queues' flow. */
  override async consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<Buffer> {
    const service = this.consumeService;
    if (service === undefined) throw this.stateError();
    return encodeConsumeMessageDirectlyResult(await service.consumeMessageDirectly(msg, brokerName));
  }
}
