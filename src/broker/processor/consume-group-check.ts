/**
 * The subscription-group check PULL_MESSAGE and POP_MESSAGE share (upstream PullMessageProcessor and
 * PopMessageProcessor repeat it): the group exists, else SUBSCRIPTION_GROUP_NOT_EXIST, and may
 * consume, else NO_PERMISSION. The FAQ link differs between the two upstream processors, so the
 * caller gives its own.
 */
import type { SubscriptionGroupConfig } from '../../common/protocol/subscription-group-config.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerContext } from './broker-context.js';

/** The group's config when it may consume here, else the refusal. */
export function checkConsumeGroup(
  broker: BrokerContext,
  request: RemotingCommand,
  consumerGroup: string,
  faqTip: string,
): Readonly<SubscriptionGroupConfig> | RemotingCommand {
  const group = broker.subscriptionGroupManager.findSubscriptionGroupConfig(consumerGroup);
  if (group === undefined) {
    return createResponse(request, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, {
      remark: `subscription group [${consumerGroup}] does not exist, ${faqTip}`,
    });
  }
  if (!group.consumeEnable) {
    return createResponse(request, ResponseCode.NO_PERMISSION, {
      remark: `subscription group no permission, ${consumerGroup}`,
    });
  }
  return group;
}

export function isGroupRefusal(v: Readonly<SubscriptionGroupConfig> | RemotingCommand): v is RemotingCommand {
  return 'opaque' in v;
}
