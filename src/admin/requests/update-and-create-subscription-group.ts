/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): a group's config (the body, fastjson) on one broker. */
import {
  encodeSubscriptionGroupConfig,
  type SubscriptionGroupConfig,
} from '../../common/protocol/subscription-group-config.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

export function buildUpdateAndCreateSubscriptionGroupRequest(
  config: SubscriptionGroupConfig,
): RemotingCommand {
  return bareRequest(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, encodeSubscriptionGroupConfig(config));
}

export function parseUpdateAndCreateSubscriptionGroupResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
