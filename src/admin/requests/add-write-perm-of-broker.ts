/** ADD_WRITE_PERM_OF_BROKER (327): a name server routes writes to a broker again; answers how many topics changed. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { AddWritePermOfBrokerRequestHeader } from '../../remoting/protocol/headers/add-write-perm-of-broker-request-header.js';
import { AddWritePermOfBrokerResponseHeader } from '../../remoting/protocol/headers/add-write-perm-of-broker-response-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildAddWritePermOfBrokerRequest(brokerName: string): RemotingCommand {
  return requestWithHeader(RequestCode.ADD_WRITE_PERM_OF_BROKER, AddWritePermOfBrokerRequestHeader, {
    brokerName,
  });
}

export function parseAddWritePermOfBrokerResponse(response: RemotingCommand, peer: Peer): number {
  expectSuccess(response, peer);
  return decodeHeader(AddWritePermOfBrokerResponseHeader, response.extFields).addTopicCount;
}
