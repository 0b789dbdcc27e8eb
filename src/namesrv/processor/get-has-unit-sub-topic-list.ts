import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_HAS_UNIT_SUB_TOPIC_LIST (312): topics flagged UNIT_SUB. */
export const getHasUnitSubTopicList: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getHasUnitSubTopicList()),
  });
