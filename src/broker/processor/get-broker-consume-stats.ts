import { javaHashMapOrder } from '../../common/fastjson/index.js';
import { type ConsumeStats, computeTotalDiff } from '../../common/protocol/consume-stats.js';
import { encodeConsumeStatsList } from '../../common/protocol/consume-stats-list.js';
import { javaMessageQueueMapOrder } from '../../common/protocol/message-queue-map.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumeStatsInBrokerHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';
import { topicOffsets } from './consume-stats-support.js';

/**
 * GET_BROKER_CONSUME_STATS (317, `mqadmin brokerConsumeStats`): for every subscription group, one
 * ConsumeStats per topic it has offsets in (each write queue; with `isOrder` only ordered topics),
 * and the total of messages not yet consumed. Same skips as GET_CONSUME_STATS; always SUCCESS.
 */
export const getBrokerConsumeStats: BrokerRequestHandler = (broker, _ctx, request) => {
  const { isOrder } = decodeHeader(GetConsumeStatsInBrokerHeader, request.extFields);
  let totalDiff = 0n;
  const consumeStatsList: Array<[string, ConsumeStats[]]> = [];
  // Upstream walks the group table (a ConcurrentHashMap) and a HashSet of topics: their order is the body's.
  for (const group of broker.subscriptionGroupManager.groupNamesInJavaOrder()) {
    const perTopic: ConsumeStats[] = [];
    for (const topic of javaHashMapOrder([...broker.consumerOffsetManager.whichTopicByConsumer(group)])) {
      const queues = topicOffsets(broker, group, topic, {
        queueNums: (c) => c.writeQueueNums,
        orderedOnly: isOrder,
      });
      if (queues === undefined) continue;
      const stats: ConsumeStats = {
        offsetTable: javaMessageQueueMapOrder(queues),
        consumeTps: broker.brokerStatsManager.tpsGroupGetNums(group, topic),
      };
      totalDiff += computeTotalDiff(stats);
      perTopic.push(stats);
    }
    consumeStatsList.push([group, perTopic]);
  }
  const body = encodeConsumeStatsList({ brokerAddr: broker.brokerAddr, consumeStatsList, totalDiff });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
