import { MessageQueue } from '../../common/message/message-queue.js';
import type { OffsetWrapper } from '../../common/protocol/consume-stats.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import type { BrokerContext } from './broker-context.js';

export interface TopicOffsetsOptions {
  /** GET_CONSUME_STATS walks the read queues, GET_BROKER_CONSUME_STATS the write queues (as upstream). */
  readonly queueNums: (config: Readonly<TopicConfig>) => number;
  /** GET_BROKER_CONSUME_STATS with isOrder: only ordered topics. */
  readonly orderedOnly?: boolean;
}

/**
 * One topic's queues as the consume-stats requests report them for a group: the broker's max offset,
 * the group's offset and the store time of the last message it consumed. Undefined where upstream
 * leaves the topic out: this broker does not have it, it is not ordered when only ordered topics are
 * asked for, or the group is online without subscribing to it.
 */
export function topicOffsets(
  broker: BrokerContext,
  group: string,
  topic: string,
  options: TopicOffsetsOptions,
): Array<[MessageQueue, OffsetWrapper]> | undefined {
  const topicConfig = broker.topicConfigManager.selectTopicConfig(topic);
  if (topicConfig === undefined) {
    broker.logger.warn('consumeStats, topic config not exist', { topic });
    return undefined;
  }
  if (options.orderedOnly === true && !topicConfig.order) return undefined;
  if (
    broker.consumerManager.findSubscriptionData(group, topic) === undefined &&
    broker.consumerManager.findSubscriptionDataCount(group) > 0
  ) {
    broker.logger.warn('consumeStats, the consumer group does not subscribe to the topic', { group, topic });
    return undefined;
  }
  const store = broker.messageStore;
  const entries: Array<[MessageQueue, OffsetWrapper]> = [];
  for (let i = 0; i < options.queueNums(topicConfig); i++) {
    let brokerOffset = store.getMaxOffsetInQueue(topic, i);
    if (brokerOffset < 0n) brokerOffset = 0n;
    let consumerOffset = broker.consumerOffsetManager.queryOffset(group, topic, i);
    if (consumerOffset < 0n) consumerOffset = 0n;
    let lastTimestamp = 0n;
    if (consumerOffset - 1n >= 0n) {
      const t = store.getMessageStoreTimeStamp(topic, i, consumerOffset - 1n);
      if (t > 0n) lastTimestamp = t;
    }
    entries.push([
      new MessageQueue(topic, broker.config.brokerName, i),
      { brokerOffset, consumerOffset, lastTimestamp },
    ]);
  }
  return entries;
}
