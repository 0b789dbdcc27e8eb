/**
 * The checks NotificationProcessor, PollingInfoProcessor and PeekMessageProcessor share (upstream
 * repeats them in each): broker readable, topic exists and readable, queue id below readQueueNums
 * (INVALID_PARAMETER), group exists (or is auto-created) and may consume.
 */
import { PermName } from '../../common/constants.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext } from '../processor/broker-context.js';

export const POP_FAQ_TIP = '\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.';

/** The topic's config when the request may go on, else the refusal. */
export function checkPopTarget(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  h: { topic: string; queueId: number; consumerGroup: string },
  checkGroup = true,
): Readonly<TopicConfig> | RemotingCommand {
  const refuse = (code: number, remark: string) => createResponse(request, code, { remark });
  const config = broker.config;
  if (!PermName.isReadable(config.brokerPermission)) {
    return refuse(ResponseCode.NO_PERMISSION, `the broker[${config.brokerIP1}] peeking message is forbidden`);
  }
  const topicConfig = broker.topicConfigManager.selectTopicConfig(h.topic);
  if (topicConfig === undefined) {
    return refuse(
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${h.topic}] not exist, apply first please! ${POP_FAQ_TIP}`,
    );
  }
  if (!PermName.isReadable(topicConfig.perm)) {
    return refuse(ResponseCode.NO_PERMISSION, `the topic[${h.topic}] peeking message is forbidden`);
  }
  const queueId = h.queueId < 0 ? -1 : h.queueId;
  if (queueId >= topicConfig.readQueueNums) {
    return refuse(
      ResponseCode.INVALID_PARAMETER,
      `queueId[${queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[/${ctx.remoteAddress}]`,
    );
  }
  if (!checkGroup) return topicConfig;
  const group = broker.subscriptionGroupManager.findSubscriptionGroupConfig(h.consumerGroup);
  if (group === undefined) {
    return refuse(
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group [${h.consumerGroup}] does not exist, ${POP_FAQ_TIP}`,
    );
  }
  if (!group.consumeEnable) {
    return refuse(ResponseCode.NO_PERMISSION, `subscription group no permission, ${h.consumerGroup}`);
  }
  return topicConfig;
}

export function isRefusal(v: Readonly<TopicConfig> | RemotingCommand): v is RemotingCommand {
  return 'opaque' in v;
}
