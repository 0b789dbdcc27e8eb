/** GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): every group config of one broker and their data version. */
import {
  decodeSubscriptionGroupWrapper,
  type SubscriptionGroupWrapper,
} from '../../common/protocol/subscription-group-config.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, type Peer, successBody } from './support.js';

export function buildGetAllSubscriptionGroupRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
}

export function parseGetAllSubscriptionGroupResponse(
  response: RemotingCommand,
  peer: Peer,
  now: bigint,
): SubscriptionGroupWrapper {
  return decodeSubscriptionGroupWrapper(successBody(response, peer, 'subscription groups'), {
    timestamp: now,
  });
}
