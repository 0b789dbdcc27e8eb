/**
 * The lite pull consumer's pull tasks: upstream DefaultLitePullConsumerImpl's PullTaskImpl, its
 * taskTable and the scheduled executor that runs them. One task per queue read keeps the queue's
 * ProcessQueue filled within the flow thresholds and puts every pulled batch in the consume-request
 * cache for poll; each run schedules the next on the consumer's clock.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import { PullSysFlag } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ExpressionType, type SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import type { ClientConfig } from '../../client-config.js';
import { errorText, MQClientError } from '../../errors.js';
import type { ServiceState } from '../../instance/mq-client-instance.js';
import type { PullAPIWrapper } from '../pull/pull-api-wrapper.js';
import { delayAfterPullFailure } from '../pull/pull-failure.js';
import { PullStatus } from '../pull/pull-result.js';
import { computePullFromWhere, type PullFromWhereContext } from '../rebalance/compute-pull-from-where.js';
import type { ConsumerStatsRecorder } from '../stats/consumer-stats-recorder.js';
import type { AssignedMessageQueue } from './assigned-message-queue.js';
import type { ConsumeRequestCache } from './consume-request-cache.js';
import type { ResolvedLitePullConsumerOptions } from './lite-pull-consumer-options.js';

/** Flow-control warnings are logged once per this many occurrences. */
const FLOW_CONTROL_LOG_EVERY = 1000;

/** What the pull tasks need of their lite pull consumer. */
export interface PullTaskHost {
  /** The group on the wire (with the namespace). */
  readonly consumerGroup: string;
  readonly options: ResolvedLitePullConsumerOptions;
  readonly clientConfig: ClientConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly serviceState: ServiceState;
  /** Set at start, before the consumer runs (tasks stop while it does not). */
  readonly pullAPIWrapper: PullAPIWrapper | undefined;
  /** The subscription a pull of `topic` carries (subscribe: the group's; assign: the tag expression set). */
  subscriptionForPull(topic: string): SubscriptionData | undefined;
  /** Where a queue without a pull offset starts (the store, else consumeFromWhere). */
  pullFromWhereContext(): PullFromWhereContext;
}

/** What the tasks fill and record: the consumer's queues, its batches for poll, its stats. */
export interface PullTaskTables {
  readonly assigned: AssignedMessageQueue;
  readonly cache: ConsumeRequestCache;
  readonly stats: ConsumerStatsRecorder;
}

interface PullTask {
  readonly mq: MessageQueue;
  cancelled: boolean;
  timer: TimerHandle | undefined;
  readonly controller: AbortController;
}

export class PullTaskService {
  private readonly host: PullTaskHost;
  private readonly assigned: AssignedMessageQueue;
  private readonly cache: ConsumeRequestCache;
  private readonly stats: ConsumerStatsRecorder;
  /** The consumer's shutdown: a pull it cut short is not an error. */
  private readonly shutdownSignal: AbortSignal;
  private readonly taskTable = new Map<string, PullTask>();
  private flowControlTimes = 0;

  constructor(host: PullTaskHost, tables: PullTaskTables, shutdownSignal: AbortSignal) {
    this.host = host;
    this.assigned = tables.assigned;
    this.cache = tables.cache;
    this.stats = tables.stats;
    this.shutdownSignal = shutdownSignal;
  }

  /** Subscribe mode: rebalancing changed the queues of `topic` this member reads. */
  updatePullTask(topic: string, mqs: readonly MessageQueue[]): void {
    this.removePullTasks((mq) => mq.topic === topic && !mqs.some((m) => m.equals(mq)));
    for (const mq of mqs) this.startPullTask(mq);
  }

  /** Assign mode: exactly `mqs` are read. */
  updateAssignPullTask(mqs: readonly MessageQueue[]): void {
    this.removePullTasks((mq) => !mqs.some((m) => m.equals(mq)));
    for (const mq of mqs) this.startPullTask(mq);
  }

  /** A task for `mq` unless it has one (or the consumer is shut down); its first run is at once. */
  startPullTask(mq: MessageQueue): void {
    if (this.taskTable.has(mq.key) || this.host.serviceState === 'SHUTDOWN_ALREADY') return;
    const task: PullTask = { mq, cancelled: false, timer: undefined, controller: new AbortController() };
    this.taskTable.set(mq.key, task);
    this.schedule(task, 0);
  }

  /** Stops the task of `mq`, if any (a seek or a reset starts a new one). */
  cancelPullTask(mq: MessageQueue): void {
    const old = this.taskTable.get(mq.key);
    if (old !== undefined) this.cancelTask(old);
  }

  removePullTasks(which: (mq: MessageQueue) => boolean): void {
    for (const task of [...this.taskTable.values()]) if (which(task.mq)) this.cancelTask(task);
  }

  private cancelTask(task: PullTask): void {
    task.cancelled = true;
    task.timer?.cancel();
    task.controller.abort();
    if (this.taskTable.get(task.mq.key) === task) this.taskTable.delete(task.mq.key);
  }

  private schedule(task: PullTask, delayMs: number): void {
    if (task.cancelled) return;
    const run = () => {
      task.timer = undefined;
      void this.runPullTask(task);
    };
    if (delayMs > 0) {
      task.timer = this.host.clock.setTimeout(run, delayMs);
      return;
    }
    // "At once" is the next turn of the event loop, not a 0 ms timer: Node clamps those to 1 ms,
    // which capped a queue at one pull per millisecond (a lite consumer at 0.4x the Java one).
    const immediate = setImmediate(run);
    task.timer = { cancel: () => clearImmediate(immediate) };
  }

  private flowControlled(task: PullTask, reason: string): void {
    this.schedule(task, this.host.options.pullTimeDelayMillsWhenFlowControl);
    if (this.flowControlTimes++ % FLOW_CONTROL_LOG_EVERY === 0) {
      this.host.logger.warn(`flow control: ${reason}`, {
        group: this.host.consumerGroup,
        mq: task.mq.toString(),
        flowControlTimes: this.flowControlTimes,
      });
    }
  }

  /** One pull of the task's queue (upstream PullTaskImpl.run), then the next one scheduled. */
  private async runPullTask(task: PullTask): Promise<void> {
    const host = this.host;
    if (task.cancelled || host.serviceState !== 'RUNNING') return;
    const { mq } = task;
    const o = host.options;
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
          group: host.consumerGroup,
        });
    } catch (error) {
      host.logger.error(
        'failed to get next pull offset',
        { mq: mq.toString(), error: errorText(error) },
        error,
      );
      this.schedule(task, o.pullTimeDelayMillsOnException);
      return;
    }
    if (task.cancelled || pq.dropped) return;
    let delay = 0;
    try {
      const sub = host.subscriptionForPull(mq.topic);
      if (sub === undefined)
        throw new MQClientError(`no subscription of ${mq.topic}`, undefined, { group: host.consumerGroup });
      const wrapper = host.pullAPIWrapper as PullAPIWrapper;
      const begin = host.clock.now();
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
      this.stats.incPullRT(host.consumerGroup, mq.topic, host.clock.now() - begin);
      if (result.pullStatus === PullStatus.FOUND) {
        const msgs = result.msgFoundList;
        if (msgs.length > 0 && state.seekOffset === -1n) {
          this.stats.incPullTPS(host.consumerGroup, mq.topic, msgs.length);
          pq.putMessage(msgs);
          this.cache.put({ messages: msgs, mq, pq });
        }
      } else if (result.pullStatus === PullStatus.OFFSET_ILLEGAL) {
        host.logger.warn('the pull request offset illegal', {
          mq: mq.toString(),
          nextBeginOffset: result.nextBeginOffset,
        });
      }
      if (state.seekOffset === -1n) this.assigned.updatePullOffset(mq, result.nextBeginOffset, pq);
    } catch (error) {
      if (error instanceof RemotingAbortedError && (task.cancelled || this.shutdownSignal.aborted)) return;
      host.logger.warn(
        'an error occurred in pull message process',
        {
          mq: mq.toString(),
          error: errorText(error),
        },
        error,
      );
      delay = delayAfterPullFailure(
        host.consumerGroup,
        mq,
        error,
        host.clientConfig.pullTimeDelayMillsWhenException,
      );
    }
    this.schedule(task, delay);
  }

  /** A pending seek first (it becomes the consume offset), then where the last pull ended, else the store. */
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
    return computePullFromWhere(this.host.pullFromWhereContext(), mq);
  }
}
