/**
 * Lite pull consumer options (upstream DefaultLitePullConsumer's fields and
 * DefaultLitePullConsumerImpl's constants), with upstream's names and defaults.
 */
import { ValidationError } from '../../../common/errors.js';
import { ConsumeFromWhere, MessageModel } from '../../../common/protocol/heartbeat-data.js';
import type { ClientOptions } from '../../client-config.js';
import {
  checkConsumerGroup,
  checkLocalOffsetStoreDir,
  checkLongPolling,
  checkStrategy,
  flag,
  integer,
  oneOf,
  parseConsumeTimestamp,
} from '../consumer-options.js';
import type { AllocateMessageQueueStrategy } from '../rebalance/allocate/allocate-message-queue-strategy.js';

export interface LitePullConsumerOptions extends ClientOptions {
  consumerGroup: string;
  /** CLUSTERING [default] or BROADCASTING. */
  messageModel?: MessageModel | undefined;
  /** Where a group without a stored offset starts: LAST [default], FIRST or TIMESTAMP. */
  consumeFromWhere?: ConsumeFromWhere | undefined;
  /** Start of CONSUME_FROM_TIMESTAMP: `yyyyMMddHHmmss` (local time), a Date or ms [half an hour ago]. */
  consumeTimestamp?: string | Date | number | undefined;
  allocateMessageQueueStrategy?: AllocateMessageQueueStrategy | undefined;
  /** Commit what poll returned every autoCommitIntervalMillis [true]. */
  autoCommit?: boolean | undefined;
  /** ms, at least 1000 [5000]. */
  autoCommitIntervalMillis?: number | undefined;
  /** Messages asked per pull [10]. */
  pullBatchSize?: number | undefined;
  /** Pulls pause while more than this many messages wait for poll, over all queues [10000]. */
  pullThresholdForAll?: number | undefined;
  /** Pulls of a queue pause while it caches more messages than this [1000]. */
  pullThresholdForQueue?: number | undefined;
  /** Pulls of a queue pause while its cached bodies take more than this, MiB [100]. */
  pullThresholdSizeForQueue?: number | undefined;
  /** Pulls of a queue pause while its cached offsets span more than this [2000]. */
  consumeMaxSpan?: number | undefined;
  /** How long poll() waits by default, ms [5000]. */
  pollTimeoutMillis?: number | undefined;
  /** How often queue changes of topics with a change listener are looked for, ms [30000]. */
  topicMetadataCheckIntervalMillis?: number | undefined;
  /** How long a broker may hold a pull with no new messages, ms [20000]. */
  brokerSuspendMaxTimeMillis?: number | undefined;
  /** Timeout of a long-polling pull, ms; more than brokerSuspendMaxTimeMillis [30000]. */
  consumerTimeoutMillisWhenSuspend?: number | undefined;
  /** Timeout of a pull that does not wait at the broker, ms [10000]. */
  consumerPullTimeoutMillis?: number | undefined;
  /** Directory of broadcasting consumers' offset files [~/.rocketmq_offsets]. */
  localOffsetStoreDir?: string | undefined;
  /** Pause before pulling a queue that hit a flow-control threshold, ms [50]. */
  pullTimeDelayMillsWhenFlowControl?: number | undefined;
  /** Pause before pulling a paused queue again, ms [1000]. */
  pullTimeDelayMillsWhenPause?: number | undefined;
  /** Pause after the next pull offset could not be computed, ms [3000]. */
  pullTimeDelayMillsOnException?: number | undefined;
}

export interface ResolvedLitePullConsumerOptions {
  readonly consumerGroup: string;
  readonly messageModel: MessageModel;
  readonly consumeFromWhere: ConsumeFromWhere;
  readonly consumeTimestamp: number;
  readonly allocateMessageQueueStrategy: AllocateMessageQueueStrategy | undefined;
  readonly autoCommit: boolean;
  readonly autoCommitIntervalMillis: number;
  readonly pullBatchSize: number;
  readonly pullThresholdForAll: number;
  readonly pullThresholdForQueue: number;
  readonly pullThresholdSizeForQueue: number;
  readonly consumeMaxSpan: number;
  readonly pollTimeoutMillis: number;
  readonly topicMetadataCheckIntervalMillis: number;
  readonly brokerSuspendMaxTimeMillis: number;
  readonly consumerTimeoutMillisWhenSuspend: number;
  readonly consumerPullTimeoutMillis: number;
  readonly localOffsetStoreDir: string | undefined;
  readonly pullTimeDelayMillsWhenFlowControl: number;
  readonly pullTimeDelayMillsWhenPause: number;
  readonly pullTimeDelayMillsOnException: number;
}

export const DEFAULT_LITE_PULL_CONSUMER_OPTIONS = Object.freeze({
  messageModel: MessageModel.CLUSTERING,
  consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
  autoCommit: true,
  autoCommitIntervalMillis: 5000,
  pullBatchSize: 10,
  pullThresholdForAll: 10_000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  consumeMaxSpan: 2000,
  pollTimeoutMillis: 5000,
  topicMetadataCheckIntervalMillis: 30_000,
  brokerSuspendMaxTimeMillis: 20_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  consumerPullTimeoutMillis: 10_000,
  pullTimeDelayMillsWhenFlowControl: 50,
  pullTimeDelayMillsWhenPause: 1000,
  pullTimeDelayMillsOnException: 3000,
  consumeTimestampAgoMs: 30 * 60_000,
});

/** Upstream's setConsumeFromWhere refuses the deprecated starting points. */
const LITE_PULL_CONSUME_FROM_WHERE = Object.freeze({
  CONSUME_FROM_LAST_OFFSET: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
  CONSUME_FROM_FIRST_OFFSET: ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
  CONSUME_FROM_TIMESTAMP: ConsumeFromWhere.CONSUME_FROM_TIMESTAMP,
});

/** Upstream's MIN_AUTOCOMMIT_INTERVAL_MILLIS. */
const MIN_AUTOCOMMIT_INTERVAL_MILLIS = 1000;

export function resolveLitePullConsumerOptions(
  options: LitePullConsumerOptions,
  now: number,
): ResolvedLitePullConsumerOptions {
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('consumer options must be an object with a consumerGroup', -1);
  }
  const d = DEFAULT_LITE_PULL_CONSUMER_OPTIONS;
  checkConsumerGroup(options.consumerGroup);
  const int = (key: keyof typeof d & keyof LitePullConsumerOptions, min: number, max?: number): number =>
    integer(key, options[key] ?? d[key], min, max);
  const dir = checkLocalOffsetStoreDir(options.localOffsetStoreDir);
  const resolved: ResolvedLitePullConsumerOptions = {
    consumerGroup: options.consumerGroup,
    messageModel: oneOf('messageModel', options.messageModel, MessageModel, d.messageModel),
    consumeFromWhere: oneOf(
      'consumeFromWhere',
      options.consumeFromWhere,
      LITE_PULL_CONSUME_FROM_WHERE,
      d.consumeFromWhere,
    ),
    consumeTimestamp:
      options.consumeTimestamp === undefined
        ? now - d.consumeTimestampAgoMs
        : parseConsumeTimestamp(options.consumeTimestamp),
    allocateMessageQueueStrategy: checkStrategy(options.allocateMessageQueueStrategy),
    autoCommit: flag('autoCommit', options.autoCommit, d.autoCommit),
    autoCommitIntervalMillis: int('autoCommitIntervalMillis', MIN_AUTOCOMMIT_INTERVAL_MILLIS),
    pullBatchSize: int('pullBatchSize', 1, 1024),
    pullThresholdForAll: int('pullThresholdForAll', 1),
    pullThresholdForQueue: int('pullThresholdForQueue', 1, 65535),
    pullThresholdSizeForQueue: int('pullThresholdSizeForQueue', 1, 1024),
    consumeMaxSpan: int('consumeMaxSpan', 1, 65535),
    pollTimeoutMillis: int('pollTimeoutMillis', 0),
    topicMetadataCheckIntervalMillis: int('topicMetadataCheckIntervalMillis', 1),
    brokerSuspendMaxTimeMillis: int('brokerSuspendMaxTimeMillis', 0),
    consumerTimeoutMillisWhenSuspend: int('consumerTimeoutMillisWhenSuspend', 1),
    consumerPullTimeoutMillis: int('consumerPullTimeoutMillis', 1),
    localOffsetStoreDir: dir,
    pullTimeDelayMillsWhenFlowControl: int('pullTimeDelayMillsWhenFlowControl', 0),
    pullTimeDelayMillsWhenPause: int('pullTimeDelayMillsWhenPause', 0),
    pullTimeDelayMillsOnException: int('pullTimeDelayMillsOnException', 0),
  };
  checkLongPolling(resolved);
  return resolved;
}
