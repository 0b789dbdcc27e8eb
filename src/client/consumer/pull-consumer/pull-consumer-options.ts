/** Pull consumer options (upstream DefaultMQPullConsumer's fields), with upstream's names and defaults. */
import { ValidationError } from '../../../common/errors.js';
import { MessageModel } from '../../../common/protocol/heartbeat-data.js';
import type { ClientOptions } from '../../client-config.js';
import {
  checkConsumerGroup,
  checkLocalOffsetStoreDir,
  checkLongPolling,
  checkStrategy,
  integer,
  oneOf,
} from '../consumer-options.js';
import type { MessageQueueListener } from '../message-queue-listener.js';
import type { AllocateMessageQueueStrategy } from '../rebalance/allocate/allocate-message-queue-strategy.js';

export interface PullConsumerOptions extends ClientOptions {
  consumerGroup: string;
  /** CLUSTERING [default] or BROADCASTING. */
  messageModel?: MessageModel | undefined;
  allocateMessageQueueStrategy?: AllocateMessageQueueStrategy | undefined;
  /** Topics rebalanced over the group (fetchMessageQueuesInBalance, the message queue listener). */
  registerTopics?: readonly string[] | undefined;
  /** Hears the queues of a registered topic this member holds change. */
  messageQueueListener?: MessageQueueListener | undefined;
  /** How long a broker may hold a pullBlockIfNotFound with no new messages, ms [20000]. */
  brokerSuspendMaxTimeMillis?: number | undefined;
  /** Timeout of a pullBlockIfNotFound, ms; more than brokerSuspendMaxTimeMillis [30000]. */
  consumerTimeoutMillisWhenSuspend?: number | undefined;
  /** Timeout of a pull, ms [10000]. */
  consumerPullTimeoutMillis?: number | undefined;
  /** Retries before a message sent back goes to the DLQ [16]. */
  maxReconsumeTimes?: number | undefined;
  /** Directory of broadcasting consumers' offset files [~/.rocketmq_offsets]. */
  localOffsetStoreDir?: string | undefined;
}

export interface ResolvedPullConsumerOptions {
  readonly consumerGroup: string;
  readonly messageModel: MessageModel;
  readonly allocateMessageQueueStrategy: AllocateMessageQueueStrategy | undefined;
  readonly registerTopics: readonly string[];
  readonly brokerSuspendMaxTimeMillis: number;
  readonly consumerTimeoutMillisWhenSuspend: number;
  readonly consumerPullTimeoutMillis: number;
  readonly maxReconsumeTimes: number;
  readonly localOffsetStoreDir: string | undefined;
}

export const DEFAULT_PULL_CONSUMER_OPTIONS = Object.freeze({
  messageModel: MessageModel.CLUSTERING,
  brokerSuspendMaxTimeMillis: 20_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  consumerPullTimeoutMillis: 10_000,
  maxReconsumeTimes: 16,
});

export function resolvePullConsumerOptions(options: PullConsumerOptions): ResolvedPullConsumerOptions {
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('consumer options must be an object with a consumerGroup', -1);
  }
  const d = DEFAULT_PULL_CONSUMER_OPTIONS;
  checkConsumerGroup(options.consumerGroup);
  const topics = options.registerTopics ?? [];
  if (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string' || t.length === 0)) {
    throw new ValidationError('registerTopics must be a list of topic names', -1);
  }
  if (options.messageQueueListener !== undefined && typeof options.messageQueueListener !== 'function') {
    throw new ValidationError('messageQueueListener must be a function (topic, mqAll, mqDivided)', -1);
  }
  const dir = checkLocalOffsetStoreDir(options.localOffsetStoreDir);
  const resolved: ResolvedPullConsumerOptions = {
    consumerGroup: options.consumerGroup,
    messageModel: oneOf('messageModel', options.messageModel, MessageModel, d.messageModel),
    allocateMessageQueueStrategy: checkStrategy(options.allocateMessageQueueStrategy),
    registerTopics: [...topics],
    brokerSuspendMaxTimeMillis: integer(
      'brokerSuspendMaxTimeMillis',
      options.brokerSuspendMaxTimeMillis ?? d.brokerSuspendMaxTimeMillis,
      0,
    ),
    consumerTimeoutMillisWhenSuspend: integer(
      'consumerTimeoutMillisWhenSuspend',
      options.consumerTimeoutMillisWhenSuspend ?? d.consumerTimeoutMillisWhenSuspend,
      1,
    ),
    consumerPullTimeoutMillis: integer(
      'consumerPullTimeoutMillis',
      options.consumerPullTimeoutMillis ?? d.consumerPullTimeoutMillis,
      1,
    ),
    maxReconsumeTimes: integer('maxReconsumeTimes', options.maxReconsumeTimes ?? d.maxReconsumeTimes, 0),
    localOffsetStoreDir: dir,
  };
  checkLongPolling(resolved);
  return resolved;
}
