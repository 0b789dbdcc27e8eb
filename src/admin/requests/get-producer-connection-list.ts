/** GET_PRODUCER_CONNECTION_LIST (204): a producer group's connected clients on one broker. */
import {
  decodeProducerConnection,
  type ProducerConnection,
} from '../../common/protocol/producer-connection.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetProducerConnectionListRequestHeader } from '../../remoting/protocol/headers/get-producer-connection-list-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetProducerConnectionListRequest(producerGroup: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_PRODUCER_CONNECTION_LIST, GetProducerConnectionListRequestHeader, {
    producerGroup,
  });
}

export function parseGetProducerConnectionListResponse(
  response: RemotingCommand,
  peer: Peer,
): ProducerConnection {
  return decodeProducerConnection(successBody(response, peer, 'producer connection'));
}
