/**
 * The dead-letter decision the two retry paths share (upstream SendMessageProcessor.handleRetryAndDLQ
 * for a send to `%RETRY%<group>`, asyncConsumerSendMsgBack for CONSUMER_SEND_MSG_BACK): how many
 * times a group's message may be consumed again, and the group's `%DLQ%<group>` topic.
 */
import { MixAll, MQVersion, PermName } from '../../common/constants.js';
import type { SubscriptionGroupConfig } from '../../common/protocol/subscription-group-config.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { BrokerContext } from './broker-context.js';
import { DLQ_NUMS_PER_GROUP, randomQueueId } from './send-message-support.js';

/** The group's retryMaxTimes, or the request's maxReconsumeTimes from clients of version 3.4.9 on. */
export function maxReconsumeTimesOf(
  request: RemotingCommand,
  groupConfig: Readonly<SubscriptionGroupConfig>,
  requested: number | undefined,
): number {
  if (request.version >= MQVersion.V3_4_9 && requested !== undefined) return requested;
  return groupConfig.retryMaxTimes;
}

export interface DeadLetterQueue {
  topic: string;
  queueId: number;
  topicConfig: Readonly<TopicConfig>;
}

/** `%DLQ%<group>`: one read-write queue, created on first use. */
export function deadLetterQueue(broker: BrokerContext, group: string): DeadLetterQueue {
  const topic = MixAll.getDLQTopic(group);
  const topicConfig = broker.topicConfigManager.createTopicInSendMessageBackMethod(
    topic,
    DLQ_NUMS_PER_GROUP,
    PermName.PERM_WRITE | PermName.PERM_READ,
    0,
  );
  return { topic, queueId: randomQueueId(DLQ_NUMS_PER_GROUP), topicConfig };
}
