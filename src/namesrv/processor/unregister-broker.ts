import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { UnRegisterBrokerRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** UNREGISTER_BROKER (104): a broker's clean shutdown. */
export const unregisterBroker: NamesrvRequestHandler = (ns, _ctx, request) => {
  const h = decodeHeader(UnRegisterBrokerRequestHeader, request.extFields);
  ns.routeInfoManager.unregisterBroker(h.clusterName, h.brokerAddr, h.brokerName, h.brokerId);
  return createResponse(request, ResponseCode.SUCCESS);
};
