import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { DeleteTopicFromNamesrvRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** DELETE_TOPIC_IN_NAMESRV (216): the topic's queues on one cluster, or everywhere without a clusterName. */
export const deleteTopicInNamesrv: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(DeleteTopicFromNamesrvRequestHeader, request.extFields);
  const cluster = header.clusterName;
  ns.routeInfoManager.deleteTopic(
    header.topic,
    cluster === undefined || cluster === '' ? undefined : cluster,
  );
  return createResponse(request, ResponseCode.SUCCESS);
};
