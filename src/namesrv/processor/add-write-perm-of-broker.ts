import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  AddWritePermOfBrokerRequestHeader,
  AddWritePermOfBrokerResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** ADD_WRITE_PERM_OF_BROKER (327): every topic of the broker back to read + write. */
export const addWritePermOfBroker: NamesrvRequestHandler = (ns, ctx, request) => {
  const header = decodeHeader(AddWritePermOfBrokerRequestHeader, request.extFields);
  const addTopicCount = ns.routeInfoManager.addWritePermOfBroker(header.brokerName);
  ns.logger.info('added the write perm of a broker', {
    brokerName: header.brokerName,
    client: ctx.remoteAddress,
    topics: addTopicCount,
  });
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(AddWritePermOfBrokerResponseHeader, { addTopicCount }),
  });
};
