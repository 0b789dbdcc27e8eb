import { javaHashMapOrder } from '../../common/fastjson/index.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import { encodeConsumeStats, type OffsetWrapper } from '../../common/protocol/consume-stats.js';
import { javaMessageQueueMapOrder } from '../../common/protocol/message-queue-map.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumeStatsRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';
import { topicOffsets } from './consume-stats-support.js';

/**
 * GET_CONSUME_STATS (208, `mqadmin consumerProgress`): for the given topic, or (blank topic) every
 * topic the group has offsets in, each read queue's max offset, the group's offset and the store
 * time of the last message it consumed, and the group's pull TPS. Topics this broker does not have,
 * and topics an online group does not subscribe to, are left out (always SUCCESS, as upstream).
 */
export const getConsumeStats: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(GetConsumeStatsRequestHeader, request.extFields);
  const group = h.consumerGroup;
  // Upstream iterates a HashSet of topics: its order decides the offset table's insertion order.
  const topics =
    h.topic === undefined || h.topic.trim() === ''
      ? javaHashMapOrder([...broker.consumerOffsetManager.whichTopicByConsumer(group)])
      : [h.topic];
  const entries: Array<[MessageQueue, OffsetWrapper]> = [];
  let consumeTps = 0;
  for (const topic of topics) {
    const queues = topicOffsets(broker, group, topic, { queueNums: (c) => c.readQueueNums });
    if (queues === undefined) continue;
    entries.push(...queues);
    consumeTps += broker.brokerStatsManager.tpsGroupGetNums(group, topic);
  }
  const body = encodeConsumeStats({ offsetTable: javaMessageQueueMapOrder(entries), consumeTps });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
