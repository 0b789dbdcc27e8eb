import { encodeClusterInfo } from '../../common/protocol/route.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_BROKER_CLUSTER_INFO (106): ClusterInfo, always in the fastjson bare-key form in 4.9.8. */
export const getBrokerClusterInfo: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeClusterInfo(ns.routeInfoManager.getAllClusterInfo(), 'fastjson'),
  });
