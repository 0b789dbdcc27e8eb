/** DELETE_TOPIC_IN_BROKER (215): the broker forgets the topic and removes its queues. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { DeleteTopicRequestHeader } from '../../remoting/protocol/headers/delete-topic-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildDeleteTopicInBrokerRequest(topic: string): RemotingCommand {
  return requestWithHeader(RequestCode.DELETE_TOPIC_IN_BROKER, DeleteTopicRequestHeader, { topic });
}

export function parseDeleteTopicInBrokerResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
