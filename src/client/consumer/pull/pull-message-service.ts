/**
 * The push consumer's pull loop: upstream's DefaultMQPushConsumerImpl.pullMessage (flow control,
 * the orderly lock and first-offset checks, the pull itself), its PullCallback (what each answer
 * leads to) and PullMessageService's scheduling (executePullRequestImmediately/Later). Upstream runs
 * one PullMessageService per client instance; here each consumer owns its loop, so its shutdown
 * cancels exactly its own scheduled pulls.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import { MixAll, PullSysFlag } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import type { ClientConfig } from '../../client-config.js';
import { errorText } from '../../errors.js';
import type { ConsumeMessageService } from '../consume/consume-message-service.js';
import type { OffsetStore } from '../offset/offset-store.js';
import type { ResolvedPushConsumerOptions } from '../push/push-consumer-options.js';
import type { RebalanceImpl } from '../rebalance/rebalance-impl.js';
import type { ConsumerStatsRecorder } from '../stats/consumer-stats-recorder.js';
import type { PullAPIWrapper } from './pull-api-wrapper.js';
import { delayAfterPullFailure } from './pull-failure.js';
import type { PullRequest } from './pull-request.js';
import { type PullResult, PullStatus } from './pull-result.js';

/** Upstream's pause before rebuilding a queue whose pull offset was illegal, ms. */
const OFFSET_ILLEGAL_FIX_DELAY_MS = 10_000;
/** Flow-control warnings are logged once per this many occurrences. */
const FLOW_CONTROL_LOG_EVERY = 1000;

/** What the pull loop needs of its push consumer. */
export interface PullMessageHost {
  /** The group on the wire (with the namespace). */
  readonly consumerGroup: string;
  /** Read on every pull: rebalancing spreads the per-topic thresholds over the queues held. */
  readonly options: ResolvedPushConsumerOptions;
  readonly clientConfig: ClientConfig;
  readonly offsetStore: OffsetStore;
  readonly rebalance: RebalanceImpl;
  readonly stats: ConsumerStatsRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Set at start, before the consumer runs (pulls wait while it does not). */
  readonly pullAPIWrapper: PullAPIWrapper | undefined;
  readonly consumeMessageService: ConsumeMessageService | undefined;
  isRunning(): boolean;
  isPaused(): boolean;
  isConsumeOrderly(): boolean;
  /** Orderly: where a queue starts once its lock is first held (upstream computePullFromWhereWithException). */
  computePullFromWhere(mq: MessageQueue): Promise<bigint>;
}

export class PullMessageService {
  private readonly host: PullMessageHost;
  /** The consumer's shutdown: no pull is scheduled after it, and the pulls out are aborted. */
  private readonly shutdownSignal: AbortSignal;
  private readonly pullTimers = new Set<TimerHandle>();
  private flowControlTimes = 0;

  constructor(host: PullMessageHost, shutdownSignal: AbortSignal) {
    this.host = host;
    this.shutdownSignal = shutdownSignal;
  }

  executePullRequestImmediately(request: PullRequest): void {
    if (this.shutdownSignal.aborted) return;
    void this.pullMessage(request);
  }

  executePullRequestLater(request: PullRequest, delayMs: number): void {
    if (this.shutdownSignal.aborted) return;
    const timer = this.host.clock.setTimeout(() => {
      this.pullTimers.delete(timer);
      void this.pullMessage(request);
    }, delayMs);
    this.pullTimers.add(timer);
  }

  /** Cancels every scheduled pull; the pulls out end with the consumer's shutdown signal. */
  shutdown(): void {
    for (const t of this.pullTimers) t.cancel();
    this.pullTimers.clear();
  }

  private flowControlled(
    request: PullRequest,
    reason: string,
    fields: Record<string, number | string>,
  ): void {
    this.executePullRequestLater(request, this.host.options.pullTimeDelayMillsWhenFlowControl);
    if (this.flowControlTimes++ % FLOW_CONTROL_LOG_EVERY === 0) {
      this.host.logger.warn(`flow control: ${reason}`, {
        group: this.host.consumerGroup,
        mq: request.messageQueue.toString(),
        flowControlTimes: this.flowControlTimes,
        ...fields,
      });
    }
  }

  /** One pull of `request`'s queue, with upstream's flow control, and what its answer leads to. */
  async pullMessage(request: PullRequest): Promise<void> {
    const host = this.host;
    const pq = request.processQueue;
    const mq = request.messageQueue;
    if (pq.dropped) {
      host.logger.debug('the pull request is dropped', { request: request.toString() });
      return;
    }
    pq.lastPullTimestamp = host.clock.now();
    const exceptionDelay = host.clientConfig.pullTimeDelayMillsWhenException;
    if (!host.isRunning()) {
      this.executePullRequestLater(request, exceptionDelay);
      return;
    }
    if (host.isPaused()) {
      this.executePullRequestLater(request, host.options.pullTimeDelayMillsWhenSuspend);
      return;
    }
    const options = host.options;
    if (pq.msgCount > options.pullThresholdForQueue) {
      this.flowControlled(request, 'the cached message count exceeds the threshold', {
        threshold: options.pullThresholdForQueue,
        count: pq.msgCount,
      });
      return;
    }
    const sizeMiB = Math.trunc(pq.msgSize / (1024 * 1024));
    if (sizeMiB > options.pullThresholdSizeForQueue) {
      this.flowControlled(request, 'the cached message size exceeds the threshold', {
        thresholdMiB: options.pullThresholdSizeForQueue,
        sizeMiB,
      });
      return;
    }
    if (!host.isConsumeOrderly()) {
      const span = pq.getMaxSpan();
      if (span > options.consumeConcurrentlyMaxSpan) {
        this.flowControlled(request, "the queue's messages span too long", { maxSpan: span });
        return;
      }
    } else {
      if (!pq.locked) {
        this.executePullRequestLater(request, exceptionDelay);
        host.logger.info('pull later because not locked in broker', { request: request.toString() });
        return;
      }
      if (!request.previouslyLocked) {
        let offset: bigint;
        try {
          offset = await host.computePullFromWhere(mq);
        } catch (error) {
          this.executePullRequestLater(request, exceptionDelay);
          host.logger.error(
            'failed to compute pull offset',
            {
              request: request.toString(),
              error: errorText(error),
            },
            error,
          );
          return;
        }
        host.logger.info('the first time to pull message, so fix offset from broker', {
          request: request.toString(),
          newOffset: offset,
          brokerBusy: offset < request.nextOffset,
        });
        request.previouslyLocked = true;
        request.nextOffset = offset;
      }
    }
    const sub = host.rebalance.subscriptionInner.get(mq.topic);
    if (sub === undefined) {
      this.executePullRequestLater(request, exceptionDelay);
      host.logger.warn("find the consumer's subscription failed", { request: request.toString() });
      return;
    }
    let commitOffset = 0n;
    if (options.messageModel === 'CLUSTERING') commitOffset = host.offsetStore.readOffsetInMemory(mq);
    const subExpression =
      options.postSubscriptionWhenPull && !sub.classFilterMode ? sub.subString : undefined;
    const sysFlag = PullSysFlag.buildSysFlag(
      commitOffset > 0n,
      true,
      subExpression !== undefined,
      sub.classFilterMode,
    );
    const begin = host.clock.now();
    const wrapper = host.pullAPIWrapper as PullAPIWrapper;
    let result: PullResult;
    try {
      const raw = await wrapper.pullKernelImpl({
        mq,
        subExpression,
        expressionType: sub.expressionType,
        subVersion: sub.subVersion,
        offset: request.nextOffset,
        maxNums: options.pullBatchSize,
        sysFlag,
        commitOffset: commitOffset > 0n ? commitOffset : 0n,
        brokerSuspendMaxTimeMillis: options.brokerSuspendMaxTimeMillis,
        timeoutMillis: options.consumerTimeoutMillisWhenSuspend,
        signal: this.shutdownSignal,
      });
      result = wrapper.processPullResult(mq, raw, sub);
    } catch (error) {
      this.onPullFailure(request, error);
      return;
    }
    this.onPullResult(request, result, host.clock.now() - begin);
  }

  /** PullCallback.onException: pull again after a pause (short after the broker's FLOW_CONTROL). */
  private onPullFailure(request: PullRequest, error: unknown): void {
    if (error instanceof RemotingAbortedError && this.shutdownSignal.aborted) return;
    const mq = request.messageQueue;
    if (!mq.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      this.host.logger.warn(
        'execute the pull request exception',
        {
          request: request.toString(),
          error: errorText(error),
        },
        error,
      );
    }
    const delay = delayAfterPullFailure(
      this.host.consumerGroup,
      mq,
      error,
      this.host.clientConfig.pullTimeDelayMillsWhenException,
    );
    this.executePullRequestLater(request, delay);
  }

  /** PullCallback.onSuccess: the messages go to the consume service, and the next pull is scheduled. */
  private onPullResult(request: PullRequest, result: PullResult, pullRT: number): void {
    const host = this.host;
    const pq = request.processQueue;
    const mq = request.messageQueue;
    // The queue was dropped while this pull was out (a reset, a rebalance): its answer would move
    // the offset of the queue's next ProcessQueue (a reset undone by NO_NEW_MSG's correction).
    if (pq.dropped) {
      host.logger.debug('the pull answer of a dropped queue ignored', { request: request.toString() });
      return;
    }
    switch (result.pullStatus) {
      case PullStatus.FOUND: {
        const prevRequestOffset = request.nextOffset;
        request.nextOffset = result.nextBeginOffset;
        host.stats.incPullRT(host.consumerGroup, mq.topic, pullRT);
        const msgs = result.msgFoundList;
        if (msgs.length === 0) {
          this.executePullRequestImmediately(request);
        } else {
          host.stats.incPullTPS(host.consumerGroup, mq.topic, msgs.length);
          const dispatch = pq.putMessage(msgs);
          host.consumeMessageService?.submitConsumeRequest(msgs, pq, mq, dispatch);
          if (host.options.pullInterval > 0) this.executePullRequestLater(request, host.options.pullInterval);
          else this.executePullRequestImmediately(request);
        }
        const first = msgs[0]?.queueOffset;
        if (
          result.nextBeginOffset < prevRequestOffset ||
          (first !== undefined && first < prevRequestOffset)
        ) {
          host.logger.warn('[BUG] pull message result maybe data wrong', {
            nextBeginOffset: result.nextBeginOffset,
            firstMsgOffset: first,
            prevRequestOffset,
          });
        }
        break;
      }
      case PullStatus.NO_NEW_MSG:
      case PullStatus.NO_MATCHED_MSG:
        request.nextOffset = result.nextBeginOffset;
        // Nothing cached: progress may move to where the broker says the next message is.
        if (pq.msgCount === 0) host.offsetStore.updateOffset(mq, request.nextOffset, true);
        this.executePullRequestImmediately(request);
        break;
      case PullStatus.OFFSET_ILLEGAL: {
        host.logger.warn('the pull request offset illegal', {
          request: request.toString(),
          nextBeginOffset: result.nextBeginOffset,
          minOffset: result.minOffset,
          maxOffset: result.maxOffset,
        });
        request.nextOffset = result.nextBeginOffset;
        pq.dropped = true;
        const timer = host.clock.setTimeout(() => {
          this.pullTimers.delete(timer);
          void this.fixIllegalOffset(request);
        }, OFFSET_ILLEGAL_FIX_DELAY_MS);
        this.pullTimers.add(timer);
        break;
      }
    }
  }

  /** OFFSET_ILLEGAL: store the broker's offset and drop the queue; the next rebalance creates it again. */
  private async fixIllegalOffset(request: PullRequest): Promise<void> {
    const host = this.host;
    try {
      host.offsetStore.updateAndFreezeOffset(request.messageQueue, request.nextOffset);
      await host.offsetStore.persist(request.messageQueue);
      await host.rebalance.removeProcessQueue(request.messageQueue);
      host.logger.warn('fix the pull request offset', { request: request.toString() });
    } catch (error) {
      host.logger.error(
        'fixing the pull request offset failed',
        {
          request: request.toString(),
          error: errorText(error),
        },
        error,
      );
    }
  }
}
