/** GET_ROUTEINFO_BY_TOPIC (105) to a name server: a topic's queues and the brokers holding them. */
import { decodeTopicRouteData, type TopicRouteData } from '../../../common/protocol/route.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { GetRouteInfoRequestHeader } from '../../../remoting/protocol/headers/get-route-info-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { MQBrokerError } from '../../errors.js';
import { expectSuccess, requestWithHeader } from './support.js';

export function buildGetRouteInfoRequest(topic: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader, { topic });
}

/**
 * The route, or undefined when the name server knows no such topic (TOPIC_NOT_EXIST, which upstream
 * also throws as an exception the route updater ignores). A SUCCESS without a body is a failure, as
 * upstream treats it.
 */
export function parseGetRouteInfoResponse(
  response: RemotingCommand,
  namesrvAddr: string,
  topic: string,
): TopicRouteData | undefined {
  if (response.code === ResponseCode.TOPIC_NOT_EXIST) return undefined;
  expectSuccess(response, { brokerAddr: namesrvAddr, topic });
  if (response.body === undefined) {
    throw new MQBrokerError(ResponseCode.SYSTEM_ERROR, 'route answer without a body', {
      brokerAddr: namesrvAddr,
      topic,
    });
  }
  return decodeTopicRouteData(response.body);
}
