import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetTopicsByClusterRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_TOPICS_BY_CLUSTER (224): topics with queues on the cluster's brokers (none for an unknown cluster). */
export const getTopicsByCluster: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(GetTopicsByClusterRequestHeader, request.extFields);
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getTopicsByCluster(header.cluster)),
  });
};
