/** DELETE_TOPIC_IN_NAMESRV (216): a name server drops the topic's route (of one cluster when named). */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { DeleteTopicFromNamesrvRequestHeader } from '../../remoting/protocol/headers/delete-topic-from-namesrv-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildDeleteTopicInNamesrvRequest(topic: string, clusterName?: string): RemotingCommand {
  return requestWithHeader(RequestCode.DELETE_TOPIC_IN_NAMESRV, DeleteTopicFromNamesrvRequestHeader, {
    topic,
    clusterName,
  });
}

export function parseDeleteTopicInNamesrvResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
