/**
 * ConsumerCore: what the push, pull and lite pull consumers share. Upstream repeats it in each of
 * DefaultMQPushConsumerImpl, DefaultMQPullConsumerImpl and DefaultLitePullConsumerImpl: the service
 * state (upstream's ServiceState), the client instance and offset store made at start, the rebalance
 * engine with the kind's adapter, the MQConsumerInner answers, and start/shutdown with their clean-up.
 * A kind adds its own work through the hooks (onStarting, onRunning, stopServices, drain).
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { MessageExt } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { ConsumeStatus } from '../../common/protocol/consume-status.js';
import {
  type ConsumerRunningInfo,
  encodeConsumerRunningInfo,
} from '../../common/protocol/consumer-running-info.js';
import {
  ConsumeFromWhere,
  type ConsumeType,
  type MessageModel,
} from '../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import { checkTopicArg } from '../../common/validators.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import {
  type ClientConfig,
  type ClientOptions,
  queueWithoutNamespaceOf,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../client-config.js';
import { ClientStateError, errorText, MQClientError, type MQClientErrorOptions } from '../errors.js';
import type { MQConsumerInner } from '../instance/inner.js';
import type { MQAdminImpl } from '../instance/mq-admin-impl.js';
import type { CallOptions } from '../instance/mq-client-api.js';
import type { MQClientInstance, ServiceState } from '../instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../instance/mq-client-manager.js';
import { topicRouteData2TopicSubscribeInfo } from '../instance/topic-route.js';
import { NamespacedAdmin } from '../mq-admin.js';
import type { MessageQueueListener } from './message-queue-listener.js';
import type { OffsetStore } from './offset/offset-store.js';
import { ProcessHold } from './process-hold.js';
import type { ProcessQueue, ProcessQueueSettings } from './process-queue.js';
import { PullAPIWrapper } from './pull/pull-api-wrapper.js';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate/allocate-message-queue-strategy.js';
import { AllocateMessageQueueAveragely } from './rebalance/allocate/averagely.js';
import { type RebalanceAdapter, RebalanceImpl, rebalanceHostOf } from './rebalance/rebalance-impl.js';
import { sendMessageBack } from './send-message-back.js';
import {
  buildConsumerRunningInfo,
  type ConsumerRunningInfoInput,
} from './stats/consumer-running-info-builder.js';
import type { ConsumerStatsRecorder } from './stats/consumer-stats-recorder.js';

/** The consumer's name in state errors and logs, as upstream's messages name it. */
export type ConsumerKind = 'PushConsumer' | 'PullConsumer' | 'LitePullConsumer';

/** Makes a consumer's offset store: the brokers' for a clustering group, a local file for broadcasting. */
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

/** The options every kind resolves. */
export interface ResolvedConsumerCoreOptions {
  readonly consumerGroup: string;
  readonly messageModel: MessageModel;
  readonly allocateMessageQueueStrategy: AllocateMessageQueueStrategy | undefined;
  readonly localOffsetStoreDir: string | undefined;
}

export interface ConsumerCoreSpec<O extends ResolvedConsumerCoreOptions> {
  readonly kind: ConsumerKind;
  /** The logger's child name. */
  readonly loggerName: string;
  /** The kind's options, checked; `now` is what consumeTimestamp defaults from. */
  resolve(now: number): O;
  processQueue(options: O): ProcessQueueSettings;
  readonly offsetStoreFactory: OffsetStoreFactory;
  readonly statsFactory: StatsFactory;
}

/** What a kind adds to the running info the core builds. */
export type RunningInfoParts = Pick<
  ConsumerRunningInfoInput,
  'consumerFields' | 'consumeOrderly' | 'threadPoolCoreSize' | 'processQueueTable'
>;

export abstract class ConsumerCore<O extends ResolvedConsumerCoreOptions> implements MQConsumerInner {
  readonly options: O;
  /** The group on the wire (with the namespace). */
  readonly consumerGroup: string;
  readonly kind: ConsumerKind;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rebalance: RebalanceImpl;
  readonly stats: ConsumerStats;
  /** The MQAdmin queries of the facade; they need a running consumer. */
  readonly queries: NamespacedAdmin;
  protected readonly config: ClientConfig;
  protected readonly rebalanceAdapter: RebalanceAdapter;
  /** Aborted at shutdown: every request and wait of the consumer ends with it. */
  protected readonly shutdownController = new AbortController();
  protected state: ServiceState = 'CREATE_JUST';
  private readonly startTimestamp: number;
  private readonly offsetStoreFactory: OffsetStoreFactory;
  private clientInstance: MQClientInstance | undefined;
  private store: OffsetStore | undefined;
  private pullWrapper: PullAPIWrapper | undefined;
  private stopping: Promise<void> | undefined;
  private readonly processHold = new ProcessHold();

  protected constructor(
    rawOptions: ClientOptions & { readonly messageModel?: MessageModel | undefined },
    spec: ConsumerCoreSpec<O>,
  ) {
    this.config = resolveClientConfig(rawOptions, rawOptions?.messageModel !== 'BROADCASTING');
    this.clock = this.config.clock;
    this.startTimestamp = this.clock.now();
    this.options = spec.resolve(this.clock.now());
    this.kind = spec.kind;
    this.consumerGroup = withNamespaceOf(this.config, this.options.consumerGroup);
    this.logger = this.config.logger.child(spec.loggerName);
    this.offsetStoreFactory = spec.offsetStoreFactory;
    this.stats = spec.statsFactory(this.clock);
    setMaxListeners(0, this.shutdownController.signal);
    this.rebalanceAdapter = this.createRebalanceAdapter();
    this.rebalance = new RebalanceImpl(
      {
        consumerGroup: this.consumerGroup,
        messageModel: this.options.messageModel,
        strategy:
          this.options.allocateMessageQueueStrategy ??
          new AllocateMessageQueueAveragely({ logger: this.logger }),
        processQueue: spec.processQueue(this.options),
      },
      rebalanceHostOf(() => this.instance),
      this.rebalanceAdapter,
      this.clock,
      this.logger.child('rebalance'),
    );
    this.queries = new NamespacedAdmin(this.config, () => {
      this.makeSureStateOK();
      return this.instance.admin;
    });
  }

  /**
   * The kind's RebalanceAdapter. Called from the constructor, before the subclass's own fields are
   * set: the adapter may keep `this` but must not read it yet.
   */
  protected abstract createRebalanceAdapter(): RebalanceAdapter;

  // What the parts read

  get instance(): MQClientInstance {
    if (this.clientInstance === undefined) throw this.stateError();
    return this.clientInstance;
  }

  get offsetStore(): OffsetStore {
    if (this.store === undefined) throw this.stateError();
    return this.store;
  }

  /** The instance from start on (also while stopping); undefined before. */
  protected get startedInstance(): MQClientInstance | undefined {
    return this.clientInstance;
  }

  get pullAPIWrapper(): PullAPIWrapper | undefined {
    return this.pullWrapper;
  }

  get admin(): MQAdminImpl {
    return this.instance.admin;
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  get clientConfig(): ClientConfig {
    return this.config;
  }

  get namespace(): string | undefined {
    return this.config.namespace;
  }

  get startedAt(): number {
    return this.startTimestamp;
  }

  isRunning(): boolean {
    return this.state === 'RUNNING';
  }

  /** Options of the consumer's own calls: mqClientApiTimeout, ended by shutdown. */
  apiCallOptions(): CallOptions {
    return this.instance.apiCallOptions(this.shutdownController.signal);
  }

  /** The error of a call the state does not allow; `detail` follows the state name. */
  stateError(detail?: string, options: MQClientErrorOptions = {}): ClientStateError {
    return new ClientStateError(this.kind, detail === undefined ? this.state : `${this.state}, ${detail}`, {
      group: this.consumerGroup,
      ...options,
    });
  }

  /** Throws a ClientStateError unless the consumer runs. */
  makeSureStateOK(): void {
    if (this.state !== 'RUNNING') throw this.stateError();
  }

  // Lifecycle

  /** Checks and readies what start needs before the instance (a listener); may throw, the state stays. */
  protected prepareStart(): void {}

  /** Between the offset store's load and joining the instance (the push consumer's consume service). */
  protected async onStarting(): Promise<void> {}

  /** Undoes onStarting when the start fails after it. */
  protected async onStartFailed(): Promise<void> {}

  /** Once running, before the brokers check the subscriptions (pull tasks, watched topics). */
  protected async onRunning(): Promise<void> {}

  /** Whether the running consumer keeps the process alive by itself (the push consumer: a service). */
  protected keepsProcessAlive(): boolean {
    return false;
  }

  /** Whether start sends a heartbeat and rebalances at once (the group's queues are to be shared). */
  protected joinsGroupAtStart(): boolean {
    return true;
  }

  /**
   * Joins the group: instance, offset store (loaded), registration; then routes, the brokers' check of
   * SQL92 subscriptions, heartbeat and rebalance. A start that fails before the consumer runs leaves
   * nothing behind: the group leaves the instance, the instance shuts down unless another client uses
   * it, and the state is START_FAILED as upstream's (a group already in the instance: CREATE_JUST).
   */
  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') throw this.stateError('maybe started once');
    this.prepareStart();
    this.state = 'START_FAILED';
    const instance = getOrCreateMQClientInstance(this.config);
    this.clientInstance = instance;
    let registered = false;
    try {
      this.pullWrapper = new PullAPIWrapper(instance, this.consumerGroup, this.logger.child('pull'));
      this.store = this.offsetStoreFactory(
        this.options.messageModel === 'BROADCASTING' ? 'local' : 'remote',
        {
          instance,
          group: this.consumerGroup,
          dir: this.options.localOffsetStoreDir,
        },
      );
      await this.store.load();
      await this.onStarting();
      if (!instance.registerConsumer(this.consumerGroup, this)) {
        this.state = 'CREATE_JUST';
        throw new MQClientError(
          `The consumer group[${this.consumerGroup}] has been created before, specify another name please.`,
          undefined,
          { group: this.consumerGroup },
        );
      }
      registered = true;
      instance.start();
    } catch (error) {
      await this.onStartFailed();
      if (registered) await instance.unregisterConsumer(this.consumerGroup);
      await instance.shutdown();
      this.clientInstance = undefined;
      this.store = undefined;
      this.pullWrapper = undefined;
      throw error;
    }
    this.stats.start();
    this.state = 'RUNNING';
    if (this.keepsProcessAlive()) this.processHold.hold();
    this.logger.info('consumer started', {
      kind: this.kind,
      group: this.consumerGroup,
      clientId: instance.clientId,
      model: this.options.messageModel,
    });
    await this.updateTopicSubscribeInfoWhenSubscriptionChanged();
    await this.onRunning();
    try {
      await instance.checkClientInBroker(this);
    } catch (error) {
      await this.shutdown();
      throw error;
    }
    if (this.joinsGroupAtStart()) {
      await instance.sendHeartbeatToAllBrokerWithLock();
      instance.rebalanceImmediately();
    }
  }

  /** Stops the kind's own work at once (pulls, timers, waiting polls); `wasRunning` as at the call. */
  protected stopServices(_wasRunning: boolean): void {}

  /** What running work may finish before offsets are persisted (the listeners in flight). */
  protected async drain(): Promise<void> {}

  /** Persists offsets, leaves the group and shuts the instance down unless another client uses it. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const wasRunning = this.state === 'RUNNING';
    this.state = 'SHUTDOWN_ALREADY';
    this.processHold.release();
    this.shutdownController.abort(this.stateError());
    this.stopServices(wasRunning);
    const instance = this.clientInstance;
    if (instance === undefined) return;
    if (wasRunning) {
      await this.drain();
      await this.persistConsumerOffset();
    }
    this.stats.shutdown();
    await instance.unregisterConsumer(this.consumerGroup);
    await instance.shutdown();
    this.rebalance.destroy();
    if (wasRunning) this.logger.info('consumer shut down', { kind: this.kind, group: this.consumerGroup });
  }

  protected async updateTopicSubscribeInfoWhenSubscriptionChanged(): Promise<void> {
    const instance = this.instance;
    await Promise.all(
      [...this.rebalance.subscriptionInner.keys()].map((t) => instance.updateTopicRouteInfoFromNameServer(t)),
    );
  }

  // What the pull and lite pull consumers share

  /** The readable queues of `topic` (the application's name) as the name servers route them now. */
  protected async routeQueues(topic: string): Promise<MessageQueue[]> {
    const wireTopic = withNamespaceOf(this.config, checkTopicArg('topic', topic));
    await this.instance.updateTopicRouteInfoFromNameServer(wireTopic);
    const route = this.instance.topicRouteTable.get(wireTopic);
    const queues = route === undefined ? [] : topicRouteData2TopicSubscribeInfo(topic, route);
    if (queues.length === 0) {
      throw new MQClientError(
        `Can not find Message Queue for this topic, ${topic}`,
        ResponseCode.TOPIC_NOT_EXIST,
        {
          topic,
          group: this.consumerGroup,
        },
      );
    }
    return queues;
  }

  /** Hands rebalancing's queues of `topic` to the application's listener, in its names; a throw is logged. */
  protected tellQueueListener(
    listener: MessageQueueListener | undefined,
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    if (listener === undefined) return;
    try {
      listener(
        withoutNamespaceOf(this.config, topic),
        mqAll.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
        mqDivided.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
      );
    } catch (error) {
      this.logger.error('message queue listener failed', { topic, error: errorText(error) }, error);
    }
  }

  /** CONSUMER_SEND_MSG_BACK of `msg` for `group` (on the wire), the inner producer when that fails. */
  protected sendBack(
    msg: MessageExt,
    delayLevel: number,
    brokerName: string | undefined,
    group: string,
    maxReconsumeTimes: number,
  ): Promise<void> {
    return sendMessageBack(
      {
        instance: this.instance,
        consumerGroup: group,
        unitMode: this.config.unitMode,
        maxReconsumeTimes,
        logger: this.logger,
        signal: this.shutdownController.signal,
      },
      msg,
      withNamespaceOf(this.config, msg.topic),
      delayLevel,
      brokerName,
    );
  }

  // MQConsumerInner

  groupName(): string {
    return this.consumerGroup;
  }

  messageModel(): MessageModel {
    return this.options.messageModel;
  }

  consumeType(): ConsumeType {
    return this.rebalanceAdapter.consumeType();
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

  /** Whether the rebalance service's run rebalances this consumer now. */
  protected rebalances(): boolean {
    return this.state === 'RUNNING';
  }

  /** Whether rebalancing locks the queues it takes (orderly consumption). */
  protected consumesOrderly(): boolean {
    return false;
  }

  async doRebalance(): Promise<void> {
    if (!this.rebalances()) return;
    // A topic without a route yet (the retry topic the broker creates on the first heartbeat) is
    // asked for now rather than at the next route poll, so the group holds its queues at once.
    const missing = [...this.rebalance.subscriptionInner.keys()].filter(
      (t) => !this.rebalance.topicSubscribeInfoTable.has(t),
    );
    await Promise.all(missing.map((t) => this.instance.updateTopicRouteInfoFromNameServer(t)));
    await this.rebalance.doRebalance(this.consumesOrderly());
  }

  /** The queues whose offsets persistConsumerOffset writes. */
  protected abstract offsetQueues(): MessageQueue[];

  async persistConsumerOffset(): Promise<void> {
    const store = this.store;
    if (store === undefined) return;
    try {
      await store.persistAll(this.offsetQueues());
    } catch (error) {
      this.logger.error(
        'persist consumer offset failed',
        {
          group: this.consumerGroup,
          error: errorText(error),
        },
        error,
      );
    }
  }

  abstract resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void>;

  consumerStatus(topic: string | undefined): Array<[MessageQueue, bigint]> {
    return this.store?.cloneOffsetTable(topic) ?? [];
  }

  protected abstract runningInfoParts(): RunningInfoParts;

  /** GET_CONSUMER_RUNNING_INFO: settings, subscriptions, every held queue and the consume stats. */
  consumerRunningInfo(jstackEnable: boolean): Buffer {
    const info: ConsumerRunningInfo = buildConsumerRunningInfo({
      ...this.runningInfoParts(),
      consumerStartTimestamp: this.startTimestamp,
      namesrvAddrList: this.instance.api.namesrv.addresses,
      consumeType: this.consumeType(),
      subscriptions: this.subscriptions(),
      commitOffset: (mq) => this.store?.readOffsetInMemory(mq) ?? -1n,
      consumeStatus: (topic) => this.stats.consumeStatus(this.consumerGroup, topic),
      ...(jstackEnable ? { jstack: '' } : {}),
    });
    return encodeConsumerRunningInfo(info);
  }

  /** CONSUME_MESSAGE_DIRECTLY: only a push consumer has a listener to run. */
  async consumeMessageDirectly(_msg: MessageExt, _brokerName: string | undefined): Promise<Buffer> {
    throw new MQClientError(`a ${this.kind} has no listener to consume a message directly`, undefined, {
      group: this.consumerGroup,
    });
  }

  /** The held queues with their ProcessQueues, for running info. */
  protected heldQueues(): Array<readonly [MessageQueue, ProcessQueue]> {
    return [...this.rebalance.processQueueTable.values()].map(({ mq, pq }) => [mq, pq] as const);
  }
}
