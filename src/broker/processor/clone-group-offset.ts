import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { CloneGroupOffsetRequestHeader } from '../../remoting/protocol/headers/clone-group-offset-request-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * CLONE_GROUP_OFFSET (314, AdminBrokerProcessor.cloneGroupOffset): destGroup takes srcGroup's
 * committed offsets in the topic, in memory (the periodic offset flush writes them). Skipped, still
 * answering SUCCESS: a topic this broker has no config for, and (unless `offline`) a topic the
 * source group's online consumers do not subscribe to. Upstream walks every topic of the source
 * group when the header has no topic, yet each step clones the header's (absent) topic, so such a
 * request copies nothing there; we answer it the same way.
 */
export const cloneGroupOffset: BrokerRequestHandler = (broker, ctx, request) => {
  const h = decodeHeader(CloneGroupOffsetRequestHeader, request.extFields);
  const topic = h.topic ?? '';
  broker.logger.info('cloneGroupOffset called', {
    client: ctx.remoteAddress,
    srcGroup: h.srcGroup,
    destGroup: h.destGroup,
    topic,
    offline: h.offline,
  });
  if (topic.trim() === '') return createResponse(request, ResponseCode.SUCCESS);
  if (broker.topicConfigManager.selectTopicConfig(topic) === undefined) {
    broker.logger.warn('[cloneGroupOffset], topic config not exist', { topic });
    return createResponse(request, ResponseCode.SUCCESS);
  }
  const consumers = broker.consumerManager;
  if (
    !h.offline &&
    consumers.findSubscriptionDataCount(h.srcGroup) > 0 &&
    consumers.findSubscriptionData(h.srcGroup, topic) === undefined
  ) {
    broker.logger.warn('[cloneGroupOffset], the consumer group does not subscribe to the topic', {
      group: h.srcGroup,
      topic,
    });
    return createResponse(request, ResponseCode.SUCCESS);
  }
  broker.consumerOffsetManager.cloneOffset(h.srcGroup, h.destGroup, topic);
  return createResponse(request, ResponseCode.SUCCESS);
};
