/**
 * RebalancePushImpl: what rebalancing does for a push consumer. Where a new queue starts
 * (computePullFromWhere, upstream's rules for new groups and retry topics), what happens to a queue
 * that leaves (offset persisted; orderly: unlocked once its in-flight batch is done), and thresholds
 * per topic spread over the queues held.
 */
import type { Clock } from '../../../common/clock.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ConsumeFromWhere, ConsumeType, MessageModel } from '../../../common/protocol/heartbeat-data.js';
import type { MQAdminImpl } from '../../instance/mq-admin-impl.js';
import type { CallOptions } from '../../instance/mq-client-api.js';
import type { OffsetStore } from '../offset/offset-store.js';
import { ConsumeInitMode, type PopRequest } from '../pop/pop-request.js';
import type { ProcessQueue } from '../process-queue.js';
import type { PullRequest } from '../pull/pull-request.js';
import type { ResolvedPushConsumerOptions } from '../push/push-consumer-options.js';
import { computePullFromWhere } from './compute-pull-from-where.js';
import type { RebalanceAdapter, RebalanceImpl } from './rebalance-impl.js';

/** How long removeUnnecessaryMessageQueue waits for an orderly queue's in-flight batch, ms (upstream tryLock(1000)). */
const CONSUME_LOCK_WAIT_MS = 1000;

/** What the push adapter needs of its consumer. */
export interface PushRebalanceHost {
  readonly options: ResolvedPushConsumerOptions;
  readonly offsetStore: OffsetStore;
  readonly admin: MQAdminImpl;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rebalance: RebalanceImpl;
  isConsumeOrderly(): boolean;
  apiCallOptions(): CallOptions;
  executePullRequestImmediately(request: PullRequest): void;
  executePopRequestImmediately(request: PopRequest): void;
  sendHeartbeat(): void;
}

export class RebalancePushAdapter implements RebalanceAdapter {
  private readonly host: PushRebalanceHost;

  constructor(host: PushRebalanceHost) {
    this.host = host;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_PASSIVELY;
  }

  /**
   * The new subscription version tells the brokers to take the new heartbeat's subscription
   * (upstream's fix for consumers missing messages after a rebalance); per-topic thresholds are
   * spread over the queues now held.
   */
  messageQueueChanged(topic: string): void {
    const { options, rebalance } = this.host;
    const sub = rebalance.subscriptionInner.get(topic);
    if (sub !== undefined) sub.subVersion = BigInt(this.host.clock.now());
    const held = rebalance.processQueueTable.size;
    if (held > 0) {
      if (options.pullThresholdForTopic !== -1) {
        options.pullThresholdForQueue = Math.max(1, Math.trunc(options.pullThresholdForTopic / held));
      }
      if (options.pullThresholdSizeForTopic !== -1) {
        options.pullThresholdSizeForQueue = Math.max(1, Math.trunc(options.pullThresholdSizeForTopic / held));
      }
    }
    this.host.sendHeartbeat();
  }

  async removeUnnecessaryMessageQueue(mq: MessageQueue, pq: ProcessQueue): Promise<boolean> {
    const { offsetStore } = this.host;
    await offsetStore.persist(mq);
    offsetStore.removeOffset(mq);
    if (!this.host.isConsumeOrderly() || this.host.options.messageModel !== MessageModel.CLUSTERING)
      return true;
    // Better than upstream's fixed 20 s unlock delay: the queue is unlocked as soon as the batch
    // being consumed is done, so its next owner can lock it at once.
    if (!(await pq.consumeLock.lock(this.host.clock, CONSUME_LOCK_WAIT_MS))) {
      pq.tryUnlockTimes++;
      this.host.logger.warn('mq is consuming, so can not unlock it yet', {
        mq: mq.toString(),
        tryUnlockTimes: pq.tryUnlockTimes,
      });
      return false;
    }
    try {
      await this.host.rebalance.unlock(mq, true);
      pq.locked = false;
      return true;
    } finally {
      pq.consumeLock.unlock();
    }
  }

  removeDirtyOffset(mq: MessageQueue): void {
    this.host.offsetStore.removeOffset(mq);
  }

  /** `computePullFromWhereWithException`: the stored offset, else where consumeFromWhere says. */
  computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    const host = this.host;
    return computePullFromWhere(
      {
        consumeFromWhere: host.options.consumeFromWhere,
        consumeTimestamp: host.options.consumeTimestamp,
        offsetStore: host.offsetStore,
        admin: host.admin,
        logger: host.logger,
        callOptions: () => host.apiCallOptions(),
      },
      mq,
    );
  }

  dispatchPullRequest(requests: readonly PullRequest[]): void {
    for (const request of requests) {
      this.host.executePullRequestImmediately(request);
      this.host.logger.info('doRebalance, add a new pull request', { request: request.toString() });
    }
  }

  /**
   * Upstream RebalancePushImpl.clientRebalance: the broker assigns the queues only when
   * `clientRebalance` is off, for a concurrently consumer in clustering mode.
   */
  clientRebalance(_topic: string): boolean {
    const { options } = this.host;
    return (
      options.clientRebalance ||
      this.host.isConsumeOrderly() ||
      options.messageModel === MessageModel.BROADCASTING
    );
  }

  /** MIN only for CONSUME_FROM_FIRST_OFFSET, else MAX (upstream getConsumeInitMode). */
  consumeInitMode(): ConsumeInitMode {
    return this.host.options.consumeFromWhere === ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET
      ? ConsumeInitMode.MIN
      : ConsumeInitMode.MAX;
  }

  dispatchPopRequest(requests: readonly PopRequest[]): void {
    for (const request of requests) {
      this.host.executePopRequestImmediately(request);
      this.host.logger.info('doRebalance, add a new pop request', { request: request.toString() });
    }
  }
}
