/**
 * GET_CONSUMER_RUNNING_INFO (307): the broker asks one consumer client for its running state
 * (properties, subscriptions, process queues, status) and relays the answer.
 */
import {
  type DecodedConsumerRunningInfo,
  decodeConsumerRunningInfo,
} from '../../common/protocol/consumer-running-info.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetConsumerRunningInfoRequestHeader } from '../../remoting/protocol/headers/get-consumer-running-info-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetConsumerRunningInfoRequest(
  consumerGroup: string,
  clientId: string,
  jstackEnable: boolean,
): RemotingCommand {
  return requestWithHeader(RequestCode.GET_CONSUMER_RUNNING_INFO, GetConsumerRunningInfoRequestHeader, {
    consumerGroup,
    clientId,
    jstackEnable,
  });
}

export function parseGetConsumerRunningInfoResponse(
  response: RemotingCommand,
  peer: Peer,
): DecodedConsumerRunningInfo {
  return decodeConsumerRunningInfo(successBody(response, peer, 'consumer running info'));
}
