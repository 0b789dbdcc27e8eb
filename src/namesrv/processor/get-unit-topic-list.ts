import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_UNIT_TOPIC_LIST (311): topics flagged UNIT. */
export const getUnitTopicList: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getUnitTopics()),
  });
