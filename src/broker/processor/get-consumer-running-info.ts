import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumerRunningInfoRequestHeader } from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import type { BrokerRequestHandler } from './broker-context.js';
import { callConsumer } from './call-consumer.js';

/**
 * GET_CONSUMER_RUNNING_INFO (307, `mqadmin consumerStatus`): forwarded as is to the consumer named by
 * clientId, whose ConsumerRunningInfo body is the answer.
 */
export const getConsumerRunningInfo: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(GetConsumerRunningInfoRequestHeader, request.extFields);
  return callConsumer(broker, RequestCode.GET_CONSUMER_RUNNING_INFO, request, h.consumerGroup, h.clientId);
};
