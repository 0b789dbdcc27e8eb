import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_SYSTEM_TOPIC_LIST_FROM_NS (304): cluster and broker names, plus a broker to ask for the rest. */
export const getSystemTopicListFromNs: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getSystemTopicList()),
  });
