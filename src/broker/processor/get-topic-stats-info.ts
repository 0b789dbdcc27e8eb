import { MessageQueue } from '../../common/message/message-queue.js';
import { javaMessageQueueMapOrder } from '../../common/protocol/message-queue-map.js';
import { encodeTopicStatsTable, type TopicOffset } from '../../common/protocol/topic-stats-table.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetTopicStatsInfoRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_TOPIC_STATS_INFO (202, `mqadmin topicStatus`): each write queue's min and max offset and the
 * store time of its newest message; TOPIC_NOT_EXIST for a topic this broker does not have.
 */
export const getTopicStatsInfo: BrokerRequestHandler = (broker, _ctx, request) => {
  const { topic } = decodeHeader(GetTopicStatsInfoRequestHeader, request.extFields);
  const topicConfig = broker.topicConfigManager.selectTopicConfig(topic);
  if (topicConfig === undefined) {
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, { remark: `topic[${topic}] not exist` });
  }
  const store = broker.messageStore;
  const entries: Array<[MessageQueue, TopicOffset]> = [];
  for (let i = 0; i < topicConfig.writeQueueNums; i++) {
    let minOffset = store.getMinOffsetInQueue(topic, i);
    if (minOffset < 0n) minOffset = 0n;
    let maxOffset = store.getMaxOffsetInQueue(topic, i);
    if (maxOffset < 0n) maxOffset = 0n;
    const lastUpdateTimestamp =
      maxOffset > 0n ? store.getMessageStoreTimeStamp(topic, i, maxOffset - 1n) : 0n;
    entries.push([
      new MessageQueue(topic, broker.config.brokerName, i),
      { minOffset, maxOffset, lastUpdateTimestamp },
    ]);
  }
  const body = encodeTopicStatsTable({ offsetTable: javaMessageQueueMapOrder(entries) });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
