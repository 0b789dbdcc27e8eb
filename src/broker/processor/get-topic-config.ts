import { encodeTopicConfigAndQueueMapping } from '../../common/protocol/topic-config-and-queue-mapping.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetTopicConfigRequestHeader } from '../../remoting/protocol/headers/get-topic-config-request-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_TOPIC_CONFIG (351, 5.x): one topic's config, which the 5.x mqadmin's topicStatus reads from every
 * broker of the route before asking for stats. TOPIC_NOT_EXIST with the 5.x broker's remark for a topic
 * this broker does not have. `lo` asks for a static-topic mapping, and we have none.
 */
export const getTopicConfig: BrokerRequestHandler = (broker, _ctx, request) => {
  const { topic } = decodeHeader(GetTopicConfigRequestHeader, request.extFields);
  const config = broker.topicConfigManager.selectTopicConfig(topic);
  if (config === undefined) {
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, {
      remark: `No topic in this broker. topic: ${topic}`,
    });
  }
  return createResponse(request, ResponseCode.SUCCESS, { body: encodeTopicConfigAndQueueMapping(config) });
};
