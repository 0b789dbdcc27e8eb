import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206): every topic that has queue data. */
export const getAllTopicListFromNameserver: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getAllTopicList()),
  });
