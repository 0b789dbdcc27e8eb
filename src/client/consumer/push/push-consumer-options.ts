/**
 * Push consumer options (upstream DefaultMQPushConsumer's fields and the constants of
 * DefaultMQPushConsumerImpl and the consume services), upstream's names and defaults, checked once
 * at creation so a bad value fails there with the option's name.
 */
import { ValidationError } from '../../../common/errors.js';
import { ConsumeFromWhere, MessageModel } from '../../../common/protocol/heartbeat-data.js';
import type { ClientOptions } from '../../client-config.js';
import {
  checkConsumerGroup,
  checkLocalOffsetStoreDir,
  checkStrategy,
  flag,
  integer,
  oneOf,
  parseConsumeTimestamp,
} from '../consumer-options.js';
import { DEFAULT_PROCESS_QUEUE_SETTINGS } from '../process-queue.js';
import type { AllocateMessageQueueStrategy } from '../rebalance/allocate/allocate-message-queue-strategy.js';

export interface PushConsumerOptions extends ClientOptions {
  /** Required: members of a group share its queues (clustering) or each get everything (broadcasting). */
  consumerGroup: string;
  /** CLUSTERING [default] or BROADCASTING. */
  messageModel?: MessageModel | undefined;
  /** Where a group without a stored offset starts [CONSUME_FROM_LAST_OFFSET]. */
  consumeFromWhere?: ConsumeFromWhere | undefined;
  /**
   * Start of CONSUME_FROM_TIMESTAMP: upstream's `yyyyMMddHHmmss` text (local time), a Date, or ms
   * since the epoch [half an hour before the consumer was created].
   */
  consumeTimestamp?: string | Date | number | undefined;
  /** How the group's queues are shared [AllocateMessageQueueAveragely]. */
  allocateMessageQueueStrategy?: AllocateMessageQueueStrategy | undefined;
  /** Listeners run at most this many at once (upstream consumeThreadMin/Max) [20]. */
  consumeConcurrency?: number | undefined;
  /** Concurrently: pulls of a queue pause while its cached offsets span more than this [2000]. */
  consumeConcurrentlyMaxSpan?: number | undefined;
  /** Pulls of a queue pause while it caches more messages than this [1000]. */
  pullThresholdForQueue?: number | undefined;
  /** Pulls of a queue pause while its cached bodies take more than this, MiB [100]. */
  pullThresholdSizeForQueue?: number | undefined;
  /** Messages cached for all queues of a topic; overrides pullThresholdForQueue [-1, off]. */
  pullThresholdForTopic?: number | undefined;
  /** MiB cached for all queues of a topic; overrides pullThresholdSizeForQueue [-1, off]. */
  pullThresholdSizeForTopic?: number | undefined;
  /** Pause between two pulls of a queue, ms [0]. */
  pullInterval?: number | undefined;
  /** Messages asked per pull [32]. */
  pullBatchSize?: number | undefined;
  /** Messages per listener call [1]. */
  consumeMessageBatchMaxSize?: number | undefined;
  /** Send the subscription expression with every pull [false]. */
  postSubscriptionWhenPull?: boolean | undefined;
  /** Retries before a message goes to the DLQ; -1 means 16 (orderly: Integer.MAX_VALUE) [-1]. */
  maxReconsumeTimes?: number | undefined;
  /** Orderly: pause after SUSPEND_CURRENT_QUEUE_A_MOMENT, ms [1000]. */
  suspendCurrentQueueTimeMillis?: number | undefined;
  /** Concurrently: a message consuming for longer is sent back and dropped from the cache, minutes [15]. */
  consumeTimeout?: number | undefined;
  /** How long shutdown waits for running listeners, ms [0: not at all]. */
  awaitTerminationMillisWhenShutdown?: number | undefined;
  /** Directory of broadcasting consumers' offset files (`rocketmq.client.localOffsetStoreDir`) [~/.rocketmq_offsets]. */
  localOffsetStoreDir?: string | undefined;
  /** Pause before pulling a queue that hit a flow-control threshold, ms [50]. */
  pullTimeDelayMillsWhenFlowControl?: number | undefined;
  /** Pause before pulling again while the consumer is suspended, ms [1000]. */
  pullTimeDelayMillsWhenSuspend?: number | undefined;
  /** How long a broker may hold a pull with no new messages (long polling), ms [15000]. */
  brokerSuspendMaxTimeMillis?: number | undefined;
  /** Timeout of a long-polling pull, ms [30000]. */
  consumerTimeoutMillisWhenSuspend?: number | undefined;
  /** Concurrently: a message whose send-back failed is consumed again locally after this, ms [5000]. */
  consumeRetryDelayWhenSendBackFailed?: number | undefined;
  /** Orderly: broker locks are renewed this often (`rocketmq.client.rebalance.lockInterval`), ms [20000]. */
  lockInterval?: number | undefined;
  /** Orderly: a lock not renewed for this long counts as lost (`rocketmq.client.rebalance.lockMaxLiveTime`), ms [30000]. */
  lockMaxLiveTime?: number | undefined;
  /**
   * Orderly: when a queue allocated to this member is still locked by its previous owner, rebalance
   * again after this long instead of waiting for the next rebalance (ours, not upstream's), ms [1000].
   */
  lockRetryInterval?: number | undefined;
  /** A queue not pulled for this long is rebuilt (`rocketmq.client.pull.pullMaxIdleTime`), ms [120000]. */
  pullMaxIdleTime?: number | undefined;
  /** Orderly: a worker yields its queue after consuming for this long (`rocketmq.client.maxTimeConsumeContinuously`), ms [60000]. */
  maxTimeConsumeContinuously?: number | undefined;
  /**
   * true [default]: the members share the queues themselves (allocateMessageQueueStrategy). false:
   * the broker assigns them (QUERY_ASSIGNMENT) and says per queue whether to pull or pop (its
   * request mode, `rmq admin setConsumeMode`); orderly and broadcasting consumers always rebalance
   * themselves, as upstream.
   */
  clientRebalance?: boolean | undefined;
  /** POP: how long popped messages stay invisible to the other members, ms in [5000, 300000] [60000]. */
  popInvisibleTime?: number | undefined;
  /** POP: messages asked per pop, 1..32 [32]. */
  popBatchNums?: number | undefined;
  /** POP: pops of a queue pause while more of its messages than this wait for their ack [96]. */
  popThresholdForQueue?: number | undefined;
}

export interface ResolvedPushConsumerOptions {
  readonly consumerGroup: string;
  readonly messageModel: MessageModel;
  readonly consumeFromWhere: ConsumeFromWhere;
  /** ms since the epoch. */
  readonly consumeTimestamp: number;
  readonly allocateMessageQueueStrategy: AllocateMessageQueueStrategy | undefined;
  consumeConcurrency: number;
  readonly consumeConcurrentlyMaxSpan: number;
  pullThresholdForQueue: number;
  pullThresholdSizeForQueue: number;
  readonly pullThresholdForTopic: number;
  readonly pullThresholdSizeForTopic: number;
  readonly pullInterval: number;
  readonly pullBatchSize: number;
  readonly consumeMessageBatchMaxSize: number;
  readonly postSubscriptionWhenPull: boolean;
  readonly maxReconsumeTimes: number;
  readonly suspendCurrentQueueTimeMillis: number;
  readonly consumeTimeout: number;
  readonly awaitTerminationMillisWhenShutdown: number;
  readonly localOffsetStoreDir: string | undefined;
  readonly pullTimeDelayMillsWhenFlowControl: number;
  readonly pullTimeDelayMillsWhenSuspend: number;
  readonly brokerSuspendMaxTimeMillis: number;
  readonly consumerTimeoutMillisWhenSuspend: number;
  readonly consumeRetryDelayWhenSendBackFailed: number;
  readonly lockInterval: number;
  readonly lockMaxLiveTime: number;
  readonly lockRetryInterval: number;
  readonly pullMaxIdleTime: number;
  readonly maxTimeConsumeContinuously: number;
  readonly clientRebalance: boolean;
  readonly popInvisibleTime: number;
  readonly popBatchNums: number;
  readonly popThresholdForQueue: number;
}

export const DEFAULT_PUSH_CONSUMER_OPTIONS = Object.freeze({
  messageModel: MessageModel.CLUSTERING,
  consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
  consumeConcurrency: 20,
  consumeConcurrentlyMaxSpan: 2000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  pullThresholdForTopic: -1,
  pullThresholdSizeForTopic: -1,
  pullInterval: 0,
  pullBatchSize: 32,
  consumeMessageBatchMaxSize: 1,
  postSubscriptionWhenPull: false,
  maxReconsumeTimes: -1,
  suspendCurrentQueueTimeMillis: 1000,
  consumeTimeout: 15,
  awaitTerminationMillisWhenShutdown: 0,
  pullTimeDelayMillsWhenFlowControl: 50,
  pullTimeDelayMillsWhenSuspend: 1000,
  brokerSuspendMaxTimeMillis: 15_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  consumeRetryDelayWhenSendBackFailed: 5000,
  lockInterval: 20_000,
  lockMaxLiveTime: DEFAULT_PROCESS_QUEUE_SETTINGS.lockMaxLiveTime,
  lockRetryInterval: 1000,
  pullMaxIdleTime: DEFAULT_PROCESS_QUEUE_SETTINGS.pullMaxIdleTime,
  maxTimeConsumeContinuously: 60_000,
  clientRebalance: true,
  popInvisibleTime: 60_000,
  popBatchNums: 32,
  popThresholdForQueue: 96,
  /** Half an hour before now, upstream's default consumeTimestamp. */
  consumeTimestampAgoMs: 30 * 60_000,
});

/** Defaults applied and every value checked; `now` gives the default consumeTimestamp. */
export function resolvePushConsumerOptions(
  options: PushConsumerOptions,
  now: number,
): ResolvedPushConsumerOptions {
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('consumer options must be an object with a consumerGroup', -1);
  }
  const d = DEFAULT_PUSH_CONSUMER_OPTIONS;
  checkConsumerGroup(options.consumerGroup);
  const strategy = checkStrategy(options.allocateMessageQueueStrategy);
  const int = <K extends keyof typeof d>(
    key: K & keyof PushConsumerOptions,
    min: number,
    max?: number,
  ): number => integer(key, options[key] ?? d[key], min, max);
  // Upstream's checkConfig bounds: [1, 6553500] messages and [1, 102400] MiB, or -1 (off).
  const pullThresholdForTopic = int('pullThresholdForTopic', -1, 6_553_500);
  const pullThresholdSizeForTopic = int('pullThresholdSizeForTopic', -1, 102_400);
  for (const [name, value] of [
    ['pullThresholdForTopic', pullThresholdForTopic],
    ['pullThresholdSizeForTopic', pullThresholdSizeForTopic],
  ] as const) {
    if (value === 0) throw new ValidationError(`${name} must be -1 (off) or >= 1, got 0`, -1);
  }
  const dir = checkLocalOffsetStoreDir(options.localOffsetStoreDir);
  return {
    consumerGroup: options.consumerGroup,
    messageModel: oneOf('messageModel', options.messageModel, MessageModel, d.messageModel),
    consumeFromWhere: oneOf(
      'consumeFromWhere',
      options.consumeFromWhere,
      ConsumeFromWhere,
      d.consumeFromWhere,
    ),
    consumeTimestamp:
      options.consumeTimestamp === undefined
        ? now - d.consumeTimestampAgoMs
        : parseConsumeTimestamp(options.consumeTimestamp),
    allocateMessageQueueStrategy: strategy,
    consumeConcurrency: int('consumeConcurrency', 1, 1000),
    consumeConcurrentlyMaxSpan: int('consumeConcurrentlyMaxSpan', 1, 65535),
    pullThresholdForQueue: int('pullThresholdForQueue', 1, 65535),
    pullThresholdSizeForQueue: int('pullThresholdSizeForQueue', 1, 1024),
    pullThresholdForTopic,
    pullThresholdSizeForTopic,
    pullInterval: int('pullInterval', 0, 65535),
    pullBatchSize: int('pullBatchSize', 1, 1024),
    consumeMessageBatchMaxSize: int('consumeMessageBatchMaxSize', 1, 1024),
    postSubscriptionWhenPull: flag(
      'postSubscriptionWhenPull',
      options.postSubscriptionWhenPull,
      d.postSubscriptionWhenPull,
    ),
    maxReconsumeTimes: int('maxReconsumeTimes', -1),
    suspendCurrentQueueTimeMillis: int('suspendCurrentQueueTimeMillis', 0),
    consumeTimeout: int('consumeTimeout', 1),
    awaitTerminationMillisWhenShutdown: int('awaitTerminationMillisWhenShutdown', 0),
    localOffsetStoreDir: dir,
    pullTimeDelayMillsWhenFlowControl: int('pullTimeDelayMillsWhenFlowControl', 0),
    pullTimeDelayMillsWhenSuspend: int('pullTimeDelayMillsWhenSuspend', 0),
    brokerSuspendMaxTimeMillis: int('brokerSuspendMaxTimeMillis', 0),
    consumerTimeoutMillisWhenSuspend: int('consumerTimeoutMillisWhenSuspend', 1),
    consumeRetryDelayWhenSendBackFailed: int('consumeRetryDelayWhenSendBackFailed', 0),
    lockInterval: int('lockInterval', 1),
    lockMaxLiveTime: int('lockMaxLiveTime', 1),
    lockRetryInterval: int('lockRetryInterval', 1),
    pullMaxIdleTime: int('pullMaxIdleTime', 1),
    maxTimeConsumeContinuously: int('maxTimeConsumeContinuously', 1),
    clientRebalance: flag('clientRebalance', options.clientRebalance, d.clientRebalance),
    // Upstream's checkConfig bounds (MIN_POP_INVISIBLE_TIME, MAX_POP_INVISIBLE_TIME, popBatchNums).
    popInvisibleTime: int('popInvisibleTime', 5000, 300_000),
    popBatchNums: int('popBatchNums', 1, 32),
    popThresholdForQueue: int('popThresholdForQueue', 1),
  };
}
