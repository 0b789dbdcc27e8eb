import { decodeSubscriptionGroupConfig } from '../../common/protocol/subscription-group-config.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type BrokerRequestHandler, isSlave, SLAVE_REMARK } from './broker-context.js';

/**
 * UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): the body is one SubscriptionGroupConfig; answered once
 * subscriptionGroup.json is written. A body without a valid group name is refused (SYSTEM_ERROR).
 */
export const updateAndCreateSubscriptionGroup: BrokerRequestHandler = async (broker, ctx, request) => {
  if (isSlave(broker)) return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: SLAVE_REMARK });
  broker.logger.info('updateAndCreateSubscriptionGroup called', { client: ctx.remoteAddress });
  const config = decodeSubscriptionGroupConfig(request.body);
  broker.subscriptionGroupManager.updateSubscriptionGroupConfig(config);
  await broker.subscriptionGroupManager.flushed();
  return createResponse(request, ResponseCode.SUCCESS);
};
