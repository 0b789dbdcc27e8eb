/** UNREGISTER_CLIENT (35): a producer or consumer group of this client leaves a broker. */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { UnregisterClientRequestHeader } from '../../../remoting/protocol/headers/unregister-client-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export function buildUnregisterClientRequest(
  clientId: string,
  producerGroup: string | undefined,
  consumerGroup: string | undefined,
): RemotingCommand {
  return requestWithHeader(RequestCode.UNREGISTER_CLIENT, UnregisterClientRequestHeader, {
    clientID: clientId,
    producerGroup,
    consumerGroup,
  });
}

export function parseUnregisterClientResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
): void {
  expectSuccess(response, { brokerAddr, group });
}
