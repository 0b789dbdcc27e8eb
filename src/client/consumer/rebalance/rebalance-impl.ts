/**
 * RebalanceImpl: one engine for every consumer kind. For each subscribed topic it asks the group's
 * members and the topic's queues, sorts both as Java does, applies the allocation strategy and
 * brings the ProcessQueue table to the result: dropped queues are persisted and (orderly) unlocked,
 * new ones get a ProcessQueue, their start offset and a PullRequest. What differs between the push,
 * pull and lite pull consumers is a small adapter (RebalanceAdapter).
 */
import type { Clock } from '../../../common/clock.js';
import { MixAll } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import { javaStringCompare } from '../../../common/message/java-lang.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { buildPopRetryTopic } from '../../../common/pop/key-builder.js';
import { ConsumeType, MessageModel } from '../../../common/protocol/heartbeat-data.js';
import { MessageRequestMode } from '../../../common/protocol/message-request-mode.js';
import type { MessageQueueAssignment } from '../../../common/protocol/query-assignment-body.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { build as buildSubscription } from '../../../filter/filter-api.js';
import { rebalanceChannel } from '../../diagnostics.js';
import { errorText } from '../../errors.js';
import type { CallOptions, MQClientAPI } from '../../instance/mq-client-api.js';
import type { FindBrokerResult, MQClientInstance } from '../../instance/mq-client-instance.js';
import {
  buildLockBatchMQRequest,
  buildUnlockBatchMQRequest,
  parseLockBatchMQResponse,
  parseUnlockBatchMQResponse,
} from '../../instance/requests/lock-batch-mq.js';
import {
  buildQueryAssignmentRequest,
  parseQueryAssignmentResponse,
} from '../../instance/requests/query-assignment.js';
import { PopProcessQueue } from '../pop/pop-process-queue.js';
import { type ConsumeInitMode, PopRequest } from '../pop/pop-request.js';
import { ProcessQueue, type ProcessQueueSettings } from '../process-queue.js';
import { PullRequest } from '../pull/pull-request.js';
import type { AllocateMessageQueueStrategy } from './allocate/allocate-message-queue-strategy.js';

const MASTER_ID = 0;
/** Upstream's timeout of LOCK_BATCH_MQ and UNLOCK_BATCH_MQ, ms. */
export const LOCK_TIMEOUT_MS = 1000;
/** Upstream RebalanceImpl.QUERY_ASSIGNMENT_TIMEOUT, ms. */
export const QUERY_ASSIGNMENT_TIMEOUT_MS = 3000;

/** What rebalancing needs of the client instance. */
export interface RebalanceHost {
  readonly clientId: string;
  readonly api: MQClientAPI;
  findBrokerAddressInSubscribe(
    brokerName: string,
    brokerId: number,
    onlyThisBroker: boolean,
  ): FindBrokerResult | undefined;
  findConsumerIdList(topic: string, group: string): Promise<string[] | undefined>;
  /** A broker of the topic's route (asking the name servers when none is known); undefined when none. */
  findBrokerAddrByTopic(topic: string): Promise<string | undefined>;
}

/**
 * The RebalanceHost of a consumer's client instance. `instance` is asked on every use: the consumer
 * has its instance only from start on, and its getter says which consumer was not started.
 */
export function rebalanceHostOf(instance: () => MQClientInstance): RebalanceHost {
  return {
    get clientId() {
      return instance().clientId;
    },
    get api() {
      return instance().api;
    },
    findBrokerAddressInSubscribe: (name, id, only) => instance().findBrokerAddressInSubscribe(name, id, only),
    findConsumerIdList: (topic, group) => instance().findConsumerIdList(topic, group),
    findBrokerAddrByTopic: async (topic) => {
      const i = instance();
      let addr = i.findBrokerAddrByTopic(topic);
      if (addr === undefined) {
        await i.updateTopicRouteInfoFromNameServer(topic);
        addr = i.findBrokerAddrByTopic(topic);
      }
      return addr;
    },
  };
}

/** What differs between the consumer kinds (upstream's abstract methods of RebalanceImpl). */
export interface RebalanceAdapter {
  consumeType(): ConsumeType;
  /** The queues of `topic` held by this member changed (mqAll: the topic's, mqDivided: ours). */
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void;
  /** A queue leaves: persist its offset, unlock it (orderly); false keeps it for the next rebalance. */
  removeUnnecessaryMessageQueue(mq: MessageQueue, pq: ProcessQueue): Promise<boolean>;
  /** Forgets an offset left in memory by an earlier owner of the queue. */
  removeDirtyOffset(mq: MessageQueue): void;
  /** The offset a new queue starts at (stored offset, or consume-from-where); throws when unknown. */
  computePullFromWhere(mq: MessageQueue): Promise<bigint>;
  dispatchPullRequest(requests: readonly PullRequest[]): void;
  /**
   * false: the broker assigns this topic's queues (QUERY_ASSIGNMENT), as upstream's
   * RebalanceImpl.clientRebalance; absent = true (client-side allocation).
   */
  clientRebalance?(topic: string): boolean;
  /** Queues assigned in POP mode start popping (upstream dispatchPopPullRequest). */
  dispatchPopRequest?(requests: readonly PopRequest[]): void;
  /** Where a group without progress starts popping (upstream getConsumeInitMode). */
  consumeInitMode?(): ConsumeInitMode;
}

export interface RebalanceSettings {
  readonly consumerGroup: string;
  readonly messageModel: MessageModel;
  readonly strategy: AllocateMessageQueueStrategy;
  readonly processQueue: ProcessQueueSettings;
}

export interface HeldQueue {
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue;
}

export class RebalanceImpl {
  /** mq.key -> the queue held and its ProcessQueue. */
  readonly processQueueTable = new Map<string, HeldQueue>();
  /** mq.key -> a queue popped (assigned by the broker in POP mode) and its PopProcessQueue. */
  readonly popProcessQueueTable = new Map<
    string,
    { readonly mq: MessageQueue; readonly pq: PopProcessQueue }
  >();
  /** topic -> its readable queues (from the route). */
  readonly topicSubscribeInfoTable = new Map<string, MessageQueue[]>();
  /** topic -> the subscription. */
  readonly subscriptionInner = new Map<string, SubscriptionData>();
  /** Topics seen with a route, and topics without one yet that were said at info (see noRoute). */
  private readonly routedTopics = new Set<string>();
  private readonly waitingTopics = new Set<string>();
  readonly settings: RebalanceSettings;
  /** Orderly: a queue allocated to this member could not be locked in the last rebalance. */
  lockPending = false;
  private readonly host: RebalanceHost;
  private readonly adapter: RebalanceAdapter;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    settings: RebalanceSettings,
    host: RebalanceHost,
    adapter: RebalanceAdapter,
    clock: Clock,
    logger: Logger,
  ) {
    this.settings = settings;
    this.host = host;
    this.adapter = adapter;
    this.clock = clock;
    this.logger = logger;
  }
  /**
   * The route of `topic` gave these readable queues (MQConsumerInner.updateTopicSubscribeInfo); kept
   * when the topic is subscribed. True when queues already known changed.
   */
  updateTopicSubscribeInfo(topic: string, queues: readonly MessageQueue[]): boolean {
    if (!this.subscriptionInner.has(topic)) return false;
    const old = this.topicSubscribeInfoTable.get(topic);
    this.topicSubscribeInfoTable.set(topic, [...queues]);
    return (
      old !== undefined &&
      (old.length !== queues.length || old.some((mq, i) => !mq.equals(queues[i] as MessageQueue)))
    );
  }

  /** A subscribed topic whose queues are not known yet. */
  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return this.subscriptionInner.has(topic) && !this.topicSubscribeInfoTable.has(topic);
  }

  get consumerGroup(): string {
    return this.settings.consumerGroup;
  }

  /** Every subscribed topic, then queues of topics no longer subscribed are dropped. */
  async doRebalance(isOrder: boolean): Promise<void> {
    this.lockPending = false;
    for (const topic of [...this.subscriptionInner.keys()]) {
      try {
        if (this.adapter.clientRebalance?.(topic) === false)
          await this.getRebalanceResultFromBroker(topic, isOrder);
        else await this.rebalanceByTopic(topic, isOrder);
      } catch (error) {
        if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
          this.logger.warn(
            'rebalanceByTopic failed',
            {
              group: this.consumerGroup,
              topic,
              error: errorText(error),
            },
            error,
          );
        }
      }
    }
    this.truncateMessageQueueNotMyTopic();
  }

  /** The held queues, by broker name (for lockAll / unlockAll). */
  heldQueuesByBroker(): Map<string, MessageQueue[]> {
    const out = new Map<string, MessageQueue[]>();
    for (const { mq } of this.processQueueTable.values()) {
      const list = out.get(mq.brokerName);
      if (list === undefined) out.set(mq.brokerName, [mq]);
      else list.push(mq);
    }
    return out;
  }

  processQueueOf(mq: MessageQueue): ProcessQueue | undefined {
    return this.processQueueTable.get(mq.key)?.pq;
  }

  /** Locks `mq` on its master; true when this client holds it now. */
  async lock(mq: MessageQueue): Promise<boolean> {
    const found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    if (found === undefined) return false;
    try {
      const locked = await this.lockOnBroker(found.brokerAddr, [mq]);
      for (const l of locked) {
        const pq = this.processQueueOf(l);
        if (pq !== undefined) {
          pq.locked = true;
          pq.lastLockTimestamp = this.clock.now();
        }
      }
      const ok = locked.some((l) => l.equals(mq));
      this.logger.info(`the message queue lock ${ok ? 'OK' : 'Failed'}`, {
        group: this.consumerGroup,
        mq: mq.toString(),
      });
      return ok;
    } catch (error) {
      this.logger.warn(
        'lockBatchMQ failed',
        {
          group: this.consumerGroup,
          mq: mq.toString(),
          error: errorText(error),
        },
        error,
      );
      return false;
    }
  }

  /** Renews the locks of every held queue, broker by broker; queues the broker refused are marked unlocked. */
  async lockAll(): Promise<void> {
    for (const [brokerName, mqs] of this.heldQueuesByBroker()) {
      const found = this.host.findBrokerAddressInSubscribe(brokerName, MASTER_ID, true);
      if (found === undefined) continue;
      try {
        const locked = await this.lockOnBroker(found.brokerAddr, mqs);
        const ok = new Set(locked.map((m) => m.key));
        for (const mq of mqs) {
          const pq = this.processQueueOf(mq);
          if (pq === undefined) continue;
          if (ok.has(mq.key)) {
            if (!pq.locked)
              this.logger.info('the message queue locked OK', {
                group: this.consumerGroup,
                mq: mq.toString(),
              });
            pq.locked = true;
            pq.lastLockTimestamp = this.clock.now();
          } else if (pq.locked) {
            pq.locked = false;
            this.logger.warn('the message queue locked Failed', {
              group: this.consumerGroup,
              mq: mq.toString(),
            });
          }
        }
      } catch (error) {
        this.logger.warn(
          'lockBatchMQ failed',
          {
            group: this.consumerGroup,
            brokerName,
            error: errorText(error),
          },
          error,
        );
      }
    }
  }

  async unlock(mq: MessageQueue, oneway: boolean): Promise<void> {
    const found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    if (found === undefined) return;
    try {
      await this.unlockOnBroker(found.brokerAddr, [mq], oneway);
      this.logger.info('unlock messageQueue', {
        group: this.consumerGroup,
        clientId: this.host.clientId,
        mq: mq.toString(),
      });
    } catch (error) {
      this.logger.warn(
        'unlockBatchMQ failed',
        {
          group: this.consumerGroup,
          mq: mq.toString(),
          error: errorText(error),
        },
        error,
      );
    }
  }

  async unlockAll(oneway: boolean): Promise<void> {
    for (const [brokerName, mqs] of this.heldQueuesByBroker()) {
      const found = this.host.findBrokerAddressInSubscribe(brokerName, MASTER_ID, true);
      if (found === undefined) continue;
      try {
        await this.unlockOnBroker(found.brokerAddr, mqs, oneway);
        for (const mq of mqs) {
          const pq = this.processQueueOf(mq);
          if (pq !== undefined) pq.locked = false;
        }
      } catch (error) {
        this.logger.warn(
          'unlockBatchMQ failed',
          {
            group: this.consumerGroup,
            brokerName,
            error: errorText(error),
          },
          error,
        );
      }
    }
  }

  /** Drops a queue now (OFFSET_ILLEGAL): the next rebalance creates it again from the stored offset. */
  async removeProcessQueue(mq: MessageQueue): Promise<void> {
    const held = this.processQueueTable.get(mq.key);
    if (held === undefined) return;
    this.processQueueTable.delete(mq.key);
    const wasDropped = held.pq.dropped;
    held.pq.dropped = true;
    await this.adapter.removeUnnecessaryMessageQueue(mq, held.pq);
    this.logger.info('fix offset, remove unnecessary mq', {
      group: this.consumerGroup,
      mq: mq.toString(),
      wasDropped,
    });
  }

  /** Marks every ProcessQueue dropped and forgets them (shutdown). */
  destroy(): void {
    for (const { pq } of this.processQueueTable.values()) pq.dropped = true;
    this.processQueueTable.clear();
    for (const { pq } of this.popProcessQueueTable.values()) pq.dropped = true;
    this.popProcessQueueTable.clear();
  }

  private callOptions(): CallOptions {
    return { timeoutMs: LOCK_TIMEOUT_MS };
  }

  private async lockOnBroker(addr: string, mqs: MessageQueue[]): Promise<MessageQueue[]> {
    const request = buildLockBatchMQRequest({
      consumerGroup: this.consumerGroup,
      clientId: this.host.clientId,
      mqSet: mqs,
    });
    const response = await this.host.api.invoke(addr, request, this.callOptions());
    return parseLockBatchMQResponse(response, addr, this.consumerGroup);
  }

  private async unlockOnBroker(addr: string, mqs: MessageQueue[], oneway: boolean): Promise<void> {
    const request = buildUnlockBatchMQRequest({
      consumerGroup: this.consumerGroup,
      clientId: this.host.clientId,
      mqSet: mqs,
    });
    if (oneway) {
      await this.host.api.remoting.invokeOneway(addr, request);
      return;
    }
    const response = await this.host.api.invoke(addr, request, this.callOptions());
    parseUnlockBatchMQResponse(response, addr, this.consumerGroup);
  }

  /**
   * A subscribed topic without a route. A consumer started before its topic exists is normal (topics
   * are created on first send in development, and the retry topic on the first retry): said once at
   * info. A topic that had a route and lost it is upstream's warn, every rebalance.
   */
  private noRoute(topic: string): void {
    const fields = { group: this.consumerGroup, topic };
    if (this.routedTopics.has(topic)) {
      this.logger.warn('doRebalance, but the topic does not exist', fields);
    } else if (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) || this.waitingTopics.has(topic)) {
      this.logger.debug('doRebalance, but the topic does not exist yet', fields);
    } else {
      this.waitingTopics.add(topic);
      this.logger.info('doRebalance, but the topic does not exist yet: waiting for its first route', fields);
    }
  }

  private async rebalanceByTopic(topic: string, isOrder: boolean): Promise<void> {
    const mqSet = this.topicSubscribeInfoTable.get(topic);
    if (mqSet === undefined) {
      this.noRoute(topic);
      return;
    }
    const firstRoute = !this.routedTopics.has(topic);
    this.routedTopics.add(topic);
    if (this.settings.messageModel === MessageModel.BROADCASTING) {
      if (await this.updateProcessQueueTableInRebalance(topic, mqSet, isOrder)) {
        this.messageQueueChanged(topic, mqSet, mqSet);
      }
      return;
    }
    const cidAll = await this.host.findConsumerIdList(topic, this.consumerGroup);
    if (cidAll === undefined) {
      // On a topic's first route the broker may not know the group yet (the instance heartbeats it
      // and rebalances again); later it is a real failure.
      const fields = { group: this.consumerGroup, topic };
      if (firstRoute) this.logger.info('doRebalance, get consumer id list failed', fields);
      else this.logger.warn('doRebalance, get consumer id list failed', fields);
      return;
    }
    const mqAll = [...mqSet].sort(MessageQueue.compare);
    const cids = [...cidAll].sort(javaStringCompare);
    const strategy = this.settings.strategy;
    let allocated: MessageQueue[];
    try {
      allocated = strategy.allocate(this.consumerGroup, this.host.clientId, mqAll, cids);
    } catch (error) {
      this.logger.error(
        'AllocateMessageQueueStrategy.allocate failed',
        {
          group: this.consumerGroup,
          strategy: strategy.name,
          error: errorText(error),
        },
        error,
      );
      return;
    }
    const divided = dedupe(allocated);
    if (await this.updateProcessQueueTableInRebalance(topic, divided, isOrder)) {
      this.logger.info('rebalanced result changed', {
        group: this.consumerGroup,
        topic,
        strategy: strategy.name,
        clientId: this.host.clientId,
        mqAllSize: mqSet.length,
        cidAllSize: cids.length,
        rebalanceResultSize: divided.length,
      });
      this.messageQueueChanged(topic, mqSet, divided);
    }
  }

  private messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    this.adapter.messageQueueChanged(topic, mqAll, mqDivided);
    if (rebalanceChannel.hasSubscribers) {
      rebalanceChannel.publish({
        consumerGroup: this.consumerGroup,
        topic,
        mqAll: [...mqAll],
        mqDivided: [...mqDivided],
      });
    }
  }

  /**
   * Upstream getRebalanceResultFromBroker: QUERY_ASSIGNMENT to a broker of the topic; an answer
   * without assignments (Java null) or a failure keeps the queues held.
   */
  private async getRebalanceResultFromBroker(topic: string, isOrder: boolean): Promise<void> {
    const strategyName = this.settings.strategy.name;
    let assignments: MessageQueueAssignment[] | undefined;
    try {
      const addr = await this.host.findBrokerAddrByTopic(topic);
      if (addr === undefined) {
        this.noRoute(topic);
        return;
      }
      const request = buildQueryAssignmentRequest({
        topic,
        consumerGroup: this.consumerGroup,
        clientId: this.host.clientId,
        strategyName,
        messageModel: this.settings.messageModel,
      });
      const response = await this.host.api.invoke(addr, request, { timeoutMs: QUERY_ASSIGNMENT_TIMEOUT_MS });
      assignments = parseQueryAssignmentResponse(response, addr, this.consumerGroup, topic);
    } catch (error) {
      this.logger.error('allocate message queue exception', {
        group: this.consumerGroup,
        topic,
        strategyName,
        error: errorText(error),
      });
      return;
    }
    if (assignments === undefined) return;
    if (await this.updateMessageQueueAssignment(topic, assignments, isOrder)) {
      const mqSet = assignments.map((a) => a.messageQueue);
      this.logger.info('broker rebalanced result changed', {
        group: this.consumerGroup,
        topic,
        strategy: strategyName,
        clientId: this.host.clientId,
        assignments: assignments.map((a) => `${a.messageQueue.toString()}:${a.mode}`).join(','),
      });
      this.messageQueueChanged(topic, this.topicSubscribeInfoTable.get(topic) ?? mqSet, mqSet);
    }
  }

  /**
   * Upstream updateMessageQueueAssignment: PULL assignments go through the pull path (as a client
   * rebalance's result), POP ones get a PopProcessQueue and a PopRequest. A topic switched wholly
   * to PULL also pulls its POP retry topic (messages revived before the switch); wholly to POP, the
   * broker serves that retry topic within the pops.
   */
  private async updateMessageQueueAssignment(
    topic: string,
    assignments: readonly MessageQueueAssignment[],
    isOrder: boolean,
  ): Promise<boolean> {
    const pull: MessageQueue[] = [];
    const pop: MessageQueue[] = [];
    for (const a of assignments) (a.mode === MessageRequestMode.POP ? pop : pull).push(a.messageQueue);
    if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      const retryTopic = buildPopRetryTopic(topic, this.consumerGroup);
      if (pop.length === 0 && pull.length > 0) {
        if (!this.subscriptionInner.has(retryTopic)) {
          this.subscriptionInner.set(retryTopic, buildSubscription(retryTopic, '*', undefined, {}));
        }
      } else if (pop.length > 0 && pull.length === 0) {
        this.subscriptionInner.delete(retryTopic);
      }
    }
    let changed = await this.updateProcessQueueTableInRebalance(topic, pull, isOrder);
    const wanted = new Set(pop.map((mq) => mq.key));
    for (const [key, { mq, pq }] of [...this.popProcessQueueTable]) {
      if (mq.topic !== topic) continue;
      const gone = !wanted.has(key);
      const stalled =
        !gone && pq.isPullExpired() && this.adapter.consumeType() === ConsumeType.CONSUME_PASSIVELY;
      if (!gone && !stalled) continue;
      pq.dropped = true;
      this.popProcessQueueTable.delete(key);
      changed = true;
      if (gone)
        this.logger.info('doRebalance, remove unnecessary pop mq', {
          group: this.consumerGroup,
          mq: mq.toString(),
        });
      else
        this.logger.error('doRebalance, remove pop mq whose pops stopped, to fix it', {
          group: this.consumerGroup,
          mq: mq.toString(),
        });
    }
    const requests: PopRequest[] = [];
    const initMode = this.adapter.consumeInitMode?.() ?? 1;
    for (const mq of pop) {
      if (this.popProcessQueueTable.has(mq.key)) continue;
      const pq = new PopProcessQueue(this.clock, this.settings.processQueue.pullMaxIdleTime);
      this.popProcessQueueTable.set(mq.key, { mq, pq });
      this.logger.info('doRebalance, add a new pop mq', { group: this.consumerGroup, mq: mq.toString() });
      requests.push(new PopRequest(this.consumerGroup, mq, pq, initMode));
      changed = true;
    }
    if (requests.length > 0) this.adapter.dispatchPopRequest?.(requests);
    return changed;
  }

  private truncateMessageQueueNotMyTopic(): void {
    for (const [key, { mq, pq }] of this.popProcessQueueTable) {
      if (this.subscriptionInner.has(mq.topic)) continue;
      this.popProcessQueueTable.delete(key);
      pq.dropped = true;
      this.logger.info('doRebalance, remove unnecessary pop mq of a topic no longer subscribed', {
        group: this.consumerGroup,
        mq: mq.toString(),
      });
    }
    for (const [key, { mq, pq }] of this.processQueueTable) {
      if (this.subscriptionInner.has(mq.topic)) continue;
      this.processQueueTable.delete(key);
      pq.dropped = true;
      this.logger.info('doRebalance, remove unnecessary mq of a topic no longer subscribed', {
        group: this.consumerGroup,
        mq: mq.toString(),
      });
    }
  }

  /**
   * `updateProcessQueueTableInRebalance`: drops queues no longer ours (and push queues whose pulls
   * stopped), adds the new ones. Orderly: a new queue is kept only once its broker lock is held.
   */
  private async updateProcessQueueTableInRebalance(
    topic: string,
    mqSet: readonly MessageQueue[],
    isOrder: boolean,
  ): Promise<boolean> {
    let changed = false;
    const wanted = new Set(mqSet.map((mq) => mq.key));
    for (const [key, { mq, pq }] of [...this.processQueueTable]) {
      if (mq.topic !== topic) continue;
      const gone = !wanted.has(key);
      const stalled =
        !gone && pq.isPullExpired() && this.adapter.consumeType() === ConsumeType.CONSUME_PASSIVELY;
      if (!gone && !stalled) continue;
      pq.dropped = true;
      if (await this.adapter.removeUnnecessaryMessageQueue(mq, pq)) {
        this.processQueueTable.delete(key);
        changed = true;
        if (gone)
          this.logger.info('doRebalance, remove unnecessary mq', {
            group: this.consumerGroup,
            mq: mq.toString(),
          });
        else {
          this.logger.error('doRebalance, remove mq whose pulls stopped, to fix it', {
            group: this.consumerGroup,
            mq: mq.toString(),
          });
        }
      }
    }
    const requests: PullRequest[] = [];
    for (const mq of mqSet) {
      if (this.processQueueTable.has(mq.key)) continue;
      if (isOrder && !(await this.lock(mq))) {
        this.lockPending = true;
        this.logger.warn('doRebalance, add a new mq failed, because lock failed', {
          group: this.consumerGroup,
          mq: mq.toString(),
        });
        continue;
      }
      this.adapter.removeDirtyOffset(mq);
      const pq = new ProcessQueue(this.clock, this.settings.processQueue);
      pq.locked = true;
      let nextOffset: bigint;
      try {
        nextOffset = await this.adapter.computePullFromWhere(mq);
      } catch (error) {
        this.logger.info(
          'doRebalance, compute offset failed',
          {
            group: this.consumerGroup,
            mq: mq.toString(),
            error: errorText(error),
          },
          error,
        );
        continue;
      }
      if (nextOffset < 0n) {
        this.logger.warn('doRebalance, add new mq failed', { group: this.consumerGroup, mq: mq.toString() });
        continue;
      }
      if (this.processQueueTable.has(mq.key)) continue;
      this.processQueueTable.set(mq.key, { mq, pq });
      this.logger.info('doRebalance, add a new mq', {
        group: this.consumerGroup,
        mq: mq.toString(),
        nextOffset,
      });
      requests.push(new PullRequest(this.consumerGroup, mq, pq, nextOffset));
      changed = true;
    }
    this.adapter.dispatchPullRequest(requests);
    return changed;
  }
}

function dedupe(mqs: readonly MessageQueue[]): MessageQueue[] {
  const seen = new Set<string>();
  const out: MessageQueue[] = [];
  for (const mq of mqs) {
    if (seen.has(mq.key)) continue;
    seen.add(mq.key);
    out.push(mq);
  }
  return out;
}
