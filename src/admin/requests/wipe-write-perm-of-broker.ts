/** WIPE_WRITE_PERM_OF_BROKER (205): a name server routes no writes to a broker; answers how many topics changed. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { WipeWritePermOfBrokerRequestHeader } from '../../remoting/protocol/headers/wipe-write-perm-of-broker-request-header.js';
import { WipeWritePermOfBrokerResponseHeader } from '../../remoting/protocol/headers/wipe-write-perm-of-broker-response-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildWipeWritePermOfBrokerRequest(brokerName: string): RemotingCommand {
  return requestWithHeader(RequestCode.WIPE_WRITE_PERM_OF_BROKER, WipeWritePermOfBrokerRequestHeader, {
    brokerName,
  });
}

export function parseWipeWritePermOfBrokerResponse(response: RemotingCommand, peer: Peer): number {
  expectSuccess(response, peer);
  return decodeHeader(WipeWritePermOfBrokerResponseHeader, response.extFields).wipeTopicCount;
}
