import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  WipeWritePermOfBrokerRequestHeader,
  WipeWritePermOfBrokerResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** WIPE_WRITE_PERM_OF_BROKER (205): producers stop choosing the broker (until it re-registers changed configs). */
export const wipeWritePermOfBroker: NamesrvRequestHandler = (ns, ctx, request) => {
  const header = decodeHeader(WipeWritePermOfBrokerRequestHeader, request.extFields);
  const wipeTopicCount = ns.routeInfoManager.wipeWritePermOfBroker(header.brokerName);
  ns.logger.info('wiped the write perm of a broker', {
    brokerName: header.brokerName,
    client: ctx.remoteAddress,
    topics: wipeTopicCount,
  });
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(WipeWritePermOfBrokerResponseHeader, { wipeTopicCount }),
  });
};
