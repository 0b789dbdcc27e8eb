/**
 * The push consumer's pop loop for queues the broker assigned in POP mode: upstream's
 * DefaultMQPushConsumerImpl.popMessage (flow control on the messages waiting for their ack), its
 * PopCallback (what each answer leads to) and processPopResult (tags re-checked, messages past
 * maxReconsumeTimes acked and dropped), scheduled like the pull loop.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import { MixAll } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { isTagMatched } from '../../../filter/filter-api.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import type { ClientConfig } from '../../client-config.js';
import { errorText, MQBrokerError } from '../../errors.js';
import { PopStatus } from '../../instance/requests/pop-message.js';
import type { ConsumeMessagePopConcurrentlyService } from '../consume/consume-message-pop-concurrently-service.js';
import type { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import type { ResolvedPushConsumerOptions } from '../push/push-consumer-options.js';
import type { RebalanceImpl } from '../rebalance/rebalance-impl.js';
import type { ConsumerStatsRecorder } from '../stats/consumer-stats-recorder.js';
import { ackPopped, type PopAckHost } from './pop-ack.js';
import type { PopRequest } from './pop-request.js';

/** Upstream's pause after the broker's FLOW_CONTROL, ms (PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL). */
const DELAY_WHEN_BROKER_FLOW_CONTROL_MS = 20;
const FLOW_CONTROL_LOG_EVERY = 1000;

export interface PopMessageHost {
  readonly consumerGroup: string;
  readonly options: ResolvedPushConsumerOptions;
  readonly clientConfig: ClientConfig;
  readonly rebalance: RebalanceImpl;
  readonly stats: ConsumerStatsRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pullAPIWrapper: PullAPIWrapper | undefined;
  readonly popConsumeService: ConsumeMessagePopConcurrentlyService | undefined;
  readonly popAckHost: PopAckHost;
  isRunning(): boolean;
  isPaused(): boolean;
  maxReconsumeTimes(): number;
}

export class PopMessageService {
  private readonly timers = new Set<TimerHandle>();
  private flowControlTimes = 0;

  constructor(
    private readonly host: PopMessageHost,
    private readonly shutdownSignal: AbortSignal,
  ) {}

  executePopRequestImmediately(request: PopRequest): void {
    if (this.shutdownSignal.aborted) return;
    void this.popMessage(request);
  }

  executePopRequestLater(request: PopRequest, delayMs: number): void {
    if (this.shutdownSignal.aborted) return;
    const timer = this.host.clock.setTimeout(() => {
      this.timers.delete(timer);
      void this.popMessage(request);
    }, delayMs);
    this.timers.add(timer);
  }

  shutdown(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
  }

  async popMessage(request: PopRequest): Promise<void> {
    const host = this.host;
    const pq = request.popProcessQueue;
    const mq = request.messageQueue;
    if (pq.dropped) return;
    pq.lastPopTimestamp = host.clock.now();
    const exceptionDelay = host.clientConfig.pullTimeDelayMillsWhenException;
    if (!host.isRunning()) {
      this.executePopRequestLater(request, exceptionDelay);
      return;
    }
    if (host.isPaused()) {
      this.executePopRequestLater(request, host.options.pullTimeDelayMillsWhenSuspend);
      return;
    }
    if (pq.waitAckMsgCount > host.options.popThresholdForQueue) {
      this.executePopRequestLater(request, host.options.pullTimeDelayMillsWhenFlowControl);
      if (this.flowControlTimes++ % FLOW_CONTROL_LOG_EVERY === 0) {
        host.logger.warn('flow control: the messages waiting to ack exceed the threshold', {
          group: host.consumerGroup,
          mq: mq.toString(),
          threshold: host.options.popThresholdForQueue,
          waiting: pq.waitAckMsgCount,
        });
      }
      return;
    }
    const sub = host.rebalance.subscriptionInner.get(mq.topic);
    if (sub === undefined) {
      this.executePopRequestLater(request, exceptionDelay);
      host.logger.warn("find the consumer's subscription failed", { request: request.toString() });
      return;
    }
    const wrapper = host.pullAPIWrapper as PullAPIWrapper;
    const begin = host.clock.now();
    let result: Awaited<ReturnType<PullAPIWrapper['popKernelImpl']>>;
    try {
      result = await wrapper.popKernelImpl({
        mq,
        invisibleTime: host.options.popInvisibleTime,
        maxNums: host.options.popBatchNums,
        pollTime: host.options.brokerSuspendMaxTimeMillis,
        initMode: request.initMode,
        expressionType: sub.expressionType,
        expression: sub.subString,
        signal: this.shutdownSignal,
      });
    } catch (error) {
      this.onPopFailure(request, error);
      return;
    }
    if (pq.dropped) return;
    switch (result.popStatus) {
      case PopStatus.FOUND: {
        const msgs = this.processPopResult(result.msgFoundList, sub);
        host.stats.incPullRT(host.consumerGroup, mq.topic, host.clock.now() - begin);
        if (msgs.length > 0) {
          host.stats.incPullTPS(host.consumerGroup, mq.topic, msgs.length);
          pq.incFoundMsg(msgs.length);
          host.popConsumeService?.submitPopConsumeRequest(msgs, pq, mq);
        }
        if (msgs.length > 0 && host.options.pullInterval > 0) {
          this.executePopRequestLater(request, host.options.pullInterval);
        } else {
          this.executePopRequestImmediately(request);
        }
        break;
      }
      case PopStatus.NO_NEW_MSG:
      case PopStatus.POLLING_NOT_FOUND:
        this.executePopRequestImmediately(request);
        break;
      default:
        this.executePopRequestLater(request, exceptionDelay);
    }
  }

  /** Tags re-checked; messages past maxReconsumeTimes and those filtered out are acked and dropped. */
  private processPopResult(found: MessageExt[], sub: SubscriptionData): MessageExt[] {
    const host = this.host;
    const keep = found.filter(
      (m) =>
        (sub.tagsSet.length === 0 || sub.classFilterMode || isTagMatched(sub, m.tags)) &&
        m.reconsumeTimes <= host.maxReconsumeTimes(),
    );
    if (keep.length !== found.length) {
      const kept = new Set(keep);
      for (const msg of found) {
        if (!kept.has(msg)) void ackPopped(host.popAckHost, msg, host.consumerGroup);
      }
    }
    return keep;
  }

  private onPopFailure(request: PopRequest, error: unknown): void {
    if (error instanceof RemotingAbortedError && this.shutdownSignal.aborted) return;
    if (!request.messageQueue.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      this.host.logger.warn('execute the pop request exception', {
        request: request.toString(),
        error: errorText(error),
      });
    }
    const flowControl = error instanceof MQBrokerError && error.responseCode === ResponseCode.FLOW_CONTROL;
    this.executePopRequestLater(
      request,
      flowControl
        ? DELAY_WHEN_BROKER_FLOW_CONTROL_MS
        : this.host.clientConfig.pullTimeDelayMillsWhenException,
    );
  }
}
