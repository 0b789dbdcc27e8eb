/** GET_TOPIC_STATS_INFO (202): min/max offset and last store time of each queue of a topic on one broker. */

import type { MessageQueue } from '../../common/message/message-queue.js';
import { decodeTopicStatsTable, type TopicOffset } from '../../common/protocol/topic-stats-table.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetTopicStatsInfoRequestHeader } from '../../remoting/protocol/headers/get-topic-stats-info-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetTopicStatsInfoRequest(topic: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_TOPIC_STATS_INFO, GetTopicStatsInfoRequestHeader, { topic });
}

export function parseGetTopicStatsInfoResponse(
  response: RemotingCommand,
  peer: Peer,
): Array<[MessageQueue, TopicOffset]> {
  return decodeTopicStatsTable(successBody(response, peer, 'topic stats')).offsetTable;
}
