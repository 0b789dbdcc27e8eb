import type { ClientConnection } from '../../common/protocol/consumer-connection.js';
import { encodeConsumerConnection } from '../../common/protocol/consumer-connection.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumerConnectionListRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_CONSUMER_CONNECTION_LIST (203): who is online in a consumer group, with the group's
 * subscriptions; CONSUMER_NOT_ONLINE when nobody is.
 */
export const getConsumerConnectionList: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(GetConsumerConnectionListRequestHeader, request.extFields);
  const info = broker.consumerManager.getConsumerGroupInfo(h.consumerGroup);
  if (info === undefined) {
    return createResponse(request, ResponseCode.CONSUMER_NOT_ONLINE, {
      remark: `the consumer group[${h.consumerGroup}] not online`,
    });
  }
  const connectionSet: ClientConnection[] = [...info.channelInfoTable.values()].map((c) => ({
    clientId: c.clientId,
    clientAddr: c.channel.remoteAddress,
    language: c.language,
    version: c.version,
  }));
  const body = encodeConsumerConnection({
    connectionSet,
    subscriptionTable: new Map(info.subscriptionTable),
    consumeType: info.consumeType,
    messageModel: info.messageModel,
    consumeFromWhere: info.consumeFromWhere,
  });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
