import { encodeProducerConnection } from '../../common/protocol/producer-connection.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetProducerConnectionListRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_PRODUCER_CONNECTION_LIST (204): a producer group's connections; SYSTEM_ERROR for an unknown group. */
export const getProducerConnectionList: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(GetProducerConnectionListRequestHeader, request.extFields);
  const channels = broker.producerManager.groupChannelTable.get(h.producerGroup);
  if (channels === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `the producer group[${h.producerGroup}] not exist`,
    });
  }
  const body = encodeProducerConnection({
    connectionSet: [...channels.values()].map((c) => ({
      clientId: c.clientId,
      clientAddr: c.channel.remoteAddress,
      language: c.language,
      version: c.version,
    })),
  });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
