/** GET_CONSUMER_CONNECTION_LIST (203): a group's online members and subscriptions as one broker sees them. */
import {
  type ConsumerConnection,
  decodeConsumerConnection,
} from '../../common/protocol/consumer-connection.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetConsumerConnectionListRequestHeader } from '../../remoting/protocol/headers/get-consumer-connection-list-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetConsumerConnectionListRequest(consumerGroup: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_CONSUMER_CONNECTION_LIST, GetConsumerConnectionListRequestHeader, {
    consumerGroup,
  });
}

/** A group with no member online is CONSUMER_NOT_ONLINE from the broker, an MQBrokerError here. */
export function parseGetConsumerConnectionListResponse(
  response: RemotingCommand,
  peer: Peer,
): ConsumerConnection {
  return decodeConsumerConnection(successBody(response, peer, 'consumer connection'));
}
