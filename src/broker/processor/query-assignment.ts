import { MixAll, PermName } from '../../common/constants.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { MessageRequestMode } from '../../common/protocol/message-request-mode.js';
import {
  decodeQueryAssignmentRequestBody,
  encodeQueryAssignmentResponseBody,
} from '../../common/protocol/query-assignment-body.js';
import type { SetMessageRequestModeRequestBody } from '../../common/protocol/set-message-request-mode-body.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { brokerAllocateStrategies, doLoadBalance } from '../loadbalance/assignment.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';

/** The mode set for the topic and group, else the broker's default (retry topics always PULL). */
export function requestModeOf(
  broker: BrokerContext,
  topic: string,
  consumerGroup: string,
): Readonly<SetMessageRequestModeRequestBody> {
  const set = broker.messageRequestModeManager.getMessageRequestMode(topic, consumerGroup);
  if (set !== undefined) return set;
  const mode = topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)
    ? MessageRequestMode.PULL
    : broker.config.defaultMessageRequestMode;
  return {
    topic,
    consumerGroup,
    mode,
    popShareQueueNum: mode === MessageRequestMode.POP ? broker.config.defaultPopShareQueueNum : 0,
  };
}

/** The topic's readable queues on this broker: the answer without a name server. */
function localSubscribeInfo(broker: BrokerContext, topic: string): MessageQueue[] | undefined {
  if (MixAll.isLmq(topic)) return [new MessageQueue(topic, broker.config.brokerName, 0)];
  const topicConfig = broker.topicConfigManager.selectTopicConfig(topic);
  if (topicConfig === undefined) return undefined;
  if (!PermName.isReadable(topicConfig.perm)) return [];
  const out: MessageQueue[] = [];
  for (let i = 0; i < topicConfig.readQueueNums; i++)
    out.push(new MessageQueue(topic, broker.config.brokerName, i));
  return out;
}

/**
 * QUERY_ASSIGNMENT (400), upstream QueryAssignmentProcessor.queryAssignment: the queues of a topic
 * this member of the group reads, each with the group's request mode (PULL or POP). An absent
 * `messageQueueAssignments` (Java null) tells the client to keep what it has.
 */
export const queryAssignment: BrokerRequestHandler = async (broker, _ctx, request) => {
  const body = decodeQueryAssignmentRequestBody(request.body);
  if (body.messageModel === undefined) {
    // Upstream's switch on a null enum fails with a NullPointerException (SYSTEM_ERROR).
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: 'QueryAssignmentRequestBody.messageModel must be CLUSTERING or BROADCASTING',
    });
  }
  const mode = requestModeOf(broker, body.topic, body.consumerGroup);
  const queues = doLoadBalance({
    ...body,
    mqSet: MixAll.isLmq(body.topic)
      ? localSubscribeInfo(broker, body.topic)
      : await broker.topicRouteInfoManager.getTopicSubscribeInfo(body.topic, () =>
          localSubscribeInfo(broker, body.topic),
        ),
    cidAll: broker.consumerManager.getConsumerGroupInfo(body.consumerGroup)?.getAllClientId(),
    mode,
    serverLoadBalancerEnable: broker.config.serverLoadBalancerEnable,
    strategies: brokerAllocateStrategies(broker.logger),
    logger: broker.logger,
  });
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeQueryAssignmentResponseBody({
      messageQueueAssignments: queues?.map((messageQueue) => ({ messageQueue, mode: mode.mode })),
    }),
  });
};
