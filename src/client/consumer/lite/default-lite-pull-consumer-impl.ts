/**
 * DefaultLitePullConsumerImpl: the application polls. Queues come from rebalance (subscribe) or from
 * the application (assign); one pull task per queue (PullTaskService) keeps its ProcessQueue filled
 * within the flow thresholds, and every pulled batch waits in the consume-request cache for poll.
 * What poll hands out is the consume offset that commits store; seek moves a queue's next pull.
 * Topics' queue changes are watched apart (MessageQueueChangeMonitor).
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../../../common/clock.js';
import { ValidationError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { encodeConsumerRunningInfo } from '../../../common/protocol/consumer-running-info.js';
import { ConsumeFromWhere, ConsumeType, type MessageModel } from '../../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
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
import { type OffsetStore, ReadOffsetType } from '../offset/offset-store.js';
import { DEFAULT_PROCESS_QUEUE_SETTINGS, type ProcessQueue } from '../process-queue.js';
import { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import { AllocateMessageQueueAveragely } from '../rebalance/allocate/averagely.js';
import type { PullFromWhereContext } from '../rebalance/compute-pull-from-where.js';
import { RebalanceImpl, rebalanceHostOf } from '../rebalance/rebalance-impl.js';
import { RebalanceLitePullAdapter } from '../rebalance/rebalance-lite-pull-adapter.js';
import { buildConsumerRunningInfo } from '../stats/consumer-running-info-builder.js';
import { ConsumerStatsManager } from '../stats/consumer-stats-manager.js';
import {
  buildSubscriptionData,
  checkSubscriptionExpression,
  type SubscriptionExpression,
} from '../subscription-expression.js';
import { AssignedMessageQueue } from './assigned-message-queue.js';
import { type ConsumeRequest, ConsumeRequestCache } from './consume-request-cache.js';
import {
  type LitePullConsumerOptions,
  type ResolvedLitePullConsumerOptions,
  resolveLitePullConsumerOptions,
} from './lite-pull-consumer-options.js';
import {
  MessageQueueChangeMonitor,
  type TopicMessageQueueChangeListener,
} from './message-queue-change-monitor.js';
import { PullTaskService } from './pull-task-service.js';

/** Called with a subscribed topic's queues and those this member holds (upstream MessageQueueListener). */
export type MessageQueueListener = (topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]) => void;

export type OffsetStoreMaker = (
  kind: 'remote' | 'local',
  context: { instance: MQClientInstance; group: string; dir: string | undefined },
) => OffsetStore;

export class DefaultLitePullConsumerImpl implements MQConsumerInner {
  readonly options: ResolvedLitePullConsumerOptions;
  readonly consumerGroup: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly queries: NamespacedAdmin;
  readonly rebalance: RebalanceImpl;
  private readonly config: ClientConfig;
  private readonly storeMaker: OffsetStoreMaker;
  private readonly stats: ConsumerStatsManager;
  private readonly assigned: AssignedMessageQueue;
  private readonly cache: ConsumeRequestCache;
  private readonly pullTasks: PullTaskService;
  private readonly topicToSubExpression = new Map<string, string>();
  private readonly queueChangeMonitor: MessageQueueChangeMonitor;
  private readonly queueListeners = new Map<string, MessageQueueListener>();
  private readonly shutdownController = new AbortController();
  private readonly startTimestamp: number;
  private subscriptionType: 'NONE' | 'SUBSCRIBE' | 'ASSIGN' = 'NONE';
  private state: ServiceState = 'CREATE_JUST';
  private clientInstance: MQClientInstance | undefined;
  private store: OffsetStore | undefined;
  private pullWrapper: PullAPIWrapper | undefined;
  private nextAutoCommitDeadline = -1;
  private stopping: Promise<void> | undefined;

  constructor(options: LitePullConsumerOptions, storeMaker: OffsetStoreMaker) {
    this.config = resolveClientConfig(options, options.messageModel !== 'BROADCASTING');
    this.clock = this.config.clock;
    this.startTimestamp = this.clock.now();
    this.options = resolveLitePullConsumerOptions(options, this.clock.now());
    this.consumerGroup = withNamespaceOf(this.config, this.options.consumerGroup);
    this.logger = this.config.logger.child('lite-pull-consumer');
    this.storeMaker = storeMaker;
    this.stats = new ConsumerStatsManager(this.clock);
    setMaxListeners(0, this.shutdownController.signal);
    this.assigned = new AssignedMessageQueue(this.clock, DEFAULT_PROCESS_QUEUE_SETTINGS);
    this.cache = new ConsumeRequestCache(this.clock);
    this.pullTasks = new PullTaskService(
      this,
      { assigned: this.assigned, cache: this.cache, stats: this.stats },
      this.shutdownController.signal,
    );
    this.queueChangeMonitor = new MessageQueueChangeMonitor(this);
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
      new RebalanceLitePullAdapter(this),
      this.clock,
      this.logger.child('rebalance'),
    );
    this.queries = new NamespacedAdmin(this.config, () => {
      this.checkServiceState();
      return this.instance.admin;
    });
  }

  get instance(): MQClientInstance {
    if (this.clientInstance === undefined)
      throw new ClientStateError('LitePullConsumer', this.state, { group: this.consumerGroup });
    return this.clientInstance;
  }

  get offsetStore(): OffsetStore {
    if (this.store === undefined)
      throw new ClientStateError('LitePullConsumer', this.state, { group: this.consumerGroup });
    return this.store;
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  get clientConfig(): ClientConfig {
    return this.config;
  }

  get pullAPIWrapper(): PullAPIWrapper | undefined {
    return this.pullWrapper;
  }

  pullFromWhereContext(): PullFromWhereContext {
    return {
      consumeFromWhere: this.options.consumeFromWhere,
      consumeTimestamp: this.options.consumeTimestamp,
      offsetStore: this.offsetStore,
      admin: this.instance.admin,
      logger: this.logger,
      callOptions: () => this.instance.apiCallOptions(this.shutdownController.signal),
      readOffsetType: ReadOffsetType.MEMORY_FIRST_THEN_STORE,
    };
  }

  /** Throws a ClientStateError unless the consumer is running. */
  checkServiceState(): void {
    if (this.state !== 'RUNNING') {
      throw new ClientStateError(
        'LitePullConsumer',
        `${this.state}, the consumer not running, please start it first`,
        {
          group: this.consumerGroup,
        },
      );
    }
  }

  private setSubscriptionType(type: 'SUBSCRIBE' | 'ASSIGN'): void {
    if (this.subscriptionType === 'NONE') this.subscriptionType = type;
    else if (this.subscriptionType !== type) {
      throw new MQClientError('Subscribe and assign are mutually exclusive.', undefined, {
        group: this.consumerGroup,
      });
    }
  }

  private wire(topic: string): string {
    return withNamespaceOf(this.config, topic);
  }

  private checkQueue(mq: unknown, call: string): MessageQueue {
    if (!(mq instanceof MessageQueue)) throw new ValidationError(`${call}: a MessageQueue is needed`, -1);
    return queueWithNamespaceOf(this.config, mq);
  }

  // Subscriptions

  subscribe(topic: string, expression: SubscriptionExpression = '*', listener?: MessageQueueListener): void {
    if (typeof topic !== 'string' || topic.length === 0)
      throw new ValidationError('Topic can not be null or empty.', -1);
    const checked = checkSubscriptionExpression('subscribe', expression);
    // As upstream, the mode is taken before the expression is parsed.
    this.setSubscriptionType('SUBSCRIBE');
    const wireTopic = this.wire(topic);
    const data = buildSubscriptionData('subscribe', topic, wireTopic, checked, BigInt(this.clock.now()));
    this.rebalance.subscriptionInner.set(wireTopic, data);
    if (listener !== undefined) this.queueListeners.set(wireTopic, listener);
    this.assigned.processQueueOf = (mq) => this.rebalance.processQueueOf(mq);
    if (this.state === 'RUNNING') {
      void this.instance.sendHeartbeatToAllBrokerWithLock();
      void this.updateTopicSubscribeInfoWhenSubscriptionChanged();
    }
  }

  unsubscribe(topic: string): void {
    const wireTopic = this.wire(topic);
    this.rebalance.subscriptionInner.delete(wireTopic);
    this.queueListeners.delete(wireTopic);
    this.pullTasks.removePullTasks((mq) => mq.topic === wireTopic);
    this.assigned.removeTopic(wireTopic);
  }

  assign(queues: readonly MessageQueue[]): void {
    if (!Array.isArray(queues) || queues.length === 0)
      throw new ValidationError('Message queues can not be null or empty.', -1);
    const wire = queues.map((mq) => this.checkQueue(mq, 'assign'));
    this.setSubscriptionType('ASSIGN');
    this.assigned.updateAll(wire);
    if (this.state === 'RUNNING') this.pullTasks.updateAssignPullTask(wire);
  }

  /** Assign mode: the tag expression pulls of `topic` use [*]; only before start. */
  setSubExpressionForAssign(topic: string, expression: string): void {
    if (typeof expression !== 'string' || expression.trim().length === 0) {
      throw new ValidationError('subExpression can not be null or empty.', -1);
    }
    if (this.state !== 'CREATE_JUST')
      throw new ClientStateError(
        'LitePullConsumer',
        'setSubExpressionForAssign only can be called before start',
      );
    this.setSubscriptionType('ASSIGN');
    this.topicToSubExpression.set(this.wire(topic), expression);
  }

  registerTopicMessageQueueChangeListener(topic: string, listener: TopicMessageQueueChangeListener): void {
    if (typeof topic !== 'string' || topic.length === 0 || typeof listener !== 'function') {
      throw new ValidationError('Topic or listener is null', -1);
    }
    this.queueChangeMonitor.registerListener(topic, listener);
  }

  // Lifecycle

  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') {
      throw new ClientStateError('LitePullConsumer', `${this.state}, maybe started once`, {
        group: this.consumerGroup,
      });
    }
    this.state = 'START_FAILED';
    const instance = getOrCreateMQClientInstance(this.config);
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
    this.clientInstance = instance;
    this.pullWrapper = new PullAPIWrapper(instance, this.consumerGroup, this.logger.child('pull'));
    this.store = this.storeMaker(this.options.messageModel === 'BROADCASTING' ? 'local' : 'remote', {
      instance,
      group: this.consumerGroup,
      dir: this.options.localOffsetStoreDir,
    });
    try {
      await this.store.load();
    } catch (error) {
      await instance.unregisterConsumer(this.consumerGroup);
      await instance.shutdown();
      throw error;
    }
    instance.start();
    this.stats.start();
    this.queueChangeMonitor.start();
    this.state = 'RUNNING';
    this.logger.info('lite pull consumer started', {
      group: this.consumerGroup,
      clientId: instance.clientId,
    });
    if (this.subscriptionType === 'SUBSCRIBE') await this.updateTopicSubscribeInfoWhenSubscriptionChanged();
    if (this.subscriptionType === 'ASSIGN')
      this.pullTasks.updateAssignPullTask(this.assigned.messageQueues());
    await this.queueChangeMonitor.fetchRegisteredTopics();
    try {
      await instance.checkClientInBroker(this);
    } catch (error) {
      await this.shutdown();
      throw error;
    }
    if (this.subscriptionType === 'SUBSCRIBE') {
      await instance.sendHeartbeatToAllBrokerWithLock();
      instance.rebalanceImmediately();
    }
  }

  /** Commits what poll handed out (with auto-commit), persists offsets, stops pulling, leaves the group. */
  shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const wasRunning = this.state === 'RUNNING';
    if (wasRunning && this.options.autoCommit) this.commitAll();
    this.state = 'SHUTDOWN_ALREADY';
    this.shutdownController.abort(
      new ClientStateError('LitePullConsumer', 'SHUTDOWN_ALREADY', { group: this.consumerGroup }),
    );
    this.queueChangeMonitor.shutdown();
    this.pullTasks.removePullTasks(() => true);
    this.cache.wakeAll();
    const instance = this.clientInstance;
    if (instance === undefined) return;
    if (wasRunning) await this.persistConsumerOffset();
    this.stats.shutdown();
    await instance.unregisterConsumer(this.consumerGroup);
    await instance.shutdown();
    this.rebalance.destroy();
    if (wasRunning) this.logger.info('lite pull consumer shut down', { group: this.consumerGroup });
  }

  private async updateTopicSubscribeInfoWhenSubscriptionChanged(): Promise<void> {
    await Promise.all(
      [...this.rebalance.subscriptionInner.keys()].map((t) =>
        this.instance.updateTopicRouteInfoFromNameServer(t),
      ),
    );
  }

  // Polling

  private maybeAutoCommit(): void {
    const now = this.clock.now();
    if (now >= this.nextAutoCommitDeadline) {
      this.commitAll();
      this.nextAutoCommitDeadline = now + this.options.autoCommitIntervalMillis;
    }
  }

  /**
   * The next pulled batch not yet handed out, waiting up to `timeoutMs`; its messages still count in
   * their ProcessQueue until `markConsumed`. Batches of dropped queues are skipped. An aborted
   * `signal` rejects with its reason.
   */
  async takeRequest(timeoutMs: number, signal?: AbortSignal): Promise<ConsumeRequest | undefined> {
    this.checkServiceState();
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new ValidationError('Timeout must not be negative', -1);
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new ValidationError('signal must be an AbortSignal', -1);
    if (this.options.autoCommit) this.maybeAutoCommit();
    const deadline = this.clock.now() + timeoutMs;
    for (;;) {
      const request = await this.cache.take(Math.max(0, deadline - this.clock.now()), signal);
      if (request === undefined) return undefined;
      if (!request.pq.dropped) return request;
      if (this.clock.now() >= deadline) return undefined;
    }
  }

  /** `msgs` of `request` are consumed: the queue's consume offset moves past them. */
  markConsumed(request: ConsumeRequest, msgs: readonly MessageExt[]): void {
    // A seek while the loop held them: the queue's cache now holds the new pulls at those offsets.
    const held = msgs.filter((msg) => this.holds(request, msg));
    if (held.length === 0) return;
    const offset = request.pq.removeMessage(held);
    if (offset >= 0) this.assigned.updateConsumeOffset(request.mq, BigInt(offset));
  }

  /** Whether `msg` of `request` still waits in its ProcessQueue: no seek or rebalance dropped it since. */
  holds(request: ConsumeRequest, msg: MessageExt): boolean {
    return !request.pq.dropped && request.pq.msgTreeMap.get(Number(msg.queueOffset)) === msg;
  }

  /** Gives back what a stopped iteration did not pass (and a seek did not drop); the next poll returns it first. */
  giveBack(request: ConsumeRequest, rest: MessageExt[]): void {
    const live = rest.filter((msg) => this.holds(request, msg));
    if (live.length === 0) return;
    this.cache.putFirst({ messages: live, mq: request.mq, pq: request.pq });
  }

  /** upstream poll: the next batch, counted as consumed (its offset committed by auto-commit or commit). */
  async poll(
    timeoutMs: number = this.options.pollTimeoutMillis,
    signal?: AbortSignal,
  ): Promise<MessageExt[]> {
    const request = await this.takeRequest(timeoutMs, signal);
    if (request === undefined) return [];
    this.markConsumed(request, request.messages);
    return this.resetTopic(request.messages);
  }

  resetTopic(msgs: MessageExt[]): MessageExt[] {
    return resetTopicOf(this.config, msgs);
  }

  pause(queues: readonly MessageQueue[]): void {
    this.assigned.pause(this.checkQueues(queues, 'pause'));
  }

  resume(queues: readonly MessageQueue[]): void {
    this.assigned.resume(this.checkQueues(queues, 'resume'));
  }

  private checkQueues(queues: unknown, call: string): MessageQueue[] {
    if (!Array.isArray(queues)) throw new ValidationError(`${call}: a list of MessageQueues is needed`, -1);
    return queues.map((mq: unknown) => this.checkQueue(mq, call));
  }

  /** The next pulls of `mq` start at `offset` (within [minOffset, maxOffset]); what was cached is dropped. */
  async seek(queue: MessageQueue, offset: bigint | number): Promise<void> {
    this.checkServiceState();
    const mq = this.checkQueue(queue, 'seek');
    const target = long('seek offset', offset);
    if (!this.assigned.has(mq)) {
      const more = this.subscriptionType === 'SUBSCRIBE' ? ', may be rebalancing' : '';
      throw new MQClientError(
        `The message queue is not in assigned list${more}, message queue: ${queue.toString()}`,
        undefined,
        {
          topic: queue.topic,
          group: this.consumerGroup,
        },
      );
    }
    const callOptions = this.instance.apiCallOptions(this.shutdownController.signal);
    const [min, max] = await Promise.all([
      this.instance.admin.minOffset(mq, callOptions),
      this.instance.admin.maxOffset(mq, callOptions),
    ]);
    if (target < min || target > max) {
      throw new MQClientError(
        `Seek offset illegal, seek offset = ${target}, min offset = ${min}, max offset = ${max}, message queue: ${queue.toString()}`,
        undefined,
        {
          topic: queue.topic,
          group: this.consumerGroup,
        },
      );
    }
    const state = this.assigned.get(mq);
    if (state === undefined) return;
    state.pq.clear();
    this.cache.removeQueue(mq);
    this.pullTasks.cancelPullTask(mq);
    this.assigned.setSeekOffset(mq, target);
    this.pullTasks.startPullTask(mq);
  }

  async seekToBegin(queue: MessageQueue): Promise<void> {
    this.checkServiceState();
    await this.seek(
      queue,
      await this.instance.admin.minOffset(
        this.checkQueue(queue, 'seekToBegin'),
        this.instance.apiCallOptions(),
      ),
    );
  }

  async seekToEnd(queue: MessageQueue): Promise<void> {
    this.checkServiceState();
    await this.seek(
      queue,
      await this.instance.admin.maxOffset(
        this.checkQueue(queue, 'seekToEnd'),
        this.instance.apiCallOptions(),
      ),
    );
  }

  // Commits

  /** Every assigned queue's consume offset into the offset store (persisted on its schedule). */
  commitAll(): void {
    for (const mq of this.assigned.messageQueues()) this.commitQueue(mq);
  }

  private commitQueue(mq: MessageQueue): void {
    const state = this.assigned.get(mq);
    if (state === undefined) return;
    if (state.consumeOffset === -1n) return;
    if (!state.pq.dropped) this.offsetStore.updateOffset(mq, state.consumeOffset, false);
  }

  /** commitSync: commits what poll handed out and persists it now. */
  async commitSync(): Promise<void> {
    this.checkServiceState();
    this.commitAll();
    await this.offsetStore.persistAll(this.assigned.messageQueues());
  }

  /** Commits the given offsets (of assigned queues), persisted now unless `persist` is false. */
  async commit(
    offsets: ReadonlyArray<readonly [MessageQueue, bigint | number]>,
    persist = true,
  ): Promise<void> {
    this.checkServiceState();
    if (!Array.isArray(offsets) || offsets.length === 0) {
      this.logger.warn('MessageQueues is empty, Ignore this commit');
      return;
    }
    const queues: MessageQueue[] = [];
    for (const [queue, offset] of offsets) {
      const mq = this.checkQueue(queue, 'commit');
      const value = long('commit offset', offset);
      if (value === -1n) {
        this.logger.error('consumerOffset is -1 in messageQueue', { mq: queue.toString() });
        continue;
      }
      const state = this.assigned.get(mq);
      if (state !== undefined && !state.pq.dropped) this.offsetStore.updateOffset(mq, value, false);
      queues.push(mq);
    }
    // Each queue on its own: persistAll would forget the offsets of the queues not listed.
    if (persist) await Promise.all(queues.map((mq) => this.offsetStore.persist(mq)));
  }

  /** The group's committed offset of `mq` (memory first, then the store). */
  async committed(queue: MessageQueue): Promise<bigint> {
    this.checkServiceState();
    const offset = await this.offsetStore.readOffset(
      this.checkQueue(queue, 'committed'),
      ReadOffsetType.MEMORY_FIRST_THEN_STORE,
    );
    if (offset === -2n)
      throw new MQClientError('Fetch consume offset from broker exception', undefined, {
        group: this.consumerGroup,
      });
    return offset;
  }

  assignment(): MessageQueue[] {
    return this.assigned.messageQueues().map((mq) => queueWithoutNamespaceOf(this.config, mq));
  }

  /** The topic's readable queues, as the name servers route them. */
  async fetchMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.checkServiceState();
    const wireTopic = this.wire(topic);
    await this.instance.updateTopicRouteInfoFromNameServer(wireTopic);
    const route = this.instance.topicRouteTable.get(wireTopic);
    if (route === undefined) {
      throw new MQClientError(
        `Can not find Message Queue for this topic, ${topic}`,
        ResponseCode.TOPIC_NOT_EXIST,
        { topic },
      );
    }
    return topicRouteData2TopicSubscribeInfo(topic, route);
  }

  // What rebalancing and the pull tasks ask

  /** Rebalance changed the queues of a topic (subscribe mode). */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    const mine = this.options.messageModel === 'BROADCASTING' ? mqAll : mqDivided;
    this.assigned.updateTopic(topic, mine);
    this.pullTasks.updatePullTask(topic, mine);
    const listener = this.queueListeners.get(topic);
    if (listener !== undefined) {
      try {
        listener(
          withoutNamespaceOf(this.config, topic),
          mqAll.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
          mqDivided.map((mq) => queueWithoutNamespaceOf(this.config, mq)),
        );
      } catch (error) {
        this.logger.warn('message queue listener failed', { topic, error: errorText(error) });
      }
    }
  }

  /** The subscription a pull of `topic` carries: the group's (subscribe), or the tag expression set (assign). */
  subscriptionForPull(topic: string): SubscriptionData | undefined {
    return this.subscriptionType === 'SUBSCRIBE'
      ? this.rebalance.subscriptionInner.get(topic)
      : buildSubscription(topic, this.topicToSubExpression.get(topic) ?? '*', undefined);
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
    if (this.state !== 'RUNNING' || this.subscriptionType !== 'SUBSCRIBE') return;
    const missing = [...this.rebalance.subscriptionInner.keys()].filter(
      (t) => !this.rebalance.topicSubscribeInfoTable.has(t),
    );
    await Promise.all(missing.map((t) => this.instance.updateTopicRouteInfoFromNameServer(t)));
    await this.rebalance.doRebalance(false);
  }

  async persistConsumerOffset(): Promise<void> {
    if (this.store === undefined) return;
    const mqs =
      this.subscriptionType === 'SUBSCRIBE'
        ? [...this.rebalance.processQueueTable.values()].map((h) => h.mq)
        : this.assigned.messageQueues();
    try {
      await this.store.persistAll(mqs);
    } catch (error) {
      this.logger.error('persist consumer offset failed', {
        group: this.consumerGroup,
        error: errorText(error),
      });
    }
  }

  /** RESET_CONSUMER_CLIENT_OFFSET: each assigned queue of `topic` is sought to its new offset. */
  async resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void> {
    for (const [mq, offset] of offsets) {
      if (mq.topic !== topic || !this.assigned.has(mq)) continue;
      this.offsetStore.updateOffset(mq, offset, false);
      const state = this.assigned.get(mq);
      if (state === undefined) continue;
      state.pq.clear();
      this.cache.removeQueue(mq);
      this.pullTasks.cancelPullTask(mq);
      state.seekOffset = offset;
      this.pullTasks.startPullTask(mq);
    }
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
          messageModel: o.messageModel,
          autoCommit: o.autoCommit,
          autoCommitIntervalMillis: o.autoCommitIntervalMillis,
          pullBatchSize: o.pullBatchSize,
          pullThresholdForAll: o.pullThresholdForAll,
          consumeMaxSpan: o.consumeMaxSpan,
          pullThresholdForQueue: o.pullThresholdForQueue,
          pullThresholdSizeForQueue: o.pullThresholdSizeForQueue,
          pollTimeoutMillis: o.pollTimeoutMillis,
          topicMetadataCheckIntervalMillis: o.topicMetadataCheckIntervalMillis,
          consumeFromWhere: o.consumeFromWhere,
        },
        consumeOrderly: false,
        threadPoolCoreSize: 0,
        consumerStartTimestamp: this.startTimestamp,
        namesrvAddrList: this.instance.api.namesrv.addresses,
        consumeType: ConsumeType.CONSUME_ACTIVELY,
        subscriptions: this.subscriptions(),
        processQueueTable: this.assigned
          .messageQueues()
          .map((mq) => [mq, (this.assigned.get(mq) as { pq: ProcessQueue }).pq] as const),
        commitOffset: (mq) => this.store?.readOffsetInMemory(mq) ?? -1n,
        consumeStatus: (topic) => this.stats.consumeStatus(this.consumerGroup, topic),
        ...(jstackEnable ? { jstack: '' } : {}),
      }),
    );
  }

  async consumeMessageDirectly(): Promise<Buffer> {
    throw new MQClientError('a lite pull consumer has no listener to consume a message directly', undefined, {
      group: this.consumerGroup,
    });
  }
}
