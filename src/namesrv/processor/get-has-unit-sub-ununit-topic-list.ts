import { encodeTopicList } from '../../common/protocol/topic-list.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST (313): topics flagged UNIT_SUB but not UNIT. */
export const getHasUnitSubUnUnitTopicList: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicList(ns.routeInfoManager.getHasUnitSubUnUnitTopicList()),
  });
