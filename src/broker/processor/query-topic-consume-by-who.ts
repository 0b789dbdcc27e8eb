import { javaHashMapOrder } from '../../common/fastjson/index.js';
import { encodeGroupList } from '../../common/protocol/group-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { QueryTopicConsumeByWhoRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** QUERY_TOPIC_CONSUME_BY_WHO (300): groups online that subscribe to the topic, plus groups with offsets in it. */
export const queryTopicConsumeByWho: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(QueryTopicConsumeByWhoRequestHeader, request.extFields);
  const groups = broker.consumerManager.queryTopicConsumeByWho(h.topic);
  for (const g of broker.consumerOffsetManager.whichGroupByTopic(h.topic)) groups.add(g);
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeGroupList(javaHashMapOrder([...groups])),
  });
};
