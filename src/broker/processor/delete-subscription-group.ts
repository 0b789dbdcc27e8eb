import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { DeleteSubscriptionGroupRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type BrokerRequestHandler, isSlave, SLAVE_REMARK } from './broker-context.js';

/** DELETE_SUBSCRIPTIONGROUP (207): removes the group's config and, with removeOffset, its offsets. */
export const deleteSubscriptionGroup: BrokerRequestHandler = async (broker, ctx, request) => {
  if (isSlave(broker)) return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: SLAVE_REMARK });
  const h = decodeHeader(DeleteSubscriptionGroupRequestHeader, request.extFields);
  broker.logger.info('deleteSubscriptionGroup called', { client: ctx.remoteAddress, group: h.groupName });
  broker.subscriptionGroupManager.deleteSubscriptionGroupConfig(h.groupName);
  if (h.removeOffset) {
    broker.consumerOffsetManager.removeOffset(h.groupName);
    void broker.consumerOffsetManager.persist();
  }
  if (broker.config.autoDeleteUnusedStats) broker.brokerStatsManager.onGroupDeleted(h.groupName);
  await Promise.all([broker.subscriptionGroupManager.flushed(), broker.consumerOffsetManager.flushed()]);
  return createResponse(request, ResponseCode.SUCCESS);
};
