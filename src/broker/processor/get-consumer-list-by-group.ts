import { encodeConsumerIdList } from '../../common/protocol/consumer-list-by-group.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumerListByGroupRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_CONSUMER_LIST_BY_GROUP (38): the client ids a consumer rebalances over. */
export const getConsumerListByGroup: BrokerRequestHandler = (broker, ctx, request) => {
  const header = decodeHeader(GetConsumerListByGroupRequestHeader, request.extFields);
  const clientIds = broker.consumerManager.getConsumerGroupInfo(header.consumerGroup)?.getAllClientId() ?? [];
  if (clientIds.length > 0) {
    return createResponse(request, ResponseCode.SUCCESS, { body: encodeConsumerIdList(clientIds) });
  }
  // Info: a rebalance racing the group's first heartbeat to this broker asks this, and the client heals it.
  broker.logger.info('getConsumerGroupInfo failed', {
    group: header.consumerGroup,
    client: ctx.remoteAddress,
  });
  return createResponse(request, ResponseCode.SYSTEM_ERROR, {
    remark: `no consumer for this group, ${header.consumerGroup}`,
  });
};
