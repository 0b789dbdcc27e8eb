/** DELETE_SUBSCRIPTIONGROUP (207): a broker forgets a group's config (and its offsets with removeOffset). */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { DeleteSubscriptionGroupRequestHeader } from '../../remoting/protocol/headers/delete-subscription-group-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildDeleteSubscriptionGroupRequest(
  groupName: string,
  removeOffset: boolean,
): RemotingCommand {
  return requestWithHeader(RequestCode.DELETE_SUBSCRIPTIONGROUP, DeleteSubscriptionGroupRequestHeader, {
    groupName,
    removeOffset,
  });
}

export function parseDeleteSubscriptionGroupResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
