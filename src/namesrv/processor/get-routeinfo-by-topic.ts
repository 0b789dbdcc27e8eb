import { MQVersion } from '../../common/constants.js';
import { encodeTopicRouteData } from '../../common/protocol/route.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { NAMESPACE_ORDER_TOPIC_CONFIG } from '../kvconfig/kv-config-manager.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL). */
const APPLY_TOPIC_TIP = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/**
 * GET_ROUTEINFO_BY_TOPIC (105). As the 4.9.8 name server: standard JSON (BrowserCompatible, map keys
 * sorted) when the request's version is V4_9_4 or later or it sets acceptStandardJsonOnly=true, the
 * fastjson bare-key form otherwise; orderTopicConf only when orderMessageEnable.
 */
export const getRouteInfoByTopic: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(GetRouteInfoRequestHeader, request.extFields);
  const route = ns.routeInfoManager.pickupTopicRouteData(header.topic);
  if (route === undefined) {
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, {
      remark: `No topic route info in name server for the topic: ${header.topic}${APPLY_TOPIC_TIP}`,
    });
  }
  if (ns.settings.orderMessageEnable) {
    route.orderTopicConf = ns.kvConfigManager.getKVConfig(NAMESPACE_ORDER_TOPIC_CONFIG, header.topic);
  }
  const standard = request.version >= MQVersion.V4_9_4 || header.acceptStandardJsonOnly === true;
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeTopicRouteData(route, standard ? 'standard' : 'fastjson'),
  });
};
