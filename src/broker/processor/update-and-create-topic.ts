import { PermName } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { createTopicConfig, isTopicFilterType } from '../../common/protocol/topic-config.js';
import { validateTopic } from '../../common/validators.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { CreateTopicRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type BrokerRequestHandler, isSlave, SLAVE_REMARK } from './broker-context.js';

/**
 * UPDATE_AND_CREATE_TOPIC (17): creates or replaces a topic, writes topics.json and registers the
 * topic with every name server before answering. The topic must be a valid, non-system name, its perm
 * one PermName.isValid takes; an unknown topicFilterType is refused (Java's valueOf would fail the same way).
 */
export const updateAndCreateTopic: BrokerRequestHandler = async (broker, ctx, request) => {
  if (isSlave(broker)) return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: SLAVE_REMARK });
  const h = decodeHeader(CreateTopicRequestHeader, request.extFields);
  broker.logger.info('updateAndCreateTopic called', { client: ctx.remoteAddress, topic: h.topic });
  validateTopic(h.topic);
  if (broker.topicConfigManager.isSystemTopic(h.topic)) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `The topic[${h.topic}] is conflict with system topic.`,
    });
  }
  // Upstream's admin refuses this before sending (Validators.checkTopicConfig); a peer that skips the
  // check gets the same code and remark rather than a topic no client can use as it reads.
  if (!PermName.isValid(h.perm)) {
    return createResponse(request, ResponseCode.NO_PERMISSION, {
      remark: PermName.invalidTopicPermRemark(h.perm),
    });
  }
  if (!isTopicFilterType(h.topicFilterType)) {
    throw new ValidationError(`No enum constant TopicFilterType.${h.topicFilterType}`);
  }
  const topicConfig = createTopicConfig(h.topic, {
    readQueueNums: h.readQueueNums,
    writeQueueNums: h.writeQueueNums,
    perm: h.perm,
    topicFilterType: h.topicFilterType,
    topicSysFlag: h.topicSysFlag ?? 0,
  });
  broker.topicConfigManager.updateTopicConfig(topicConfig);
  await broker.topicConfigManager.flushed();
  await broker.registerIncrementBrokerData(topicConfig, broker.topicConfigManager.dataVersion);
  return createResponse(request, ResponseCode.SUCCESS);
};
