/**
 * DefaultLitePullConsumerImpl: the application polls. Queues come from rebalance (subscribe) or from
 * the application (assign); one pull task per queue (PullTaskService) keeps its ProcessQueue filled
 * within the flow thresholds, and every pulled batch waits in the consume-request cache for poll.
 * What poll hands out is the consume offset that commits store; seek moves a queue's next pull.
 * Topics' queue changes are watched apart (MessageQueueChangeMonitor).
 */

import { ValidationError } from '../../../common/errors.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { checkTopicArg } from '../../../common/validators.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import {
  queueWithNamespaceOf,
  queueWithoutNamespaceOf,
  resetTopicOf,
  withNamespaceOf,
} from '../../client-config.js';
import { MQClientError } from '../../errors.js';
import { long } from '../../mq-admin.js';
import { ConsumerCore, type OffsetStoreFactory, type RunningInfoParts } from '../consumer-core.js';
import type { MessageQueueListener } from '../message-queue-listener.js';
import { ReadOffsetType } from '../offset/offset-store.js';
import { holdingProcess } from '../process-hold.js';
import { DEFAULT_PROCESS_QUEUE_SETTINGS, type ProcessQueue } from '../process-queue.js';
import type { PullFromWhereContext } from '../rebalance/compute-pull-from-where.js';
import type { RebalanceAdapter } from '../rebalance/rebalance-impl.js';
import { RebalanceLitePullAdapter } from '../rebalance/rebalance-lite-pull-adapter.js';
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

export class DefaultLitePullConsumerImpl extends ConsumerCore<ResolvedLitePullConsumerOptions> {
  private readonly assigned: AssignedMessageQueue;
  private readonly cache: ConsumeRequestCache;
  private readonly pullTasks: PullTaskService;
  private readonly topicToSubExpression = new Map<string, string>();
  private readonly queueChangeMonitor: MessageQueueChangeMonitor;
  private readonly queueListeners = new Map<string, MessageQueueListener>();
  private subscriptionType: 'NONE' | 'SUBSCRIBE' | 'ASSIGN' = 'NONE';
  private nextAutoCommitDeadline = -1;

  constructor(options: LitePullConsumerOptions, offsetStoreFactory: OffsetStoreFactory) {
    super(options, {
      kind: 'LitePullConsumer',
      loggerName: 'lite-pull-consumer',
      resolve: (now) => resolveLitePullConsumerOptions(options, now),
      processQueue: () => DEFAULT_PROCESS_QUEUE_SETTINGS,
      offsetStoreFactory,
      statsFactory: (clock) => new ConsumerStatsManager(clock),
    });
    this.assigned = new AssignedMessageQueue(this.clock, DEFAULT_PROCESS_QUEUE_SETTINGS);
    this.cache = new ConsumeRequestCache(this.clock);
    this.pullTasks = new PullTaskService(
      this,
      { assigned: this.assigned, cache: this.cache, stats: this.stats },
      this.shutdownController.signal,
    );
    this.queueChangeMonitor = new MessageQueueChangeMonitor(this);
  }

  protected createRebalanceAdapter(): RebalanceAdapter {
    return new RebalanceLitePullAdapter(this);
  }

  /** Where a queue without a pull offset starts: memory first (a commit not yet persisted), then the store. */
  pullFromWhereContext(): PullFromWhereContext {
    return {
      consumeFromWhere: this.options.consumeFromWhere,
      consumeTimestamp: this.options.consumeTimestamp,
      offsetStore: this.offsetStore,
      admin: this.admin,
      logger: this.logger,
      callOptions: () => this.apiCallOptions(),
      readOffsetType: ReadOffsetType.MEMORY_FIRST_THEN_STORE,
    };
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
    checkTopicArg(`${call}: mq.topic`, mq.topic);
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
      throw this.stateError('setSubExpressionForAssign only can be called before start');
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

  protected override async onRunning(): Promise<void> {
    this.queueChangeMonitor.start();
    if (this.subscriptionType === 'ASSIGN')
      this.pullTasks.updateAssignPullTask(this.assigned.messageQueues());
    await this.queueChangeMonitor.fetchRegisteredTopics();
  }

  /** Assigned queues are not shared: only a subscribing member joins the group at once. */
  protected override joinsGroupAtStart(): boolean {
    return this.subscriptionType === 'SUBSCRIBE';
  }

  /** Commits what poll handed out (with auto-commit), stops pulling and wakes waiting polls. */
  protected override stopServices(wasRunning: boolean): void {
    if (wasRunning && this.options.autoCommit) this.commitAll();
    this.queueChangeMonitor.shutdown();
    this.pullTasks.removePullTasks(() => true);
    this.cache.wakeAll();
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
    this.makeSureStateOK();
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new ValidationError('Timeout must not be negative', -1);
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new ValidationError('signal must be an AbortSignal', -1);
    if (this.options.autoCommit) this.maybeAutoCommit();
    // The application awaits this poll: the process lives until it ends, though the timers it waits
    // on (and the pull tasks' delays) do not hold it.
    return holdingProcess(this.nextLiveRequest(this.clock.now() + timeoutMs, signal));
  }

  private async nextLiveRequest(deadline: number, signal?: AbortSignal): Promise<ConsumeRequest | undefined> {
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
    this.makeSureStateOK();
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
    const callOptions = this.apiCallOptions();
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
    this.makeSureStateOK();
    await this.seek(
      queue,
      await this.instance.admin.minOffset(this.checkQueue(queue, 'seekToBegin'), this.apiCallOptions()),
    );
  }

  async seekToEnd(queue: MessageQueue): Promise<void> {
    this.makeSureStateOK();
    await this.seek(
      queue,
      await this.instance.admin.maxOffset(this.checkQueue(queue, 'seekToEnd'), this.apiCallOptions()),
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
    this.makeSureStateOK();
    this.commitAll();
    await this.offsetStore.persistAll(this.assigned.messageQueues());
  }

  /** Commits the given offsets (of assigned queues), persisted now unless `persist` is false. */
  async commit(
    offsets: ReadonlyArray<readonly [MessageQueue, bigint | number]>,
    persist = true,
  ): Promise<void> {
    this.makeSureStateOK();
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
    this.makeSureStateOK();
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
    this.makeSureStateOK();
    return this.routeQueues(topic);
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
    this.tellQueueListener(this.queueListeners.get(topic), topic, mqAll, mqDivided);
  }

  /** The subscription a pull of `topic` carries: the group's (subscribe), or the tag expression set (assign). */
  subscriptionForPull(topic: string): SubscriptionData | undefined {
    return this.subscriptionType === 'SUBSCRIBE'
      ? this.rebalance.subscriptionInner.get(topic)
      : buildSubscription(topic, this.topicToSubExpression.get(topic) ?? '*', undefined);
  }

  // MQConsumerInner

  protected override rebalances(): boolean {
    return this.state === 'RUNNING' && this.subscriptionType === 'SUBSCRIBE';
  }

  protected offsetQueues(): MessageQueue[] {
    return this.subscriptionType === 'SUBSCRIBE'
      ? [...this.rebalance.processQueueTable.values()].map((h) => h.mq)
      : this.assigned.messageQueues();
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

  protected runningInfoParts(): RunningInfoParts {
    const o = this.options;
    return {
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
      processQueueTable: this.assigned
        .messageQueues()
        .map((mq) => [mq, (this.assigned.get(mq) as { pq: ProcessQueue }).pq] as const),
    };
  }
}
