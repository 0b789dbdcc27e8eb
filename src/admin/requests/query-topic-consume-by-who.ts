/** QUERY_TOPIC_CONSUME_BY_WHO (300): the groups that consume (or have offsets in) a topic on one broker. */
import { decodeGroupList } from '../../common/protocol/group-list.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { QueryTopicConsumeByWhoRequestHeader } from '../../remoting/protocol/headers/query-topic-consume-by-who-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildQueryTopicConsumeByWhoRequest(topic: string): RemotingCommand {
  return requestWithHeader(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, QueryTopicConsumeByWhoRequestHeader, {
    topic,
  });
}

export function parseQueryTopicConsumeByWhoResponse(response: RemotingCommand, peer: Peer): string[] {
  return decodeGroupList(successBody(response, peer, 'group list'));
}
