/** GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): every topic a name server has a route for. */
import { decodeTopicList, type TopicList } from '../../common/protocol/topic-list.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, type Peer, successBody } from './support.js';

export function buildGetAllTopicListRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER);
}

export function parseGetAllTopicListResponse(response: RemotingCommand, peer: Peer): TopicList {
  return decodeTopicList(successBody(response, peer, 'topic list'));
}
