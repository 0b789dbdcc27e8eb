import { MixAll } from '../../common/constants.js';
import { decodeSetMessageRequestModeRequestBody } from '../../common/protocol/set-message-request-mode-body.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * SET_MESSAGE_REQUEST_MODE (401), upstream QueryAssignmentProcessor.setMessageRequestMode: stores
 * the mode of a topic and group and persists messageRequestMode.json. Retry topics stay PULL.
 */
export const setMessageRequestMode: BrokerRequestHandler = async (broker, _ctx, request) => {
  const body = decodeSetMessageRequestModeRequestBody(request.body);
  if (body.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
    return createResponse(request, ResponseCode.NO_PERMISSION, {
      remark: 'retry topic is not allowed to set mode',
    });
  }
  if (broker.topicConfigManager.selectTopicConfig(body.topic) === undefined) {
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, {
      remark: `topic[${body.topic}] not exist`,
    });
  }
  if (broker.subscriptionGroupManager.findSubscriptionGroupConfig(body.consumerGroup) === undefined) {
    return createResponse(request, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, {
      remark: 'subscription group does not exist',
    });
  }
  if (body.mode === undefined) {
    // Upstream would store a null mode and hand it to every member; refuse it instead.
    return createResponse(request, ResponseCode.INVALID_PARAMETER, { remark: 'mode must be PULL or POP' });
  }
  broker.messageRequestModeManager.setMessageRequestMode(body.topic, body.consumerGroup, body);
  await broker.messageRequestModeManager.persist();
  return createResponse(request, ResponseCode.SUCCESS);
};
