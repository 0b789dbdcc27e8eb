import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_ALL_TOPIC_CONFIG (21): the TopicConfigSerializeWrapper (compact), as topics.json holds it. */
export const getAllTopicConfig: BrokerRequestHandler = (broker, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: Buffer.from(broker.topicConfigManager.encode(false), 'utf8'),
  });
