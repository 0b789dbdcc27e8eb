import { javaHashMapOrder } from '../../common/fastjson/index.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import { encodeConsumeStats, type OffsetWrapper } from '../../common/protocol/consume-stats.js';
import { javaMessageQueueMapOrder } from '../../common/protocol/message-queue-map.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumeStatsRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';
import { topicOffsets } from './consume-stats-support.js';

/**
 * GET_CONSUME_STATS (208, `mqadmin consumerProgress`): for the given topic, or (blank topic) every
 * topic the group has offsets in, each read queue's max offset, the group's offset and the store
 * time of the last message it consumed, 5.x's pullOffset, and the group's pull TPS. Topics this broker does not have,
 * and topics an online group does not subscribe to, are left out (always SUCCESS, as upstream).
 */
/**
 * 5.x's pullOffset: upstream writes max(consumerOffset, the pull offset it recorded), so 5.x mqadmin's
 * `#Inflight` is what was taken out and not committed. A POP group commits its offset at pop time
 * (upstream shows 0 there); ours adds the queue's POP in-flight count (popped, neither acked nor
 * revived), so the official 5.x `consumerProgress` shows it in its own column. A PULL group's pulls
 * are not recorded here: its pullOffset is its consumerOffset.
 */
function pullOffsetOf(
  broker: BrokerContext,
  group: string,
  topic: string,
  queueId: number,
  o: OffsetWrapper,
): bigint {
  const inflight = broker.popRevive.inflight.getGroupPopInFlightMessageNum(topic, group, queueId);
  return o.consumerOffset + BigInt(inflight);
}

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
    for (const [mq, o] of queues) o.pullOffset = pullOffsetOf(broker, group, mq.topic, mq.queueId, o);
    entries.push(...queues);
    consumeTps += broker.brokerStatsManager.tpsGroupGetNums(group, topic);
  }
  const body = encodeConsumeStats({ offsetTable: javaMessageQueueMapOrder(entries), consumeTps });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
