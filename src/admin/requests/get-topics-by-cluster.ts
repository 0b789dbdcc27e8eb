/** GET_TOPICS_BY_CLUSTER (224): the topics the brokers of one cluster hold, from a name server. */
import { decodeTopicList, type TopicList } from '../../common/protocol/topic-list.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetTopicsByClusterRequestHeader } from '../../remoting/protocol/headers/get-topics-by-cluster-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetTopicsByClusterRequest(cluster: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_TOPICS_BY_CLUSTER, GetTopicsByClusterRequestHeader, { cluster });
}

export function parseGetTopicsByClusterResponse(response: RemotingCommand, peer: Peer): TopicList {
  return decodeTopicList(successBody(response, peer, 'topics by cluster'));
}
