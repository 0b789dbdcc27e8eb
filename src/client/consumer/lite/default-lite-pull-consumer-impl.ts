/**
 * DefaultLitePullConsumerImpl: the application polls. Queues come from rebalance (subscribe) or from
 * the application (assign); one pull task per queue keeps its ProcessQueue filled within the flow
 * thresholds, and every pulled batch waits in the consume-request cache for poll. What poll hands
 * out is the consume offset that commits store; seek moves a queue's next pull.
 */
import { setMaxListeners } from 'node:events';
import type { Clock, TimerHandle } from '../../../common/clock.js';
import { PullSysFlag } from '../../../common/constants.js';
import { ValidationError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { encodeConsumerRunningInfo } from '../../../common/protocol/consumer-running-info.js';
import { ConsumeFromWhere, ConsumeType, type MessageModel } from '../../../common/protocol/heartbeat-data.js';
import { ExpressionType, type SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import {
  type ClientConfig,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../../client-config.js';
import { pullFailureChannel } from '../../diagnostics.js';
import { ClientStateError, errorText, MQBrokerError, MQClientError } from '../../errors.js';
import type { MQConsumerInner } from '../../instance/inner.js';
import type { MQClientInstance, ServiceState } from '../../instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../../instance/mq-client-manager.js';
import { long, NamespacedAdmin } from '../../mq-admin.js';
import type { SubscriptionExpression } from '../default-mq-push-consumer-impl.js';
import { type OffsetStore, ReadOffsetType } from '../offset/offset-store.js';
import type { ProcessQueue } from '../process-queue.js';
import { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import { PullStatus } from '../pull/pull-result.js';
import { AllocateMessageQueueAveragely } from '../rebalance/allocate/averagely.js';
import type { PullFromWhereContext } from '../rebalance/compute-pull-from-where.js';
import { computePullFromWhere } from '../rebalance/compute-pull-from-where.js';
import { RebalanceImpl } from '../rebalance/rebalance-impl.js';
import { RebalanceLitePullAdapter } from '../rebalance/rebalance-lite-pull-adapter.js';
import { buildConsumerRunningInfo } from '../stats/consumer-running-info-builder.js';
import { ConsumerStatsManager } from '../stats/consumer-stats-manager.js';
import { AssignedMessageQueue } from './assigned-message-queue.js';
import { type ConsumeRequest, ConsumeRequestCache } from './consume-request-cache.js';
import {
  type LitePullConsumerOptions,
  type ResolvedLitePullConsumerOptions,
  resolveLitePullConsumerOptions,
} from './lite-pull-consumer-options.js';

/** Upstream's pause before re-pulling after a broker's FLOW_CONTROL answer, ms. */
const PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL = 20;
/** Upstream's delay of the first topic metadata check, ms. */
const FIRST_METADATA_CHECK_DELAY_MS = 10_000;
const FLOW_CONTROL_LOG_EVERY = 1000;

/** Called when the queues of a topic change (upstream TopicMessageQueueChangeListener). */
export type TopicMessageQueueChangeListener = (topic: string, messageQueues: MessageQueue[]) => void;

/** Called with a subscribed topic's queues and those this member holds (upstream MessageQueueListener). */
export type MessageQueueListener = (topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]) => void;

export type OffsetStoreMaker = (
  kind: 'remote' | 'local',
  context: { instance: MQClientInstance; group: string; dir: string | undefined },
) => OffsetStore;

interface PullTask {
  readonly mq: MessageQueue;
  cancelled: boolean;
  timer: TimerHandle | undefined;
  readonly controller: AbortController;
}

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
  private readonly taskTable = new Map<string, PullTask>();
  private readonly topicToSubExpression = new Map<string, string>();
  private readonly changeListeners = new Map<string, TopicMessageQueueChangeListener>();
  private readonly messageQueuesForTopic = new Map<string, string>();
  private readonly queueListeners = new Map<string, MessageQueueListener>();
  private readonly shutdownController = new AbortController();
  private readonly startTimestamp: number;
  private subscriptionType: 'NONE' | 'SUBSCRIBE' | 'ASSIGN' = 'NONE';
  private state: ServiceState = 'CREATE_JUST';
  private clientInstance: MQClientInstance | undefined;
  private store: OffsetStore | undefined;
  private pullAPIWrapper: PullAPIWrapper | undefined;
  private metadataTimer: TimerHandle | undefined;
  private nextAutoCommitDeadline = -1;
  private flowControlTimes = 0;
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
    const pqSettings = { lockMaxLiveTime: 30_000, pullMaxIdleTime: 120_000 };
    this.assigned = new AssignedMessageQueue(this.clock, pqSettings);
    this.cache = new ConsumeRequestCache(this.clock);
    const self = this;
    this.rebalance = new RebalanceImpl(
      {
        consumerGroup: this.consumerGroup,
        messageModel: this.options.messageModel,
        strategy:
          this.options.allocateMessageQueueStrategy ??
          new AllocateMessageQueueAveragely({ logger: this.logger }),
        processQueue: pqSettings,
      },
      {
        get clientId() {
          return self.instance.clientId;
        },
        get api() {
          return self.instance.api;
        },
        findBrokerAddressInSubscribe: (name, id, only) =>
          this.instance.findBrokerAddressInSubscribe(name, id, only),
        findConsumerIdList: (topic, group) => this.instance.findConsumerIdList(topic, group),
      },
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

  private user(mq: MessageQueue): MessageQueue {
    return new MessageQueue(withoutNamespaceOf(this.config, mq.topic), mq.brokerName, mq.queueId);
  }

  private checkQueue(mq: unknown, call: string): MessageQueue {
    if (!(mq instanceof MessageQueue)) throw new ValidationError(`${call}: a MessageQueue is needed`, -1);
    return new MessageQueue(this.wire(mq.topic), mq.brokerName, mq.queueId);
  }

  // Subscriptions

  subscribe(topic: string, expression: SubscriptionExpression = '*', listener?: MessageQueueListener): void {
    if (typeof topic !== 'string' || topic.length === 0)
      throw new ValidationError('Topic can not be null or empty.', -1);
    const [type, text] =
      typeof expression === 'string'
        ? ([ExpressionType.TAG, expression] as const)
        : ([expression?.type, expression?.expression] as const);
    if (type !== 'TAG' && type !== 'SQL92' && type !== 'NAMED') {
      throw new ValidationError(
        `subscribe: expression type must be TAG, SQL92 or NAMED, got ${String(type)}`,
        -1,
      );
    }
    if (typeof text !== 'string') throw new ValidationError('subscribe: expression must be a string', -1);
    this.setSubscriptionType('SUBSCRIBE');
    const wireTopic = this.wire(topic);
    let data: SubscriptionData;
    try {
      data = buildSubscription(wireTopic, text, type, { subVersion: BigInt(this.clock.now()) });
    } catch (error) {
      throw new ValidationError(`subscribe ${topic}: ${errorText(error)}`, -1, { cause: error });
    }
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
    this.removePullTasks((mq) => mq.topic === wireTopic);
    this.assigned.removeTopic(wireTopic);
  }

  assign(queues: readonly MessageQueue[]): void {
    if (!Array.isArray(queues) || queues.length === 0)
      throw new ValidationError('Message queues can not be null or empty.', -1);
    const wire = queues.map((mq) => this.checkQueue(mq, 'assign'));
    this.setSubscriptionType('ASSIGN');
    this.assigned.updateAll(wire);
    if (this.state === 'RUNNING') this.updateAssignPullTask(wire);
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
    const wireTopic = this.wire(topic);
    if (this.changeListeners.has(wireTopic)) this.logger.warn('topic already registered', { topic });
    this.changeListeners.set(wireTopic, listener);
    if (this.state === 'RUNNING') {
      void this.fetchMessageQueues(topic).then(
        (mqs) => this.messageQueuesForTopic.set(wireTopic, queuesKey(mqs)),
        () => undefined,
      );
    }
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
    this.pullAPIWrapper = new PullAPIWrapper(instance, this.consumerGroup, this.logger.child('pull'));
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
    this.scheduleMetadataCheck(FIRST_METADATA_CHECK_DELAY_MS);
    this.state = 'RUNNING';
    this.logger.info('lite pull consumer started', {
      group: this.consumerGroup,
      clientId: instance.clientId,
    });
    if (this.subscriptionType === 'SUBSCRIBE') await this.updateTopicSubscribeInfoWhenSubscriptionChanged();
    if (this.subscriptionType === 'ASSIGN') this.updateAssignPullTask(this.assigned.messageQueues());
    for (const wireTopic of this.changeListeners.keys()) {
      try {
        this.messageQueuesForTopic.set(
          wireTopic,
          queuesKey(await this.fetchMessageQueues(withoutNamespaceOf(this.config, wireTopic))),
        );
      } catch (error) {
        this.logger.warn('fetch message queues failed', { topic: wireTopic, error: errorText(error) });
      }
    }
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
    this.metadataTimer?.cancel();
    this.removePullTasks(() => true);
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
   * their ProcessQueue until `markConsumed`. Batches of dropped queues are skipped.
   */
  async takeRequest(timeoutMs: number): Promise<ConsumeRequest | undefined> {
    this.checkServiceState();
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new ValidationError('Timeout must not be negative', -1);
    if (this.options.autoCommit) this.maybeAutoCommit();
    const deadline = this.clock.now() + timeoutMs;
    for (;;) {
      const request = await this.cache.take(Math.max(0, deadline - this.clock.now()));
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
  async poll(timeoutMs: number = this.options.pollTimeoutMillis): Promise<MessageExt[]> {
    const request = await this.takeRequest(timeoutMs);
    if (request === undefined) return [];
    this.markConsumed(request, request.messages);
    return this.resetTopic(request.messages);
  }

  resetTopic(msgs: MessageExt[]): MessageExt[] {
    if (this.config.namespace !== undefined)
      for (const m of msgs) m.topic = withoutNamespaceOf(this.config, m.topic);
    return msgs;
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
    const old = this.taskTable.get(mq.key);
    if (old !== undefined) this.cancelTask(old);
    this.assigned.setSeekOffset(mq, target);
    this.startPullTask(mq);
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
    return this.assigned.messageQueues().map((mq) => this.user(mq));
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
    const queues: MessageQueue[] = [];
    for (const qd of route.queueDatas) {
      if ((qd.perm & 4) === 0) continue;
      for (let i = 0; i < qd.readQueueNums; i++) queues.push(new MessageQueue(topic, qd.brokerName, i));
    }
    return queues;
  }

  // Pull tasks

  /** Rebalance changed the queues of a topic (subscribe mode). */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    const mine = this.options.messageModel === 'BROADCASTING' ? mqAll : mqDivided;
    this.assigned.updateTopic(topic, mine);
    this.removePullTasks((mq) => mq.topic === topic && !mine.some((m) => m.equals(mq)));
    for (const mq of mine) this.startPullTask(mq);
    const listener = this.queueListeners.get(topic);
    if (listener !== undefined) {
      try {
        listener(
          withoutNamespaceOf(this.config, topic),
          mqAll.map((mq) => this.user(mq)),
          mqDivided.map((mq) => this.user(mq)),
        );
      } catch (error) {
        this.logger.warn('message queue listener failed', { topic, error: errorText(error) });
      }
    }
  }

  private updateAssignPullTask(mqs: readonly MessageQueue[]): void {
    this.removePullTasks((mq) => !mqs.some((m) => m.equals(mq)));
    for (const mq of mqs) this.startPullTask(mq);
  }

  private startPullTask(mq: MessageQueue): void {
    if (this.taskTable.has(mq.key) || this.state === 'SHUTDOWN_ALREADY') return;
    const task: PullTask = { mq, cancelled: false, timer: undefined, controller: new AbortController() };
    this.taskTable.set(mq.key, task);
    this.schedule(task, 0);
  }

  private cancelTask(task: PullTask): void {
    task.cancelled = true;
    task.timer?.cancel();
    task.controller.abort();
    if (this.taskTable.get(task.mq.key) === task) this.taskTable.delete(task.mq.key);
  }

  private removePullTasks(which: (mq: MessageQueue) => boolean): void {
    for (const task of [...this.taskTable.values()]) if (which(task.mq)) this.cancelTask(task);
  }

  private schedule(task: PullTask, delayMs: number): void {
    if (task.cancelled) return;
    task.timer = this.clock.setTimeout(() => {
      task.timer = undefined;
      void this.runPullTask(task);
    }, delayMs);
  }

  private flowControlled(task: PullTask, reason: string): void {
    this.schedule(task, this.options.pullTimeDelayMillsWhenFlowControl);
    if (this.flowControlTimes++ % FLOW_CONTROL_LOG_EVERY === 0) {
      this.logger.warn(`flow control: ${reason}`, {
        group: this.consumerGroup,
        mq: task.mq.toString(),
        flowControlTimes: this.flowControlTimes,
      });
    }
  }

  /** One pull of the task's queue (upstream PullTaskImpl.run), then the next one scheduled. */
  private async runPullTask(task: PullTask): Promise<void> {
    if (task.cancelled || this.state !== 'RUNNING') return;
    const { mq } = task;
    const o = this.options;
    if (this.assigned.isPaused(mq)) {
      this.schedule(task, o.pullTimeDelayMillsWhenPause);
      return;
    }
    const state = this.assigned.get(mq);
    const pq = state?.pq;
    if (state === undefined || pq === undefined || pq.dropped) return;
    if (this.cache.size * o.pullBatchSize > o.pullThresholdForAll)
      return this.flowControlled(task, 'the consume request count exceeds the threshold');
    if (pq.msgCount > o.pullThresholdForQueue)
      return this.flowControlled(task, 'the cached message count exceeds the threshold');
    if (Math.trunc(pq.msgSize / (1024 * 1024)) > o.pullThresholdSizeForQueue)
      return this.flowControlled(task, 'the cached message size exceeds the threshold');
    if (pq.getMaxSpan() > o.consumeMaxSpan)
      return this.flowControlled(task, "the queue's messages span too long");
    let offset: bigint;
    try {
      offset = await this.nextPullOffset(mq);
      if (offset < 0n)
        throw new MQClientError(`no offset to pull ${mq.toString()} from`, undefined, {
          group: this.consumerGroup,
        });
    } catch (error) {
      this.logger.error('failed to get next pull offset', { mq: mq.toString(), error: errorText(error) });
      this.schedule(task, o.pullTimeDelayMillsOnException);
      return;
    }
    if (task.cancelled || pq.dropped) return;
    let delay = 0;
    try {
      const sub =
        this.subscriptionType === 'SUBSCRIBE'
          ? this.rebalance.subscriptionInner.get(mq.topic)
          : buildSubscription(mq.topic, this.topicToSubExpression.get(mq.topic) ?? '*', undefined);
      if (sub === undefined)
        throw new MQClientError(`no subscription of ${mq.topic}`, undefined, { group: this.consumerGroup });
      const wrapper = this.pullAPIWrapper as PullAPIWrapper;
      const begin = this.clock.now();
      const raw = await wrapper.pullKernelImpl({
        mq,
        subExpression: sub.subString,
        expressionType: sub.expressionType,
        subVersion: sub.expressionType === ExpressionType.TAG ? 0n : sub.subVersion,
        offset,
        maxNums: o.pullBatchSize,
        sysFlag: PullSysFlag.buildSysFlag(false, true, true, false, true),
        commitOffset: 0n,
        brokerSuspendMaxTimeMillis: o.brokerSuspendMaxTimeMillis,
        timeoutMillis: o.consumerTimeoutMillisWhenSuspend,
        signal: task.controller.signal,
      });
      const result = wrapper.processPullResult(mq, raw, sub);
      if (task.cancelled || pq.dropped) return;
      this.stats.incPullRT(this.consumerGroup, mq.topic, this.clock.now() - begin);
      if (result.pullStatus === PullStatus.FOUND) {
        const msgs = result.msgFoundList;
        if (msgs.length > 0 && state.seekOffset === -1n) {
          this.stats.incPullTPS(this.consumerGroup, mq.topic, msgs.length);
          pq.putMessage(msgs);
          this.cache.put({ messages: msgs, mq, pq });
        }
      } else if (result.pullStatus === PullStatus.OFFSET_ILLEGAL) {
        this.logger.warn('the pull request offset illegal', {
          mq: mq.toString(),
          nextBeginOffset: result.nextBeginOffset,
        });
      }
      if (state.seekOffset === -1n) this.assigned.updatePullOffset(mq, result.nextBeginOffset, pq);
    } catch (error) {
      if (error instanceof RemotingAbortedError && (task.cancelled || this.shutdownController.signal.aborted))
        return;
      delay =
        error instanceof MQBrokerError && error.responseCode === ResponseCode.FLOW_CONTROL
          ? PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL
          : this.config.pullTimeDelayMillsWhenException;
      this.logger.warn('an error occurred in pull message process', {
        mq: mq.toString(),
        error: errorText(error),
      });
      if (pullFailureChannel.hasSubscribers) {
        pullFailureChannel.publish({
          consumerGroup: this.consumerGroup,
          messageQueue: mq,
          error,
          retryInMs: delay,
        });
      }
    }
    this.schedule(task, delay);
  }

  private async nextPullOffset(mq: MessageQueue): Promise<bigint> {
    const state = this.assigned.get(mq);
    if (state === undefined) return -1n;
    if (state.seekOffset !== -1n) {
      const offset = state.seekOffset;
      state.consumeOffset = offset;
      state.seekOffset = -1n;
      return offset;
    }
    if (state.pullOffset !== -1n) return state.pullOffset;
    return computePullFromWhere(this.pullFromWhereContext(), mq);
  }

  // Topic metadata

  private scheduleMetadataCheck(delayMs: number): void {
    this.metadataTimer = this.clock.setTimeout(() => {
      void this.fetchTopicMessageQueuesAndCompare().finally(() => {
        if (this.state === 'RUNNING')
          this.scheduleMetadataCheck(this.options.topicMetadataCheckIntervalMillis);
      });
    }, delayMs);
  }

  private async fetchTopicMessageQueuesAndCompare(): Promise<void> {
    for (const [wireTopic, listener] of this.changeListeners) {
      try {
        const topic = withoutNamespaceOf(this.config, wireTopic);
        const now = await this.fetchMessageQueues(topic);
        const key = queuesKey(now);
        if (this.messageQueuesForTopic.get(wireTopic) !== key) {
          this.messageQueuesForTopic.set(wireTopic, key);
          listener(topic, now);
        }
      } catch (error) {
        this.logger.warn('topic metadata check failed', { topic: wireTopic, error: errorText(error) });
      }
    }
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
    if (this.rebalance.subscriptionInner.has(topic))
      this.rebalance.topicSubscribeInfoTable.set(topic, [...queues]);
  }

  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return this.rebalance.subscriptionInner.has(topic) && !this.rebalance.topicSubscribeInfoTable.has(topic);
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
      const old = this.taskTable.get(mq.key);
      if (old !== undefined) this.cancelTask(old);
      state.seekOffset = offset;
      this.startPullTask(mq);
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

function queuesKey(mqs: readonly MessageQueue[]): string {
  return mqs
    .map((mq) => mq.key)
    .sort()
    .join('\n');
}
