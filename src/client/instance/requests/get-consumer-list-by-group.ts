/** GET_CONSUMER_LIST_BY_GROUP (38): the client ids of a group's members the broker knows. */
import { decodeConsumerIdList } from '../../../common/protocol/consumer-list-by-group.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { GetConsumerListByGroupRequestHeader } from '../../../remoting/protocol/headers/get-consumer-list-by-group-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export function buildGetConsumerListByGroupRequest(group: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_CONSUMER_LIST_BY_GROUP, GetConsumerListByGroupRequestHeader, {
    consumerGroup: group,
  });
}

export function parseGetConsumerListByGroupResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
): string[] {
  expectSuccess(response, { brokerAddr, group });
  return response.body === undefined ? [] : decodeConsumerIdList(response.body);
}
