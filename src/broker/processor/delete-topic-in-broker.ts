import { MixAll } from '../../common/constants.js';
import { validateTopic } from '../../common/validators.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { DeleteTopicRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type BrokerRequestHandler, isSlave, SLAVE_REMARK } from './broker-context.js';

/**
 * DELETE_TOPIC_IN_BROKER (215): removes a topic's config, then lets the store drop the queues of
 * every topic no longer configured. The name server keeps the route until the admin tool deletes
 * it there too (DELETE_TOPIC_IN_NAMESRV), as upstream.
 */
export const deleteTopicInBroker: BrokerRequestHandler = async (broker, ctx, request) => {
  if (isSlave(broker)) return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: SLAVE_REMARK });
  const h = decodeHeader(DeleteTopicRequestHeader, request.extFields);
  broker.logger.info('deleteTopic called', { client: ctx.remoteAddress, topic: h.topic });
  validateTopic(h.topic);
  if (broker.topicConfigManager.isSystemTopic(h.topic)) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `The topic[${h.topic}] is conflict with system topic.`,
    });
  }
  // Light message queues have no topic config; upstream hands them to cleanUnusedLmqTopic, which
  // this store does not have (no LMQ support).
  if (MixAll.isLmq(h.topic)) return createResponse(request, ResponseCode.SUCCESS);
  broker.topicConfigManager.deleteTopicConfig(h.topic);
  await broker.topicConfigManager.flushed();
  await broker.messageStore.cleanUnusedTopic(new Set(broker.topicConfigManager.topicConfigTable.keys()));
  if (broker.config.autoDeleteUnusedStats) broker.brokerStatsManager.onTopicDeleted(h.topic);
  return createResponse(request, ResponseCode.SUCCESS);
};
